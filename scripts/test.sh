#!/usr/bin/env bash
# Installs, builds and runs every test (unit, CLI, ONNX backend suite, real models); ctest prints
# the summary. The real models come from npm packages (scripts/fetch_models.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
# Test-only dependency: the compare report test opens the HTML report in headless Chromium.
if ! command -v chromium >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
./scripts/fetch_models.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
