#!/bin/bash
# CLI checks for parallel plans: predict --tp/--pp/--dp/--microbatches/
# --grad-accum/--zero/--fsdp/--checkpointing and advise's plan search
# (--tokens, --global-batch, a --precision list). Usage: cli_plan_test.sh FRUGAL_BINARY
source "$(dirname "$0")/cli_test_lib.sh" "$1"
L=models/hf/llama2_7b.json
P="--perf-model roofline --precision amp-bf16"
G="--gpu A100-SXM4-80GB --batch 4 --seq 512"

# Bad plans: one line naming the flag and the reason.
expect_error 1 "--tp 3: 3 GPUs do not divide" predict $L $G $P --tp 3
# A degree so high that the block layers would stay whole is an error, not a "TP" step that splits nothing.
expect_error 1 "--tp 64: h.0.attn.c_attn has 3072 output features: at 64 GPUs each would hold fewer than 64" \
  predict models/hf/gpt2_med.json --gpu A100-SXM4-80GB --batch 8 --seq 512 $P --tp 64
expect_error 1 "--pp 40: 40 pipeline stages need at least 40 layers; 'llama2_7b' has 32" predict $L $G $P --pp 40
# Checkpointing that saves nothing is an error, not a plan priced as if it had.
expect_error 1 "full checkpointing saves no memory on 'vgg16'" \
  predict models/vgg16.onnx --gpu A100-SXM4-80GB --batch 64 --perf-model roofline --checkpointing full
expect_error 1 "selective checkpointing recomputes attention scores; 'resnet50' has none" \
  predict models/resnet50.onnx --gpu A100-SXM4-80GB --batch 64 --perf-model roofline --checkpointing selective
expect_error 1 "--microbatches 3 does not divide --batch 4" predict $L $G $P --microbatches 3
expect_error 1 "--zero 1 shards state across data-parallel replicas" predict $L $G $P --zero 1
expect_error 1 "--fsdp shards state across data-parallel replicas" predict $L $G $P --fsdp
expect_error 2 "--zero excludes --fsdp" predict $L $G $P --fsdp --zero 2 --dp 2
expect_error 1 "--checkpointing applies to training" predict $L $G $P --infer --checkpointing full
expect_error 1 "--grad-accum applies to training" predict $L $G $P --infer --grad-accum 2
expect_error 1 "--checkpointing: unknown value 'some'" predict $L $G $P --checkpointing some
expect_error 1 "--gpus 8 is not --tp 2 x --pp 1 x --dp 2 = 4" predict $L $G $P --gpus 8 --tp 2 --dp 2
expect_error 1 "--tp 2 x --pp 2 = 4 does not divide the 6 GPUs" predict $L $G $P --gpus 6 --tp 2 --pp 2
expect_error 1 "tensor parallelism over 16 GPUs needs them in one instance of 8 GPUs" \
  predict $L --instance p4d.24xlarge --instances 2 --batch 4 --seq 512 $P --tp 16
expect_error 1 "splits linear layers; 'resnet50' has none" predict models/resnet50.onnx --gpu A100-SXM4-80GB --batch 8 $P --tp 2
expect_error 1 "--tp 2 splits a forward graph; this file holds a training graph" \
  predict models/graphs/gnmt_training.json --gpu V100-SXM2-16GB --perf-model roofline --tp 2
expect_error 1 "--tp" predict $L $G $P --tp 0
expect_error 2 "--tp" predict $L $G $P --tp two

# A TP x PP x DP plan: fields, memory split, MFU.
"$FRUGAL" predict $L --instance p4d.24xlarge --instances 2 --batch 8 --seq 512 $P --tp 2 --pp 2 \
  --microbatches 4 --zero 1 --checkpointing selective --json >"$TMP/p.json" 2>/dev/null ||
  fail "predict plan"
"$FRUGAL" predict $L --instance p4d.24xlarge --instances 2 --batch 8 --seq 512 $P --tp 2 --pp 2 \
  --microbatches 4 --json >"$TMP/p0.json" 2>/dev/null || fail "predict plan, no ZeRO"
python3 - "$TMP" <<'PY' || fail "predict plan fields"
import json, sys
p = json.load(open(f"{sys.argv[1]}/p.json"))
p0 = json.load(open(f"{sys.argv[1]}/p0.json"))
pl = p["plan"]
assert (pl["tp"], pl["pp"], pl["dp"], pl["microbatches"], pl["zero"]) == (2, 2, 4, 4, 1), pl
assert pl["checkpointing"] == "selective"
assert pl["description"] == "TP 2 x PP 2 x DP 4, ZeRO-1, selective checkpointing, 4 micro-batches"
assert p["gpus"] == 16 and len(p["stages"]) == 2
assert p["tp_comm_ms"] > 0 and p["bubble_ms"] > 0 and p["recompute_ms"] > 0
m = p["memory"]
assert m["total"] == m["params"] + m["grads"] + m["optimizer"] + m["activations"] + m["workspace"]
assert p["memory_bytes"] == m["total"]
# ZeRO-1 shards the optimizer state over the 4 replicas; selective
# checkpointing drops attention scores.
assert abs(m["optimizer"] * 4 - p0["memory"]["optimizer"]) <= 4, (m, p0["memory"])
assert m["activations"] < p0["memory"]["activations"]
assert 0 < p["mfu"] < 1 and p["tokens_per_s"] > 0
assert p["samples_per_s"] * p["iteration_ms"] / 1e3 == p["plan"]["dp"] * 8 or \
  abs(p["samples_per_s"] * p["iteration_ms"] / 1e3 - 32) < 1e-6
