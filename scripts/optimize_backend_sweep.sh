#!/usr/bin/env bash
# Runs `ms optimize` (general, with its equality check on the recorded inputs) over every model of
# the ONNX backend test data and counts the exit codes: 0 optimized and verified, 1 outputs changed
# (a pass bug), 2/3 input the tool rejects. Prints the models that did not exit 0.
#   scripts/optimize_backend_sweep.sh [BUILD_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
MS=${1:-build}/ms
DATA=/usr/share/libonnx-testdata/data
OUT=$(mktemp -d)
declare -A count
for d in "$DATA"/{node,pytorch-converted,pytorch-operator,simple}/*/; do
  [ -f "$d/model.onnx" ] || continue
  ins=$(ls "$d"/test_data_set_0/input_*.pb 2>/dev/null | sort -V | paste -sd,)
  msg=$(timeout 120 "$MS" optimize --modelFile "$d/model.onnx" --outputFile "$OUT/o.onnx" ${ins:+--inDataFile "$ins"} 2>&1)
  rc=$?
  count[$rc]=$(( ${count[$rc]:-0} + 1 ))
  [ $rc -ne 0 ] && echo "exit $rc $(basename "$d"): $(echo "$msg" | grep -m1 -E 'error|differs|broke')"
  rm -f "$OUT/o.onnx"
done
rm -rf "$OUT"
for rc in "${!count[@]}"; do echo "exit $rc: ${count[$rc]} models"; done
[ "${count[1]:-0}" -eq 0 ]
