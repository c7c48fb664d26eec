#!/usr/bin/env bash
# Seed 001's ResNet-50 delivery pipeline, run as its readers run it: the §3.7 script and the §5.1
# Makefile with their commands exactly as the seed prints them (only the model is ours: a
# ResNet-50-like network exported the way §3.1 exports it, with a dynamic batch axis, and
# calibration data written the way §3.5 writes it). `ms` is found on PATH, as in the seed.
# Every step must exit 0 and write what the seed says; then the results are checked against
# ONNX Runtime (the converted model) and against the float model (the quantized one).
#   seed001_pipeline.sh MS_BINARY
set -euo pipefail
ms_bin=$(readlink -f "$1")
here=$(cd "$(dirname "$0")" && pwd)
make_resnet=$(dirname "$ms_bin")/ms_make_resnet_like
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
ln -s "$ms_bin" "$work/bin/ms"
export PATH="$work/bin:$PATH"
cd "$work"

"$make_resnet" resnet50.onnx 224 --dynamic-batch >/dev/null
python3 "$here/seed_calib_data.py" . 8 224
test "$(stat -c %s calib_data.bin)" -eq $((8 * 3 * 224 * 224 * 4))

# --- §3.7: the reusable script, commands verbatim --------------------------------------------
cat > pipeline.sh <<'EOF'
#!/bin/bash
set -e
MODEL_NAME="resnet50"
# 1. convert
ms convert --fmk ONNX --modelFile ${MODEL_NAME}.onnx --outputFile ${MODEL_NAME}.mindir
# 2. check
ms model_check --checkModel 1 --modelFile ${MODEL_NAME}.mindir
# 3. optimize
ms optimize --modelFile ${MODEL_NAME}.mindir --optimize general --outputFile ${MODEL_NAME}_opt.mindir
# 4. quantize
ms quant --modelFile ${MODEL_NAME}_opt.mindir --inputFile calib_data.bin --quantType FULL_QUANT --outputFile ${MODEL_NAME}_quant.mindir
# 5. list the results
ls -lh ${MODEL_NAME}*.mindir
EOF
bash pipeline.sh > script.log 2>&1 || { cat script.log; echo "FAIL: seed 001 §3.7 script"; exit 1; }
for f in resnet50.mindir resnet50_opt.mindir resnet50_quant.mindir; do
  [ -s "$f" ] || { cat script.log; echo "FAIL: the script did not write $f"; exit 1; }
  grep -q "$f" script.log || { cat script.log; echo "FAIL: ls -lh did not list $f"; exit 1; }
done
# §3.3: model_check prints the inputs (name, shape, dtype) and the operator count.
grep -q "input" script.log && grep -qi "float32" script.log && grep -Eqi "(ops|nodes|operators)[^0-9]*[0-9]+" script.log \
  || { cat script.log; echo "FAIL: model_check's summary (inputs, shapes, dtypes, op count) is missing"; exit 1; }
# The dynamic batch axis: the calibration samples are read at batch 1, and the tool says so.
grep -qi "batch" script.log || { cat script.log; echo "FAIL: ms quant did not say how it read calib_data.bin"; exit 1; }

# --- the converted model against ONNX Runtime on the original, the quantized one against float --
ms run --modelFile resnet50.mindir --inDataFile sample0.npy --outputDir out_fp32 >/dev/null
node "$here/ort_agrees.js" resnet50.onnx 0 out_fp32/output_0.npy 0.99999 sample0.npy
ms run --modelFile resnet50_quant.mindir --inDataFile sample0.npy --outputDir out_int8 >/dev/null
node "$here/ort_agrees.js" resnet50.onnx 0 out_int8/output_0.npy 0.99 sample0.npy
ms info --modelFile resnet50_quant.mindir --json > quant_info.json
# int8 weights: about one byte a parameter (float32 would be four)
python3 - quant_info.json <<'PY' || { cat quant_info.json; echo "FAIL: resnet50_quant.mindir does not hold int8 weights"; exit 1; }
import json, sys
info = json.load(open(sys.argv[1]))
sys.exit(0 if info["parameter_bytes"] < 1.2 * info["parameters"] else 1)
PY

# --- §5.1: the Makefile, recipes verbatim, `make pkg` from a clean folder -----------------------
mkdir make_run
cp resnet50.onnx calib_data.bin make_run/
cd make_run
printf '%s\n' \
  'MODEL_NAME ?= resnet50' \
  'CALIB_DATA ?= calib_data.bin' \
  'convert:' \
  '	ms convert --fmk ONNX --modelFile $(MODEL_NAME).onnx --outputFile $(MODEL_NAME).mindir' \
  'check: convert' \
  '	ms model_check --checkModel 1 --modelFile $(MODEL_NAME).mindir' \
  'optimize: check' \
  '	ms optimize --modelFile $(MODEL_NAME).mindir --optimize general --outputFile $(MODEL_NAME)_opt.mindir' \
  'quant: optimize' \
  '	ms quant --modelFile $(MODEL_NAME)_opt.mindir --inputFile $(CALIB_DATA) --quantType FULL_QUANT --outputFile $(MODEL_NAME)_quant.mindir' \
  'pkg: quant' \
  '	@ls -lh $(MODEL_NAME)*.mindir' > Makefile
make pkg > make.log 2>&1 || { cat make.log; echo "FAIL: seed 001 §5.1 make pkg"; exit 1; }
for f in resnet50.mindir resnet50_opt.mindir resnet50_quant.mindir; do
  [ -s "$f" ] && grep -q "$f" make.log || { cat make.log; echo "FAIL: make pkg did not write and list $f"; exit 1; }
done
echo "seed 001 pipeline: script and Makefile passed"
