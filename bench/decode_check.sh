#!/usr/bin/env bash
# LLM generation check; writes bench/results/decode_check.json.
#  1. Physics: Llama-2-7B (fp32) decode at batch 1 on A100-SXM4-80GB must
#     take at least weights / memory bandwidth per token; the ratio to that
#     bound is recorded for each op-time model.
#  2. A public table: NVIDIA NeMo Framework's Llama-2 inference performance
#     (docs.nvidia.com/nemo-framework/user-guide/latest/performance/llama.html,
#     "Chatbot conversation": 128 input, 20 output tokens, A100 80GB SXM4,
#     TP 1, average end-to-end latency in ms at batch 1, 2, 4, 8). Those are
#     TensorRT-LLM runs in 16-bit precision (A100 has no FP8), priced here in
#     fp16 (like with like) and, for reference, fp32.
# Usage: bench/decode_check.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
FRUGAL="$BUILD/tools/frugal/frugal"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
mkdir -p bench/results
M=models/hf/llama2_7b.json
GPU=A100-SXM4-80GB
for model in roofline efficiency; do
  for prec in fp32 fp16; do
    "$FRUGAL" predict $M --infer --prompt 128 --generate 128 --batch 1 --gpu $GPU \
      --perf-model $model --precision $prec --json >"$TMP/phys_${model}_$prec.json"
    for b in 1 2 4 8; do
      "$FRUGAL" predict $M --infer --prompt 128 --generate 20 --batch $b --gpu $GPU \
        --perf-model $model --precision $prec --json >"$TMP/nemo_${model}_${prec}_$b.json"
    done
  done
done
"$FRUGAL" catalog list --json >"$TMP/catalog.json"
python3 - "$TMP" <<'PY'
import json, sys
tmp = sys.argv[1]
published_ms = {1: 234.0, 2: 249.6, 4: 272.6, 8: 329.5}  # NeMo table, A100 TP 1
out = {"command": "bench/decode_check.sh", "model": "models/hf/llama2_7b.json",
       "gpu": "A100-SXM4-80GB", "physics": {}, "nemo_chatbot_128_20": {
           "source": "https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/llama.html",
           "published_precision": "16-bit (TensorRT-LLM on A100)", "rows": []}}
cat = json.load(open(f"{tmp}/catalog.json"))
bw = next(g for g in cat["gpus"] if g["name"] == "A100-SXM4-80GB")["mem_bw_gbps"]
out["mem_bw_gbps"] = bw
models, precs = ("roofline", "efficiency"), ("fp32", "fp16")
for model in models:
    for prec in precs:
        p = json.load(open(f"{tmp}/phys_{model}_{prec}.json"))
        bound_ms = p["weights_bytes"] / (bw * 1e9) * 1e3
        out["physics"][f"{model}_{prec}"] = {
            "decode_mean_ms": p["decode_mean_ms"], "weights_bytes": p["weights_bytes"],
            "weights_over_bandwidth_ms": bound_ms,
            "ratio_to_bound": p["decode_mean_ms"] / bound_ms,
            "at_least_bound": p["decode_mean_ms"] >= bound_ms,
            "within_2x": p["decode_mean_ms"] <= 2 * bound_ms}
for b, ms in published_ms.items():
    row = {"batch": b, "published_ms": ms}
    for model in models:
        for prec in precs:
            p = json.load(open(f"{tmp}/nemo_{model}_{prec}_{b}.json"))
            row[f"{model}_{prec}_ms"] = p["total_ms"]
            row[f"{model}_{prec}_ratio"] = p["total_ms"] / ms
    out["nemo_chatbot_128_20"]["rows"].append(row)
json.dump(out, open("bench/results/decode_check.json", "w"), indent=2, sort_keys=True)
print(json.dumps(out, indent=2, sort_keys=True))
PY
