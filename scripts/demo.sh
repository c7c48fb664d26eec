#!/usr/bin/env bash
# Installs, builds, then takes the bundled demo model through the main job: describe it, check it,
# convert it to MindIR, and run both the ONNX original and the MindIR result on the same input.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
demo=build/demo
./build/ms info --modelFile "$demo/demo_cnn.onnx"
./build/ms model_check --checkModel 1 --modelFile "$demo/demo_cnn.onnx"
./build/ms convert --fmk ONNX --modelFile "$demo/demo_cnn.onnx" --outputFile "$demo/demo_cnn"
./build/ms run --modelFile "$demo/demo_cnn.onnx" --inDataFile "$demo/demo_input.npy" --outputDir "$demo/out_onnx"
./build/ms run --modelFile "$demo/demo_cnn.mindir" --inDataFile "$demo/demo_input.npy" --outputDir "$demo/out_mindir"
