#!/usr/bin/env bash
# CLI checks of the op formulas on real torch.onnx.export output: every file
# of testdata/onnx/ops/ (written by make_ops.py) imports with PyTorch's
# parameter count and the hand-counted forward FLOPs of expected.json, trains,
# and has no unknown op; unknown ops are listed in text and JSON.
# Usage: cli_graph_ops_test.sh FRUGAL_BINARY (from the repository root).
source "$(dirname "$0")/cli_test_lib.sh" "$1"
DIR=testdata/onnx/ops

for name in $(python3 -c 'import json; print(" ".join(sorted(json.load(open("'$DIR'/expected.json")))))'); do
  "$FRUGAL" graph show "$DIR/$name.onnx" --train --json >"$TMP/$name.json" 2>"$TMP/err" ||
    fail "graph show $name.onnx --train: $(cat "$TMP/err")"
  python3 - "$DIR/expected.json" "$TMP/$name.json" "$name" <<'PY' || fail "$name.onnx disagrees"
import json, sys
want = json.load(open(sys.argv[1]))[sys.argv[3]]
got = json.load(open(sys.argv[2]))
name = sys.argv[3]
ok = True
if got["params"] != want["params"]:
    print(f"{name}: params {got['params']} != PyTorch's {want['params']}"); ok = False
if abs(got["flops_forward"] - want["flops_forward"]) > 1e-9 * max(1, want["flops_forward"]):
    print(f"{name}: forward FLOPs {got['flops_forward']} != {want['flops_forward']}"); ok = False
if got["unknown_ops"]:
    print(f"{name}: unknown ops {got['unknown_ops']}"); ok = False
if want["params"] > 0 and not got["flops_backward"] > 0:
    print(f"{name}: no backward FLOPs"); ok = False
sys.exit(0 if ok else 1)
PY
done

# Unknown op types stay bytes-only and are listed with their counts.
"$FRUGAL" graph show testdata/onnx/mixed.onnx --json >"$TMP/mixed.json" || fail "mixed --json"
python3 -c 'import json,sys; u=json.load(open(sys.argv[1]))["unknown_ops"]; sys.exit(u != {"FancyOp": 1, "Scale": 1})' \
  "$TMP/mixed.json" || fail "unknown_ops of mixed.onnx: $(cat "$TMP/mixed.json")"
"$FRUGAL" graph show testdata/onnx/mixed.onnx >"$TMP/mixed.txt" || fail "mixed text"
grep -q "unknown ops (bytes-only cost)" "$TMP/mixed.txt" || fail "text lacks the unknown-op list"
grep -Eq "^ +FancyOp +1$" "$TMP/mixed.txt" || fail "text lacks 'FancyOp 1'"
echo "cli_graph_ops_test: all checks passed"
