#!/usr/bin/env bash
# Seed 003's onnx2ms command lines as its readers type them (§3.2 --check, §3.3 the production
# command, §3.4 INT8 with --per-channel), on a detection-style ResNet-50-like export whose input
# `input` has a dynamic batch, height and width and whose output is `output`.
# §3.3 asks for `--output model.ms`: MindSpore Lite's FlatBuffers format is not written yet, so that
# line must be refused (exit 3, nothing written); the same line with `--output model.mindir` must
# convert. The results are checked against ONNX Runtime on the original file.
#   seed003_onnx2ms.sh MS_BINARY
set -euo pipefail
ms_bin=$(readlink -f "$1")
here=$(cd "$(dirname "$0")" && pwd)
make_resnet=$(dirname "$ms_bin")/ms_make_resnet_like
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
ln -s "$ms_bin" "$work/bin/ms"
ln -s "$ms_bin" "$work/bin/onnx2ms"
export PATH="$work/bin:$PATH"
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }

"$make_resnet" fixed.onnx 224 --dynamic-shape >/dev/null

# §3.2: the support check writes nothing and reports N/M.
onnx2ms --model fixed.onnx --output model.ms --check > check.log 2>&1 || { cat check.log; fail "onnx2ms --check"; }
grep -Eq "Supported ops: [0-9]+/[0-9]+" check.log || { cat check.log; fail "--check printed no 'Supported ops: N/M'"; }
[ ! -e model.ms ] || fail "--check wrote model.ms"

# §3.3 verbatim: refused, because .ms would be a different format than the name says.
rc=0
onnx2ms \
  --model fixed.onnx \
  --output model.ms \
  --input-shape input:[1,3,640,640] \
  --output-name output \
  --device Ascend \
  --precision float32 \
  --enable-optimize \
  --check-model \
  --log-level INFO > ms_out.log 2>&1 || rc=$?
[ "$rc" -eq 3 ] || { cat ms_out.log; fail "--output model.ms: exit $rc, want 3 (format not written yet)"; }
grep -q "\.ms" ms_out.log || { cat ms_out.log; fail "the refusal does not name the .ms output"; }
[ ! -e model.ms ] || fail "a refused conversion left model.ms behind"

# §3.3 with a MindIR output: converts, optimizes, checks.
onnx2ms \
  --model fixed.onnx \
  --output model.mindir \
  --input-shape input:[1,3,640,640] \
  --output-name output \
  --device Ascend \
  --precision float32 \
  --enable-optimize \
  --check-model \
  --log-level INFO > convert.log 2>&1 || { cat convert.log; fail "onnx2ms --output model.mindir"; }
[ -s model.mindir ] || fail "model.mindir not written"
ms info --modelFile model.mindir > info.txt
grep -q "1,3,640,640\|1x3x640x640\|\[1, 3, 640, 640\]" info.txt || { cat info.txt; fail "the input shape 1,3,640,640 was not fixed"; }
! grep -q "BatchNormalization" info.txt || { cat info.txt; fail "--enable-optimize left BatchNormalization unfused"; }
grep -qi "ascend" info.txt || { cat info.txt; fail "--device Ascend is not recorded in the model"; }

# The converted model computes what the original computes (ONNX Runtime on fixed.onnx).
python3 "$here/seed_calib_data.py" . 2 640
ms run --modelFile model.mindir --inDataFile sample0.npy --outputDir out >/dev/null
node "$here/ort_agrees.js" fixed.onnx 0 out/output_0.npy 0.99999 sample0.npy

# §3.4: INT8 with a calibration set and per-channel weights.
onnx2ms --model fixed.onnx --output model_int8.mindir --input-shape input:[1,3,640,640] --device Ascend \
  --precision int8 --calib-data calib_data.bin --per-channel --log-level WARNING > int8.log 2>&1 \
  || { cat int8.log; fail "onnx2ms --precision int8 --calib-data"; }
ms run --modelFile model_int8.mindir --inDataFile sample0.npy --outputDir out_int8 >/dev/null
node "$here/ort_agrees.js" fixed.onnx 0 out_int8/output_0.npy 0.99 sample0.npy
# ... and without calibration data it is refused with the flag's name.
rc=0
onnx2ms --model fixed.onnx --output model_nocalib.mindir --input-shape input:[1,3,640,640] --precision int8 > nocalib.log 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q -- "--calib-data" nocalib.log || { cat nocalib.log; fail "--precision int8 without --calib-data: exit $rc"; }
[ ! -e model_nocalib.mindir ] || fail "a refused conversion left a file behind"
echo "seed 003 onnx2ms: all command lines behave as the seed says"
