#!/usr/bin/env bash
# CLI checks for `frugal predict --infer --prompt P --generate G` (LLM
# generation). Usage: cli_predict_generate_test.sh FRUGAL_BINARY
source "$(dirname "$0")/cli_test_lib.sh" "$1"
M=models/hf/gpt2_med.json  # 24 layers, width 1024, 1024 positions
P="--perf-model roofline"
G="--gpu A100-SXM4-80GB"

"$FRUGAL" predict $M --infer --prompt 100 --generate 50 --batch 4 $G $P --json >"$TMP/gen.json" ||
  fail "predict --prompt --json"
"$FRUGAL" predict $M --infer --prompt 100 --generate 50 --batch 4 $G $P --json >"$TMP/again.json" ||
  fail "predict --prompt --json again"
cmp -s "$TMP/gen.json" "$TMP/again.json" || fail "generation output differs between runs"
"$FRUGAL" predict $M --infer --prompt 100 --generate 50 --batch 8 $G $P --json >"$TMP/b8.json" ||
  fail "predict --prompt batch 8"
"$FRUGAL" predict models/hf/llama3_8b.json --infer --prompt 64 --generate 16 --batch 2 $G $P \
  --json >"$TMP/gqa.json" 2>"$TMP/gqa.err" || fail "predict --prompt llama3 (GQA)"
grep -qF "torch_dtype bfloat16" "$TMP/gqa.err" || fail "no note on the precision from torch_dtype"
"$FRUGAL" predict models/hf/llama3_8b.json --infer --prompt 64 --generate 16 --batch 2 $G $P \
  --precision fp32 --json >"$TMP/gqa32.json" || fail "predict --prompt --precision fp32"
python3 - "$TMP" <<'PY' || fail "generation --json fields"
import json, sys
d = sys.argv[1]
g, b8, gqa, gqa32 = (json.load(open(f"{d}/{n}.json")) for n in ("gen", "b8", "gqa", "gqa32"))
for k in ("prefill_ms", "ttft_ms", "decode_first_ms", "decode_last_ms", "decode_mean_ms",
          "decode_total_ms", "total_ms", "tokens_per_s", "decode_tokens_per_s", "kv_cache_bytes",
          "kv_cache_bytes_per_token", "weights_bytes", "memory_bytes", "gpu_memory_bytes", "fits",
          "max_batch", "decode_steps", "decode_samples", "prompt_len", "generate_len", "batch"):
    assert k in g, k
assert g["mode"] == "generation" and g["decode_steps"] == 49
assert g["ttft_ms"] == g["prefill_ms"] > 0
assert abs(g["total_ms"] - g["prefill_ms"] - g["decode_total_ms"]) < 1e-9
assert g["decode_last_ms"] >= g["decode_first_ms"] > 0
assert abs(g["tokens_per_s"] - 4 * 50 / g["total_ms"] * 1000) < 1e-6
# 2 (K, V) x 24 layers x batch 4 x 150 tokens x 1024 x 4 bytes
assert g["kv_cache_bytes"] == 2 * 24 * 4 * 150 * 1024 * 4, g["kv_cache_bytes"]
assert b8["kv_cache_bytes"] == 2 * g["kv_cache_bytes"]
assert b8["weights_bytes"] == g["weights_bytes"] and b8["memory_bytes"] > g["memory_bytes"]
assert g["fits"] and g["max_batch"] > 8 and g["max_batch"] == b8["max_batch"]
assert g["precision"] == "fp32"  # gpt2_med has no torch_dtype
# Llama-3-8B: 32 layers, 8 KV heads of 128 (GQA); bf16 from its torch_dtype.
assert gqa["precision"] == "bf16" and gqa["notes"], gqa.get("notes")
assert gqa["kv_cache_bytes_per_token"] == 2 * 32 * 8 * 128 * 2, gqa["kv_cache_bytes_per_token"]
assert gqa32["precision"] == "fp32"
assert gqa32["kv_cache_bytes_per_token"] == 2 * gqa["kv_cache_bytes_per_token"]
assert gqa32["weights_bytes"] == 2 * gqa["weights_bytes"]
assert gqa32["decode_mean_ms"] > gqa["decode_mean_ms"]
PY
"$FRUGAL" predict $M --infer --prompt 100 --generate 50 --batch 4 $G $P >"$TMP/text" ||
  fail "text output"
for w in "prefill (TTFT)" "decode per token" "tokens/s" "KV cache" "largest batch" "fits"; do
  grep -qF "$w" "$TMP/text" || fail "text output lacks '$w'"
done
"$FRUGAL" predict $M --infer --prompt 10 --generate 4 --batch 1 --instance p4d.24xlarge $P \
  >/dev/null || fail "generation on one GPU of an instance"