PY

# The default plan is plain data parallelism: fields add up as before.
"$FRUGAL" predict $L $G $P --gpus 2 --json >"$TMP/d.json" 2>/dev/null || fail "predict dp"
python3 - "$TMP/d.json" <<'PY' || fail "predict default plan"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["plan"]["description"] == "TP 1 x PP 1 x DP 2, no checkpointing"
s = p["forward_ms"] + p["backward_ms"] + p["optimizer_ms"] + p["comm_ms"]
assert abs(s - p["iteration_ms"]) < 1e-6 * p["iteration_ms"], (s, p["iteration_ms"])
PY

# Gradient accumulation: n micro-steps, one all-reduce.
"$FRUGAL" predict $L $G $P --gpus 2 --grad-accum 4 --json >"$TMP/g.json" 2>/dev/null || fail "grad-accum"
python3 - "$TMP" <<'PY' || fail "grad-accum"
import json, sys
d = json.load(open(f"{sys.argv[1]}/d.json")); g = json.load(open(f"{sys.argv[1]}/g.json"))
assert abs(g["forward_ms"] - 4 * d["forward_ms"]) < 1e-6 * g["forward_ms"]
assert abs(g["comm_total_ms"] - d["comm_total_ms"]) < 1e-9 + 1e-6 * d["comm_total_ms"]
assert g["samples_per_s"] > d["samples_per_s"] * 0.99
PY

# The case Pesto's place and predict --pp both express: one inference
# micro-batch through two contiguous stages (place's `expert` split).
M=models/hf/gpt2_med.json
Q="--gpu A100-SXM4-80GB --batch 4 --seq 512 --infer --precision fp32 --perf-model roofline --json"
"$FRUGAL" predict $M $Q --pp 2 >"$TMP/pp.json" 2>/dev/null || fail "predict --pp 2 --infer"
"$FRUGAL" place $M $Q --gpus 2 --method expert >"$TMP/place.json" 2>/dev/null || fail "place expert"
python3 - "$TMP" <<'PY' || fail "predict --pp and place disagree"
import json, sys
pp = json.load(open(f"{sys.argv[1]}/pp.json"))["iteration_ms"]
pl = json.load(open(f"{sys.argv[1]}/place.json"))["methods"][0]["makespan_ms"]
assert abs(pp / pl - 1) < 0.05, (pp, pl)
PY

# advise: the plan search.
A="--perf-model roofline --providers aws --max-instances 2"
expect_error 2 "give --samples N or --tokens N" advise $L --batch 1 --seq 512 --samples 10 --tokens 10 $A
expect_error 1 "--tokens needs a sequence model" advise models/resnet50.onnx --batch 8 --tokens 1e9 $A
expect_error 1 "--global-batch 6 is not a multiple of --batch 4" advise $L --batch 4 --seq 512 --tokens 1e9 --global-batch 6 $A
expect_error 2 "unknown --precision 'fp7'" advise $L --batch 4 --seq 512 --tokens 1e9 --precision amp-bf16,fp7 $A
"$FRUGAL" advise $L --batch 1 --seq 512 --tokens 1e9 --global-batch 64 --precision amp-bf16,fp32 $A \
  --json >"$TMP/a.json" 2>/dev/null || fail "advise plans"
python3 - "$TMP/a.json" <<'PY' || fail "advise plan fields"
import json, sys
a = json.load(open(sys.argv[1]))
assert a["precisions"] == ["amp-bf16", "fp32"] and a["plans_priced"] > len(a["configs"]) > 0
assert {c["precision"] for c in a["configs"]} <= {"amp-bf16", "fp32"}
r = a["recommended"]
assert r and r["plan"].startswith("TP ") and r["fits"] and 0 < r["mfu"] < 1
assert abs(r["gpu_hours"] - r["hours"] * r["gpus"]) < 1e-6 * r["gpu_hours"]
# bf16 is skipped where the GPU has no bf16 tensor cores, fp32 is not.
assert any(c["precision"] == "fp32" and c["gpu"].startswith("V100") for c in a["configs"])
assert not any(c["precision"] == "amp-bf16" and c["gpu"].startswith("V100") for c in a["configs"])
PY
echo ok
