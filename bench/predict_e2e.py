#!/usr/bin/env python3
"""End-to-end accuracy of `frugal predict` against measured iteration times.

For every label in ../shared/data/perf/e2e-labels/<GPU>/<model>-<train|inf>-<seq>-<batch>.json,
runs `frugal predict models/hf/<model>.json --gpu GPU --batch B --seq S ...`
with each op-time model, priced as the label was measured (bench/e2e_labels.py:
training without the optimizer step, BERT inference with its classifier
head, torch.compile variants with --fused), and writes bench/results/predict_e2e.json with every prediction, its
absolute percentage error, and the median per model.

Usage (from the repository root): bench/predict_e2e.py [BUILD_DIR] [MODELS...]
"""
import json
import os
import re
import statistics
import subprocess
import sys

import e2e_labels

build = sys.argv[1] if len(sys.argv) > 1 else "build"
models = sys.argv[2:] or ["efficiency", "learned", "roofline", "ceer"]
frugal = os.path.join(build, "tools", "frugal", "frugal")

rows = []
for gpu, f, m, path in e2e_labels.labels():
    label = json.load(open(path))
    for perf in models:
        r = subprocess.run(e2e_labels.predict_command(frugal, gpu, m, perf),
                           capture_output=True, text=True)
        row = {"gpu": gpu, "label": f, "perf_model": perf,
               "measured_ms": label["e2e_latency"]}
        if r.returncode != 0:
            row["error"] = r.stderr.strip()
        else:
            p = json.loads(r.stdout)
            row["predicted_ms"] = p["iteration_ms"]
            row["ape"] = abs(p["iteration_ms"] - label["e2e_latency"]) / label["e2e_latency"]
            row["fallback_ops"] = p["fallback_ops"]
        rows.append(row)

summary = {}
for perf in models:
    apes = [r["ape"] for r in rows if r["perf_model"] == perf and "ape" in r]
    fused = [r["ape"] for r in rows
             if r["perf_model"] == perf and "ape" in r and r["label"].endswith("-fusion.json")]
    multi = [r["ape"] for r in rows if r["perf_model"] == perf and "ape" in r and
             re.search(r"-(dp|tp|pp)\d", r["label"])]
    summary[perf] = {
        "labels": len(apes),
        "errors": sum(1 for r in rows if r["perf_model"] == perf and "error" in r),
        "median_ape": statistics.median(apes) if apes else None,
        "mean_ape": statistics.mean(apes) if apes else None,
        "fusion_labels": len(fused),
        "fusion_median_ape": statistics.median(fused) if fused else None,
        # -dpN / -tpN / -ppN_M labels priced by --gpus / --tp / --pp.
        "multi_gpu_labels": len(multi),
        "multi_gpu_median_ape": statistics.median(multi) if multi else None,
    }
os.makedirs("bench/results", exist_ok=True)
with open("bench/results/predict_e2e.json", "w") as out:
    json.dump({"summary": summary, "rows": rows}, out, indent=1)
print(f"{'model':<10} {'labels':>6} {'errors':>6} {'median APE':>11} {'mean APE':>9}")
for perf, s in summary.items():
    med = f"{100 * s['median_ape']:.1f}%" if s["median_ape"] is not None else "-"
    mean = f"{100 * s['mean_ape']:.1f}%" if s["mean_ape"] is not None else "-"
    print(f"{perf:<10} {s['labels']:>6} {s['errors']:>6} {med:>11} {mean:>9}")
