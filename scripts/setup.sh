#!/usr/bin/env bash
# Installs the Debian packages mstools builds with and builds it into ./build.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake
  libprotobuf-dev protobuf-compiler
  libflatbuffers-dev flatbuffers-compiler  # the TFLite importer's schema (flatc at build time)
  libonnx-dev libonnx-testdata
  libfmt-dev nlohmann-json3-dev libcli11-dev
  libdnnl-dev  # oneDNN: the fast runtime's convolution, matmul and pooling kernels
  ocl-icd-opencl-dev  # oneDNN's CMake config requires OpenCL; only a Recommends of libdnnl-dev
  libstb-dev  # stb_image: JPEG/PNG/BMP decoding for ms preprocess and image-folder calibration
  libgtest-dev libbenchmark-dev
  fonts-dejavu-core  # tests/e2e/ocr_int8_accuracy.sh renders text lines with DejaVu (stb_truetype from libstb-dev)
  python3  # ms lint parses network sources with python3's own ast module
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
