#!/usr/bin/env bash
# CLI checks for `frugal predict`. Usage: cli_predict_test.sh FRUGAL_BINARY
source "$(dirname "$0")/cli_test_lib.sh" "$1"
M=models/hf/gpt2_med.json
P="--perf-model roofline"

"$FRUGAL" predict $M --gpu V100-PCIE-32GB --batch 1 --seq 256 $P --json >"$TMP/one.json" ||
  fail "predict on one GPU"
"$FRUGAL" predict $M --instance p3.16xlarge --batch 1 --seq 256 $P --json >"$TMP/eight.json" ||
  fail "predict on p3.16xlarge"
"$FRUGAL" predict $M --gpu V100-PCIE-32GB --batch 1 --seq 256 --infer $P --json >"$TMP/inf.json" ||
  fail "predict --infer"
python3 - "$TMP" <<'PY' || fail "predict --json fields"
import json, sys
d = sys.argv[1]
one, eight, inf = (json.load(open(f"{d}/{n}.json")) for n in ("one", "eight", "inf"))
for k in ("iteration_ms", "forward_ms", "backward_ms", "optimizer_ms", "comm_ms",
          "memory_bytes", "fits", "ops"):
    assert k in one, k
assert one["gpus"] == 1 and one["comm_ms"] == 0
assert abs(one["iteration_ms"] - (one["forward_ms"] + one["backward_ms"] + one["optimizer_ms"])) < 1e-6
assert eight["gpus"] == 8 and eight["gpu"].startswith("V100-SXM2"), eight["gpu"]
assert eight["comm_total_ms"] > 0
assert inf["backward_ms"] == 0 and inf["memory_bytes"] < one["memory_bytes"]
assert all(o["time_ms"] >= 0 for o in one["ops"])
PY
"$FRUGAL" predict $M --gpu T4 --batch 1 --seq 256 $P | grep -q "iteration" || fail "text output"

# --optimizer none: forward + backward only; --head picks the task head.
"$FRUGAL" predict $M --gpu V100-PCIE-32GB --batch 1 --seq 256 $P --optimizer none --json \
  >"$TMP/noopt.json" || fail "predict --optimizer none"
"$FRUGAL" predict models/hf/bert.json --gpu T4 --batch 2 --seq 128 --infer --head seq-cls $P \
  --json >"$TMP/cls.json" || fail "predict --head seq-cls"
"$FRUGAL" predict models/hf/bert.json --gpu T4 --batch 2 --seq 128 --infer $P --json \
  >"$TMP/lm.json" || fail "predict bert with its LM head"
python3 - "$TMP" <<'PY' || fail "--optimizer none / --head"
import json, sys
d = sys.argv[1]
one, noopt = (json.load(open(f"{d}/{n}.json")) for n in ("one", "noopt"))
assert noopt["optimizer_ms"] == 0 and one["optimizer_ms"] > 0
assert abs(noopt["iteration_ms"] - (one["iteration_ms"] - one["optimizer_ms"])) < 1e-6
assert noopt["memory_bytes"] < one["memory_bytes"]  # no Adam moments
cls, lm = (json.load(open(f"{d}/{n}.json")) for n in ("cls", "lm"))
assert cls["iteration_ms"] < lm["iteration_ms"]
assert any(o["name"] == "classifier" for o in cls["ops"])
PY
"$FRUGAL" predict $M --gpu V100-PCIE-32GB --batch 1 --seq 256 --infer --fused $P --json >"$TMP/fused.json" ||
  fail "predict --fused"
python3 - "$TMP" <<'PY' || fail "--fused"
import json, sys
d = sys.argv[1]
inf, fused = (json.load(open(f"{d}/{n}.json")) for n in ("inf", "fused"))
assert fused["iteration_ms"] < inf["iteration_ms"]
assert any(o["basis"].startswith("fused kernel of") for o in fused["ops"])
assert any(o["basis"].startswith("fused into") and o["time_ms"] == 0 for o in fused["ops"])
PY
expect_error 1 "unknown --head 'mlm'" predict $M --gpu T4 --batch 1 --head mlm $P
expect_error 1 "no sequence-classification head" predict models/hf/switchxl4.json --gpu T4 \
  --batch 1 --infer --head seq-cls $P
expect_error 1 "unknown optimizer" predict $M --gpu T4 --batch 1 --optimizer lion $P

expect_error 1 "" predict $M --gpu NoSuchGPU --batch 1 $P
expect_error 1 "" predict $M --instance no.such.instance --batch 1 $P
expect_error 1 "" predict $M --gpu T4 --batch 0 $P
expect_error 1 "" predict $M --gpu T4 --batch -3 $P
expect_error 2 "give --gpu NAME or --instance TYPE" predict $M --batch 1 $P
expect_error 1 "" predict $M --gpu T4 --batch 1 --perf-model /nonexistent.ubj
expect_error 1 "" predict $M --instance p3.2xlarge --gpus 4 --batch 1 $P
expect_error 1 "" predict missing.onnx --gpu T4 --batch 1 $P
echo "cli_predict_test: all checks passed"
