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

# Fixed-size graphs: a frugal JSON keeps the batch it was built with; a
# --batch / --seq it cannot honour is refused, never ignored.
B=models/hf/bert.json
"$FRUGAL" graph convert $B "$TMP/b2.json" --batch 2 --seq 32 >/dev/null 2>&1 || fail "convert bert"
"$FRUGAL" graph convert $B "$TMP/b2t.json" --batch 2 --seq 32 --train --optimizer sgd >/dev/null 2>&1 ||
  fail "convert bert --train"
"$FRUGAL" predict "$TMP/b2.json" --gpu T4 $P --json >"$TMP/j_train.json" || fail "predict frugal JSON"
"$FRUGAL" predict "$TMP/b2.json" --gpu T4 --batch 2 --infer $P --json >"$TMP/j_inf.json" ||
  fail "predict frugal JSON --batch as built"
"$FRUGAL" predict "$TMP/b2t.json" --gpu T4 --infer $P --json >"$TMP/jt_inf.json" ||
  fail "predict --infer on a training graph"
"$FRUGAL" predict "$TMP/b2t.json" --gpu T4 $P --json >"$TMP/jt_train.json" || fail "predict training JSON"
"$FRUGAL" predict $B --gpu T4 --batch 2 --seq 32 --infer $P --json >"$TMP/h_inf.json" || fail "bert infer"
"$FRUGAL" predict $B --gpu T4 --batch 2 --seq 32 --optimizer sgd $P --json >"$TMP/h_sgd.json" ||
  fail "bert sgd"
python3 - "$TMP" <<'PY' || fail "frugal JSON re-derivation"
import json, sys
d = sys.argv[1]
j = {n: json.load(open(f"{d}/{n}.json")) for n in ("j_train", "j_inf", "jt_inf", "jt_train", "h_inf", "h_sgd")}
assert j["j_train"]["batch_per_gpu"] == 2 and j["j_train"]["mode"] == "training", j["j_train"]["mode"]
assert j["j_train"]["backward_ms"] > 0 and j["j_inf"]["backward_ms"] == 0
# The forward part of a training graph prices like the forward graph.
assert j["jt_inf"]["mode"] == "inference"
assert j["jt_inf"]["memory_bytes"] == j["h_inf"]["memory_bytes"] == j["j_inf"]["memory_bytes"]
assert abs(j["jt_inf"]["iteration_ms"] - j["h_inf"]["iteration_ms"]) < 1e-6 * j["h_inf"]["iteration_ms"]
# A training graph keeps the optimizer it was built with (sgd: no state).
assert j["jt_train"]["memory_bytes"] == j["h_sgd"]["memory_bytes"]
assert j["j_train"]["memory_bytes"] > j["jt_train"]["memory_bytes"]  # adam's moments
PY
expect_error 1 "built for batch 2; --batch 8 cannot rescale" predict "$TMP/b2.json" --gpu T4 --batch 8 $P
expect_error 1 "--seq applies to HF configs" predict "$TMP/b2.json" --gpu T4 --seq 64 $P
expect_error 1 "built with optimizer sgd; --optimizer adam cannot change it" \
  predict "$TMP/b2t.json" --gpu T4 --optimizer adam $P
expect_error 1 "--optimizer applies to training" predict $B --gpu T4 --batch 1 --infer --optimizer sgd $P
expect_error 1 "--dim applies to ONNX models" predict $B --gpu T4 --batch 1 --dim seq=8 $P
expect_error 1 "--seq applies to HF configs; set an ONNX model's symbolic dims with --dim" \
  predict models/resnet50.onnx --gpu T4 --batch 1 --seq 8 $P
expect_error 1 "--head applies to HF configs" predict models/resnet50.onnx --gpu T4 --batch 1 --head lm $P
expect_error 1 "--dim 'seq': expected NAME=VALUE" predict models/resnet50.onnx --gpu T4 --batch 1 --dim seq $P
expect_error 1 "--dim h: value must be an integer" predict models/resnet50.onnx --gpu T4 --batch 1 --dim h=0 $P
expect_error 1 "--dim h is given twice" predict models/resnet50.onnx --gpu T4 --batch 1 --dim h=4 --dim h=5 $P
expect_error 2 "--batch is required for ONNX and HF models" predict models/resnet50.onnx --gpu T4 $P

# Profiled graphs: times measured on one GPU; no rescaling, no re-pricing.
G=models/graphs/gnmt_training.json
"$FRUGAL" predict $G --gpu V100-SXM2-16GB --json >"$TMP/gnmt.json" || fail "predict profiled"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["op_times"] == "measured" and d["batch_per_gpu"] is None, d["op_times"]' "$TMP/gnmt.json" || fail "profiled fields"
"$FRUGAL" predict $G --gpu V100-SXM2-16GB | grep -q "op times measured by the profile" || fail "profiled text"
expect_error 1 "measured on a GPU with 16.0 GiB" predict $G --gpu A100-SXM4-80GB
expect_error 1 "--batch 64 cannot rescale it" predict $G --gpu V100-SXM2-16GB --batch 64
expect_error 1 "--infer cannot be priced from it" predict $G --gpu V100-SXM2-16GB --infer
expect_error 1 "--fused cannot apply" predict $G --gpu V100-SXM2-16GB --fused

# Nonsensical numbers: one line, exit 1.
expect_error 1 "--seq: must be >= 1, got -1" predict $M --gpu T4 --batch 1 --seq -1 $P
expect_error 1 "--batch: must be a finite number, got nan" predict $M --gpu T4 --batch nan $P
expect_error 1 "--batch: must be <= 16777216" predict $M --gpu T4 --batch 1e12 $P
expect_error 1 "--gpus: must be >= 1, got 0" predict $M --gpu T4 --batch 1 --gpus 0 $P
expect_error 1 "--instances: must be >= 1, got 0" predict $M --instance p3.2xlarge --batch 1 --instances 0 $P
expect_error 1 "--top: must be >= 0" predict $M --gpu T4 --batch 1 --top -1 $P
expect_error 2 "--instances needs --instance" predict $M --gpu T4 --batch 1 --instances 2 $P
expect_error 2 "--batch" predict $M --gpu T4 --batch abc $P
echo "cli_predict_test: all checks passed"
