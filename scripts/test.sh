#!/usr/bin/env bash
# Installs, builds and runs every test (unit, CLI, ONNX backend suite); ctest prints the summary.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
