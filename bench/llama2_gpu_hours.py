#!/usr/bin/env python3
"""Published LLM training costs priced by `frugal advise --tokens`.

Source: Touvron et al. 2023, "Llama 2: Open Foundation and Fine-Tuned Chat
Models", Table 2 (CO2 emissions during pretraining): Llama 2 7B 184,320 and
70B 1,720,320 GPU-hours on A100-80GB (400 W). Recipe (section 2.2): 2 T
tokens, sequence 4,096, global batch 4 M tokens (1,024 sequences), AdamW,
bf16 mixed precision. Cluster: the catalog's closest instance, p4de.24xlarge
(8 x A100-SXM4-80GB, NVSwitch, 400 Gbit/s EFA); the paper's clusters used
200 Gbit/s InfiniBand or RoCE.

frugal searches TP x PP x DP, ZeRO, checkpointing and the micro-batch count
that the global batch implies, for 1..64 instances, at a fixed per-GPU
micro-batch (1, and 2 as a second row). Reported per model: the cheapest
plan's GPU-hours (the recommendation without a deadline), every instance
count's best plan, and the MFU frugal predicts beside the MFU the published
GPU-hours imply (same FLOP count: frugal's own model FLOPs, attention
included, so the two MFUs are comparable).

Writes bench/results/llama2_gpu_hours.json.
Usage (from the repository root): bench/llama2_gpu_hours.py [BUILD_DIR]
"""
import json
import os
import subprocess
import sys

build = sys.argv[1] if len(sys.argv) > 1 else "build"
frugal = os.path.join(build, "tools", "frugal", "frugal")

MODELS = [("llama2_7b", 184320), ("llama2_70b", 1720320)]
MICRO_BATCHES = [1, 2]

out = {"source": "Touvron et al. 2023, Llama 2, Table 2 (A100-80GB GPU-hours)",
       "instance": "p4de.24xlarge", "tokens": 2e12, "seq": 4096, "global_batch": 1024,
       "precision": "amp-bf16", "rows": []}
for name, published in MODELS:
    for micro in MICRO_BATCHES:
        cmd = [frugal, "advise", f"models/hf/{name}.json", "--batch", str(micro), "--seq", "4096",
               "--tokens", "2e12", "--global-batch", "1024", "--precision", "amp-bf16",
               "--instance", "p4de.24xlarge", "--max-instances", "64", "--json"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"{' '.join(cmd)}: {r.stderr.strip()}")
        a = json.loads(r.stdout)
        rec = a["recommended"]
        by_count = sorted(a["configs"], key=lambda c: c["gpus"])
        row = {
            "model": name, "micro_batch": micro, "published_gpu_hours": published,
            "frugal_gpu_hours": rec["gpu_hours"],
            "ratio": rec["gpu_hours"] / published,
            "frugal_mfu": rec["mfu"],
            "published_mfu": rec["mfu"] * rec["gpu_hours"] / published,
            "gpus": rec["gpus"], "plan": rec["plan"],
            "by_gpu_count": [{"gpus": c["gpus"], "gpu_hours": c["gpu_hours"],
                              "ratio": c["gpu_hours"] / published, "mfu": c["mfu"],
                              "hours": c["hours"], "plan": c["plan"]} for c in by_count],
        }
        out["rows"].append(row)
        span = [c["gpu_hours"] / published for c in by_count]
        print(f"{name} micro-batch {micro}: {rec['gpu_hours']:,.0f} GPU-hours vs {published:,} "
              f"({100 * (row['ratio'] - 1):+.1f}%), MFU {100 * rec['mfu']:.1f}% (published implies "
              f"{100 * row['published_mfu']:.1f}%), {rec['gpus']} GPUs, {rec['plan']}; over "
              f"{by_count[0]['gpus']}..{by_count[-1]['gpus']} GPUs {min(span):.2f}..{max(span):.2f}x")
os.makedirs("bench/results", exist_ok=True)
with open("bench/results/llama2_gpu_hours.json", "w") as f:
    json.dump(out, f, indent=2)
    f.write("\n")
