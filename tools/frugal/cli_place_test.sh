#!/usr/bin/env bash
# CLI checks for `frugal place`. Usage: cli_place_test.sh FRUGAL_BINARY
# Runs from the repository root. Exits 1 on the first failed check.
source "$(dirname "$0")/cli_test_lib.sh" "$1"
T=testdata/place


py() { python3 -c "$@" || fail "check failed: $1"; }

# The method table.
"$FRUGAL" place --method list >"$TMP/list" || fail "place --method list"
for m in single expert heft m-topo m-etf m-sct metis pipeline pesto; do
  grep -q "^  $m " "$TMP/list" || fail "--method list lacks $m"
done

# All methods on a diamond: JSON fields, pesto no worse than any baseline,
# and the known optimum (one branch moves, the join follows it: 6.5 ms).
"$FRUGAL" place $T/diamond.json --gpus 2 --time-limit 5 --json \
  --out "$TMP/placement.json" --trace "$TMP/trace.json" >"$TMP/d.json" || fail "place diamond"
py '
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("methods", "lower_bound_ms", "best"): assert k in d, k
names = [m["name"] for m in d["methods"]]
assert names == ["single", "expert", "heft", "m-topo", "m-etf", "m-sct", "metis", "pipeline", "pesto"], names
for m in d["methods"]:
    for k in ("name", "makespan_ms", "seconds", "status"): assert k in m, (m, k)
ms = {m["name"]: m["makespan_ms"] for m in d["methods"]}
assert abs(ms["pesto"] - 6.5) < 1e-6, ms
assert all(ms["pesto"] <= v + 1e-9 for v in ms.values() if v is not None), ms
assert d["methods"][-1]["status"] == "optimal", d["methods"][-1]
assert abs(d["lower_bound_ms"] - 6.5) < 1e-4, d["lower_bound_ms"]  # the MIP bound
lb = d["lower_bounds"]
for k in ("critical_path_ms", "work_per_gpu_ms", "comm_ms", "memory_path_ms"): assert k in lb, (k, lb)
assert lb["memory_path_ms"] <= 6.5 + 1e-9, lb
assert lb["critical_path_ms"] - 1e-9 <= lb["comm_ms"] <= 6.5 + 1e-9, lb
' "$TMP/d.json"
py '
import json, sys
p = json.load(open(sys.argv[1]))
assert p["format"] == "frugal-placement" and p["devices"] == 2
assert [n["id"] for n in p["nodes"]] == [10, 11, 12, 13]
assert {n["name"] for n in p["nodes"]} == {"input", "left", "right", "join"}
assert sorted(sum((d["ops"] for d in p["order"]), [])) == [0, 1, 2, 3]
t = json.load(open(sys.argv[2]))
ops = [e for e in t["traceEvents"] if e.get("cat") == "op"]
xfer = [e for e in t["traceEvents"] if e.get("cat") == "transfer"]
assert len(ops) == 4 and len(xfer) == 2, (len(ops), len(xfer))
' "$TMP/placement.json" "$TMP/trace.json"

# Human table.
"$FRUGAL" place $T/layers.json --gpus 2 --time-limit 2 >"$TMP/table" || fail "place layers"
grep -q "lower bound" "$TMP/table" || fail "table lacks the lower bound"
grep -q "pesto" "$TMP/table" || fail "table lacks pesto"
grep -q "<- best" "$TMP/table" || fail "table lacks the best marker"

# One method, pcie, custom topology, memory override.
"$FRUGAL" place $T/layers.json --gpus 2 --method heft --topology pcie --json >"$TMP/h.json" \
  || fail "heft pcie"
py 'import json,sys; d=json.load(open(sys.argv[1])); assert [m["name"] for m in d["methods"]] == ["heft"]; assert d["topology"] == "pcie"' "$TMP/h.json"
"$FRUGAL" place $T/layers.json --gpus 2 --topology $T/ring2.topology.json --method m-etf --json \
  >"$TMP/r.json" || fail "custom topology"
py 'import json,sys; d=json.load(open(sys.argv[1])); assert d["topology"] == "ring2.topology.json"' "$TMP/r.json"
# Forced split: 2400 bytes of ops, 1300 per GPU: single is infeasible, others fit.
"$FRUGAL" place $T/layers.json --gpus 2 --mem-gb 0.0000012107 --time-limit 2 --json \
  >"$TMP/m.json" || fail "memory-constrained"
py '
import json, sys
d = json.load(open(sys.argv[1]))
ms = {m["name"]: m for m in d["methods"]}
assert ms["single"]["status"] == "infeasible" and ms["single"]["makespan_ms"] is None
assert ms["pesto"]["makespan_ms"] is not None
' "$TMP/m.json"
# A time limit is an outcome: status time_limit, exit 0.
"$FRUGAL" place $T/layers.json --gpus 2 --method pesto --time-limit 0.05 --json >"$TMP/t.json" \
  || fail "tiny time limit"
py 'import json,sys; d=json.load(open(sys.argv[1])); assert d["methods"][0]["status"] in ("time_limit", "optimal"), d' "$TMP/t.json"
# K = 1: everything on one GPU.
"$FRUGAL" place $T/diamond.json --gpus 1 --json >"$TMP/k1.json" || fail "K=1"
py 'import json,sys; d=json.load(open(sys.argv[1])); assert all(m["makespan_ms"] == 10 for m in d["methods"]), d' "$TMP/k1.json"
# ONNX with times from the roofline on a catalog GPU.
"$FRUGAL" place models/resnet50.onnx --gpus 2 --gpu V100-PCIE-16GB --method m-etf --json \
  >"$TMP/o.json" || fail "onnx"
