#!/usr/bin/env bash
# Pesto at LLM scale: GPT-3 2.7B and LLaMA-2-7B training steps (batch 1,
# sequence 2048, module granularity, the HF configs' own precision) on 8
# A100-80GB GPUs, a 120 s limit for the whole run. Writes
# bench/results/place_scale.json: per model the step's op count, colocation
# groups, lower bound, every method's makespan and seconds, and pesto's note
# (coarse size, MIP, refinement).
# Usage: bench/place_scale.sh [BUILD_DIR] [TIME_LIMIT_S]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
LIMIT="${2:-120}"
FRUGAL="$BUILD/tools/frugal/frugal"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p bench/results
for m in gpt3_27 llama2_7b; do
  echo "place_scale: $m" >&2
  "$FRUGAL" place "models/hf/$m.json" --train --batch 1 --seq 2048 --gpus 8 \
    --gpu A100-SXM4-80GB --time-limit "$LIMIT" --json > "$TMP/$m.json"
done
python3 - "$TMP" "$LIMIT" <<'PY'
import json, sys
tmp, limit = sys.argv[1], float(sys.argv[2])
out = {"command": f"bench/place_scale.sh build {limit:g}", "gpus": 8, "gpu": "A100-SXM4-80GB",
       "time_limit_s": limit, "models": {}}
for m in ["gpt3_27", "llama2_7b"]:
    d = json.load(open(f"{tmp}/{m}.json"))
    ms = {x["name"]: x for x in d["methods"]}
    base = min(x["makespan_ms"] for n, x in ms.items() if n != "pesto" and x["makespan_ms"])
    out["models"][m] = {
        "ops": d["ops"], "colocation_groups": d["colocation_groups"],
        "lower_bound_ms": d["lower_bound_ms"],
        "makespan_ms": {n: x["makespan_ms"] for n, x in ms.items()},
        "seconds": {n: x["seconds"] for n, x in ms.items()},
        "pesto_note": ms["pesto"].get("note", ""),
        "pesto_over_best_baseline": ms["pesto"]["makespan_ms"] / base,
        "pesto_over_lower_bound": ms["pesto"]["makespan_ms"] / d["lower_bound_ms"],
    }
    r = out["models"][m]
    print(f"{m}: {r['ops']} ops, {r['colocation_groups']} groups, pesto "
          f"{r['makespan_ms']['pesto']:.1f} ms in {r['seconds']['pesto']:.1f} s, "
          f"{r['pesto_over_best_baseline']:.3f} x best baseline, "
          f"{r['pesto_over_lower_bound']:.3f} x LB")
json.dump(out, open("bench/results/place_scale.json", "w"), indent=1)
PY