# Usage errors: exit 2.
expect_error 2 "--infer" predict $M --prompt 100 --generate 5 --batch 1 $G $P
expect_error 2 "--prompt" predict $M --infer --generate 5 --batch 1 $G $P
expect_error 2 "--generate" predict $M --infer --prompt 5 --batch 1 $G $P
expect_error 2 "--seq" predict $M --infer --prompt 5 --generate 5 --seq 64 --batch 1 $G $P
expect_error 2 "--batch" predict $M --infer --prompt 5 --generate 5 $G $P
expect_error 2 "--gpu" predict $M --infer --prompt 5 --generate 5 --batch 1 $P
expect_error 2 "" predict $M --infer --prompt many --generate 5 --batch 1 $G $P
# Values and models that cannot be priced: exit 1.
expect_error 1 "--prompt" predict $M --infer --prompt 0 --generate 5 --batch 1 $G $P
expect_error 1 "--generate" predict $M --infer --prompt 5 --generate -3 --batch 1 $G $P
expect_error 1 "--generate" predict $M --infer --prompt 5 --generate 1000000000 --batch 1 $G $P
expect_error 1 "n_positions (1024)" predict $M --infer --prompt 1000 --generate 100 --batch 1 $G $P
expect_error 1 "--prompt 1000 + --generate 100" \
  predict $M --infer --prompt 1000 --generate 100 --batch 1 $G $P
expect_error 1 "--prompt 2000" predict $M --infer --prompt 2000 --generate 1 --batch 1 $G $P
expect_error 1 "encoder-only" \
  predict models/hf/bert.json --infer --prompt 16 --generate 4 --batch 1 $G $P
expect_error 1 "encoder-decoder" \
  predict models/hf/t5_small.json --infer --prompt 16 --generate 4 --batch 1 $G $P
expect_error 1 "--prompt applies to HF decoder configs" \
  predict models/resnet50.onnx --infer --prompt 16 --generate 4 --batch 1 $G $P
expect_error 1 "--gpus 2" predict $M --infer --prompt 5 --generate 5 --batch 1 $G --gpus 2 $P
expect_error 1 "--pp applies to training plans" \
  predict $M --infer --prompt 5 --generate 5 --batch 1 $G --pp 2 $P
# Tensor-parallel generation: Llama-2-70B in fp16 fits only split 8 ways.
L70=models/hf/llama2_70b.json
"$FRUGAL" predict $L70 --infer --prompt 128 --generate 8 --batch 1 $G --precision fp16 $P \
  --json >"$TMP/t1.json" || fail "70B on one GPU"
"$FRUGAL" predict $L70 --infer --prompt 128 --generate 8 --batch 1 --instance p4de.24xlarge \
  --precision fp16 --tp 8 $P --json >"$TMP/t8.json" || fail "70B --tp 8"
python3 - "$TMP" <<'PY' || fail "tensor-parallel generation"
import json, sys
one = json.load(open(f"{sys.argv[1]}/t1.json")); eight = json.load(open(f"{sys.argv[1]}/t8.json"))
assert not one["fits"] and eight["fits"], (one["memory_bytes"], eight["memory_bytes"])
assert eight["gpus"] == 8 and eight["tp"] == 8
# Weights and the KV cache (8 K/V heads over 8 GPUs) are split 8 ways.
assert abs(eight["weights_bytes"] * 8 / one["weights_bytes"] - 1) < 0.02
assert eight["kv_cache_bytes"] * 8 == one["kv_cache_bytes"]
assert eight["decode_mean_ms"] < one["decode_mean_ms"]
PY
expect_error 1 "--top lists a step's slowest ops" \
  predict $M --infer --prompt 5 --generate 5 --batch 1 $G --top 3 $P
expect_error 1 "--tp 3" predict $L70 --infer --prompt 5 --generate 5 --batch 1 $G --tp 3 $P
expect_error 1 "--tp 16: tensor parallelism needs its GPUs in one instance; p4de.24xlarge has 8" \
  predict $L70 --infer --prompt 5 --generate 5 --batch 1 --instance p4de.24xlarge --tp 16 $P
expect_error 1 "--head seq-cls" \
  predict $M --infer --prompt 5 --generate 5 --batch 1 $G --head seq-cls $P
cat >"$TMP/cls.json" <<'JSON'
{"architectures": ["LlamaForSequenceClassification"], "model_type": "llama", "hidden_size": 64,
 "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100,
 "max_position_embeddings": 128}
JSON
expect_error 1 "no LM head" predict "$TMP/cls.json" --infer --prompt 5 --generate 5 --batch 1 $G $P
"$FRUGAL" predict "$TMP/cls.json" --infer --prompt 5 --generate 5 --batch 1 $G --head lm $P \
  >/dev/null || fail "--head lm on a classifier config"
"$FRUGAL" predict $M --infer --prompt 5 --generate 5 --batch 1 $G --fused $P >/dev/null ||
  fail "generation with --fused"
expect_error 1 "--precision bf16" \
  predict $M --infer --prompt 5 --generate 5 --batch 1 --gpu V100-SXM2-16GB --precision bf16 $P
expect_error 2 "--precision" \
  predict $M --infer --prompt 5 --generate 5 --batch 1 $G --precision fp8 $P
expect_error 1 "--optimizer" \
  predict $M --infer --prompt 5 --generate 5 --batch 1 $G --optimizer adam $P
expect_error 1 "" predict missing.json --infer --prompt 5 --generate 5 --batch 1 $G $P
echo "cli_predict_generate_test: ok"