py 'import json,sys; d=json.load(open(sys.argv[1])); assert d["methods"][0]["makespan_ms"] > 0' "$TMP/o.json"

# Bad input: one line, exit 1.
expect_error 1 "--gpus: must be >= 1, got 0" place $T/diamond.json --gpus 0
expect_error 2 "--gpus K is required" place $T/diamond.json
expect_error 1 "cycle" place $T/cycle.json --gpus 2
expect_error 1 "disconnected" place $T/disconnected.json --gpus 2
expect_error 1 "negative fpgaLatency" place $T/negative_time.json --gpus 2
expect_error 1 "memory too small for any placement" place $T/diamond.json --gpus 2 --mem-gb 0.0000002
expect_error 1 "no link carries transfers from device 1 to device 0" \
  place $T/diamond.json --gpus 2 --topology $T/bad.topology.json
expect_error 1 "topology has 2 devices but --gpus is 4" \
  place $T/diamond.json --gpus 4 --topology $T/ring2.topology.json
expect_error 1 "unknown method 'magic'" place $T/diamond.json --gpus 2 --method magic
expect_error 1 "pass --gpu NAME" place models/resnet50.onnx --gpus 2
expect_error 1 "nonexistent.json" place $T/nonexistent.json --gpus 2
expect_error 1 "--time-limit: must be > 0, got 0" place $T/diamond.json --gpus 2 --time-limit 0
expect_error 1 "--mem-gb: must be > 0, got -1" place $T/diamond.json --gpus 2 --mem-gb -1
expect_error 2 "GRAPH is required" place --gpus 2

# ONNX and HF models directly, with the memory predict reports for the
# same graph, batch and mode (inference: the liveness peak).
B=models/hf/bert.json
P="--perf-model roofline"
for mode in infer train; do
  "$FRUGAL" place $B --batch 2 --seq 32 --$mode --gpus 2 --gpu T4 $P --method m-etf --json \
    >"$TMP/pl_$mode.json" || fail "place bert --$mode"
  "$FRUGAL" predict $B --batch 2 --seq 32 --$mode --gpu T4 $P --json >"$TMP/pr_$mode.json" ||
    fail "predict bert --$mode"
done
"$FRUGAL" place $B --batch 2 --seq 32 --gpus 2 --gpu T4 $P --method m-etf --json >"$TMP/pl_def.json" ||
  fail "place bert (default mode)"
"$FRUGAL" place models/resnet50.onnx --batch 2 --train --gpus 2 --gpu T4 $P --method m-etf --json \
  >"$TMP/pl_onnx.json" || fail "place onnx --batch --train"
python3 - "$TMP" <<'PY' || fail "place memory = predict memory"
import json, sys
d = sys.argv[1]
for mode, name in (("infer", "inference"), ("train", "training")):
    pl = json.load(open(f"{d}/pl_{mode}.json")); pr = json.load(open(f"{d}/pr_{mode}.json"))
    assert pl["mode"] == pr["mode"] == name, (pl["mode"], pr["mode"])
    assert pl["memory_bytes"] == pr["memory_bytes"], (mode, pl["memory_bytes"], pr["memory_bytes"])
    assert pl["batch"] == 2
inf, tr = (json.load(open(f"{d}/pl_{m}.json")) for m in ("infer", "train"))
assert inf["memory_bytes"] < tr["memory_bytes"]
assert json.load(open(f"{d}/pl_def.json"))["memory_bytes"] == inf["memory_bytes"]  # forward graphs: inference
o = json.load(open(f"{d}/pl_onnx.json"))
assert o["mode"] == "training" and o["batch"] == 2 and o["ops"] > 300, (o["mode"], o["ops"])
# T4's 16 GiB less the 1 GiB predict's fit check reserves.
assert inf["device_mem_bytes"] == 15 * 2**30, inf["device_mem_bytes"]
PY
"$FRUGAL" place $B --batch 2 --seq 32 --gpus 2 --gpu T4 $P --method m-etf | grep -q "inference step, batch 2:" ||
  fail "place text lacks the step memory"

# Profiled graphs: --gpu / --perf-model / --batch / --infer cannot apply.
G=models/graphs/gnmt_training.json
expect_error 1 "--gpu cannot apply" place $G --gpus 2 --gpu V100-SXM2-16GB
expect_error 1 "--perf-model needs --gpu" place $G --gpus 2 --perf-model roofline
expect_error 1 "--batch 4 cannot rescale it" place $G --gpus 2 --batch 4
expect_error 1 "--infer cannot be priced from it" place $G --gpus 2 --infer
expect_error 1 "--seq applies to HF configs" place models/resnet50.onnx --gpus 2 --gpu T4 --seq 4

# Nonsensical numbers.
expect_error 1 "--threads: must be >= 1, got 0" place $T/diamond.json --gpus 2 --threads 0
expect_error 1 "--time-limit: must be a finite number, got nan" place $T/diamond.json --gpus 2 --time-limit nan
expect_error 1 "--mem-gb: must be a finite number, got inf" place $T/diamond.json --gpus 2 --mem-gb inf
expect_error 1 "--gpus: must be <= 1024" place $T/diamond.json --gpus 100000
echo "cli_place_test: ok"
