#!/usr/bin/env bash
# MindIR files written outside the project -> `ms convert --saveType ONNX` -> ONNX Runtime gives
# the values `ms run` gives on the MindIR (mindir_to_onnx_ort.js). Usage: mindir_to_onnx_ort.sh MS
set -euo pipefail
ms="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v node >/dev/null || { echo "FAIL: node is missing (scripts/fetch_models.sh installs nodejs)" >&2; exit 1; }
command -v protoc >/dev/null || { echo "FAIL: protoc is missing (protobuf-compiler, a build dependency)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
node "$here/mindir_to_onnx_ort.js" "$ms" "$work"
