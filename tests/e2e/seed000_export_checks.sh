#!/usr/bin/env bash
# Seed 000 §3.3's three checks after a MindIR export, done with `ms` as the README shows them, on a
# file MindSpore itself exported (tests/data/mindir/ms200a0_ori_net_lenet_like.mindir, with its
# input and the output the network gives in eval mode, computed independently: SOURCES.md there):
#   1. size and structure: the file is a whole model with the expected inputs and outputs;
#   2. reload and rerun: the same input gives the network's eval-mode output;
#   3. conversion rehearsal for the device: every operator has a kernel on the target.
# Each check must also fail when the thing it guards is wrong (a truncated export, a wrong output).
#   seed000_export_checks.sh MS_BINARY
set -euo pipefail
ms=$1
data=$(cd "$(dirname "$0")/../data/mindir" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
net="$data/ms200a0_ori_net_lenet_like.mindir"

# 1. size and structure
"$ms" info --modelFile "$net" > "$work/info.txt" || { cat "$work/info.txt"; fail "ms info"; }
grep -q "x: float32\[1,1,32,32\]" "$work/info.txt" && grep -q ": float32\[1,10\]" "$work/info.txt" \
  || { cat "$work/info.txt"; fail "ms info does not show the input x [1,1,32,32] and the [1,10] output"; }
# the weights are the bulk of the file: an export that lost its weights would show few parameter bytes
param_bytes=$(sed -n 's/^parameters: [0-9]* (\([0-9]*\) bytes.*/\1/p' "$work/info.txt")
[ -n "$param_bytes" ] && [ "$param_bytes" -gt $(( $(stat -c %s "$net") * 9 / 10 )) ] \
  || { cat "$work/info.txt"; fail "parameter bytes ($param_bytes) are not the bulk of the file"; }
head -c 2000 "$net" > "$work/truncated.mindir"
rc=0; "$ms" info --modelFile "$work/truncated.mindir" > "$work/trunc.txt" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { cat "$work/trunc.txt"; fail "a truncated export: ms info exit $rc, want 2"; }

# 2. reload, rerun, compare with the network's own output
"$ms" benchmark --modelFile "$net" --inDataFile "$data/ms200a0_ori_net_lenet_like.input_0.npy" \
  --benchmarkDataFile "$data/ms200a0_ori_net_lenet_like.output_0.npy" --loopCount 2 --warmUpLoopCount 1 > "$work/bench.txt" 2>&1 \
  || { cat "$work/bench.txt"; fail "ms benchmark --benchmarkDataFile: the reloaded model does not reproduce the eval output"; }
# the same check must notice a wrong expected output (the other sample's input as "expected")
"$ms" run --modelFile "$net" --inDataFile "$data/ms200a0_ori_net_lenet_like.input_0.npy" --outputDir "$work/out" >/dev/null
python3 - "$work/out/output_0.npy" "$work/wrong.npy" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
# flip the sign of every float32 value after the header: a different output of the same shape
hlen = int.from_bytes(b[8:10], 'little') + 10
for i in range(hlen + 3, len(b), 4):
    b[i] ^= 0x80
open(sys.argv[2], 'wb').write(b)
EOF
rc=0
"$ms" benchmark --modelFile "$net" --inDataFile "$data/ms200a0_ori_net_lenet_like.input_0.npy" \
  --benchmarkDataFile "$work/wrong.npy" --loopCount 1 --warmUpLoopCount 0 > "$work/bench_wrong.txt" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || { cat "$work/bench_wrong.txt"; fail "a wrong expected output: ms benchmark exit $rc, want 1"; }

# 3. rehearse the conversion for the device
for target in ascend cpu; do
  "$ms" model_check --checkModel 1 --modelFile "$net" --target "$target" > "$work/check_$target.txt" \
    || { cat "$work/check_$target.txt"; fail "model_check --target $target"; }
  grep -Eq "Supported ops: ([0-9]+)/\1, Unsupported ops: \[\]" "$work/check_$target.txt" \
    || { cat "$work/check_$target.txt"; fail "--target $target: not every op is supported"; }
done
echo "seed 000 export checks: passed"
