#!/usr/bin/env bash
# Installs, builds, then runs the bundled default model: describes it and runs one inference.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
model=build/demo/demo_cnn.onnx
./build/ms info --modelFile "$model"
./build/ms run --modelFile "$model" --inDataFile build/demo/demo_input.npy --outputDir build/demo/out
