#!/usr/bin/env bash
# Every ONNX writer path of `ms` (convert from TF/ONNX/TFLite/MindIR, optimize, quant) on the
# repository's small models: ONNX's full check, then ONNX Runtime against `ms run`
# (onnx_writers_ort.js). Usage: onnx_writers_ort.sh MS   (MS_ONNX_CHECK: the ms_onnx_check binary)
set -euo pipefail
ms="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v node >/dev/null || { echo "FAIL: node is missing (scripts/fetch_models.sh installs nodejs)" >&2; exit 1; }
command -v protoc >/dev/null || { echo "FAIL: protoc is missing (protobuf-compiler, a build dependency)" >&2; exit 1; }
command -v "${FLATC:-flatc}" >/dev/null || { echo "FAIL: flatc is missing (flatbuffers-compiler, a build dependency)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
node "$here/onnx_writers_ort.js" "$ms" "$work"
