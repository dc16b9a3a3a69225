#!/usr/bin/env python3
"""Where the end-to-end labels and the sum of per-op predictions differ.

For every label in ../shared/data/perf/e2e-labels (priced as
bench/e2e_labels.py says, with a model that has the label's GPU in
training, so what is left is composition, not transfer), splits the
predicted iteration into its terms:
  heavy     linear, bmm and conv launches (measured op types)
  light     softmax, layer norm and elementwise launches (measured op types)
  fallback  ops with no measurements (embedding, where, transpose, ...),
            priced by the roofline of their own FLOPs and bytes
  views     reshapes, slices and other views: priced 0, counted
and fits, per GPU and pooled, one explicit per-kernel term g (ms per
launched kernel, every non-view op) to the residual measured - predicted
by least squares on the relative error: g > 0 is a launch gap the op timings do not contain,
g < 0 is overhead the isolated op timings contain but a stream of kernels
overlaps. Reports each term's share of the prediction, the median signed
and absolute error before and after the term, and the term fitted on the
other GPUs' labels only (leave-one-GPU-out), which is what a GPU without
labels would get. Writes bench/results/e2e_composition.json.

Usage (from the repository root):
  bench/e2e_composition.py [BUILD_DIR] [--perf-model efficiency]
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys

import e2e_labels

HEAVY = {"linear", "bmm", "conv"}

ap = argparse.ArgumentParser()
ap.add_argument("build", nargs="?", default="build")
ap.add_argument("--perf-model", default="efficiency")
ap.add_argument("--out", default="bench/results/e2e_composition.json")
args = ap.parse_args()
frugal = os.path.join(args.build, "tools", "frugal", "frugal")


def terms(pred):
    t = {"heavy_ms": 0.0, "light_ms": 0.0, "fallback_ms": 0.0, "kernels": 0, "views": 0}
    for op in pred["ops"]:
        ms = op["time_ms"]
        measured_type = op["basis"].split(":")[0].split(" ")[0]
        if op["fallback"]:
            t["fallback_ms"] += ms
        elif measured_type == "view" or ms == 0:
            t["views"] += 1
            continue
        elif measured_type in HEAVY:
            t["heavy_ms"] += ms
        else:
            t["light_ms"] += ms
        t["kernels"] += 1
    return t


rows = []
for gpu, name, m, path in e2e_labels.labels():
    cmd = e2e_labels.predict_command(frugal, gpu, m, args.perf_model)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {r.stderr.strip()}")
    pred = json.loads(r.stdout)
    measured = json.load(open(path))["e2e_latency"]
    row = {"gpu": gpu, "label": name, "measured_ms": measured,
           "predicted_ms": pred["iteration_ms"], **terms(pred)}
    rows.append(row)
    print(f"{gpu:<28} {name:<36} measured {measured:9.2f} predicted {pred['iteration_ms']:9.2f}",
          file=sys.stderr, flush=True)


def fit_g(rs):
    """ms per kernel minimising the squared relative error of the labels."""
    den = sum((r["kernels"] / r["measured_ms"]) ** 2 for r in rs)
    num = sum((r["measured_ms"] - r["predicted_ms"]) * r["kernels"] / r["measured_ms"] ** 2 for r in rs)
    return num / den if den else 0.0


def errors(rs, g):
    signed = [(r["predicted_ms"] + g * r["kernels"] - r["measured_ms"]) / r["measured_ms"] for r in rs]
    return {"median_signed_pct": 100 * statistics.median(signed),
            "median_ape_pct": 100 * statistics.median(abs(x) for x in signed)}


gpus = sorted({r["gpu"] for r in rows})
per_gpu = {}
for g in gpus:
    rs = [r for r in rows if r["gpu"] == g]
    total = sum(r["predicted_ms"] for r in rs)
    own = fit_g(rs)
    others = fit_g([r for r in rows if r["gpu"] != g])
    per_gpu[g] = {
        "labels": len(rs),
        "share_pct": {k: 100 * sum(r[k] for r in rs) / total
                      for k in ("heavy_ms", "light_ms", "fallback_ms")},
        "kernels_per_label_median": statistics.median(r["kernels"] for r in rs),
        "views_per_label_median": statistics.median(r["views"] for r in rs),
        "g_ms_per_kernel": own,
        "g_other_gpus_ms_per_kernel": others,
        "before": errors(rs, 0.0),
        "with_own_g": errors(rs, own),
        "with_other_gpus_g": errors(rs, others),
    }
pooled_g = fit_g(rows)
summary = {"labels": len(rows), "g_ms_per_kernel": pooled_g,
           "before": errors(rows, 0.0), "with_pooled_g": errors(rows, pooled_g),
           "with_other_gpus_g": {
               "median_ape_pct": 100 * statistics.median(
                   abs(r["predicted_ms"] + per_gpu[r["gpu"]]["g_other_gpus_ms_per_kernel"] * r["kernels"]
                       - r["measured_ms"]) / r["measured_ms"] for r in rows)}}
os.makedirs(os.path.dirname(args.out), exist_ok=True)
with open(args.out, "w") as f:
    json.dump({"command": "bench/e2e_composition.py", "perf_model": args.perf_model,
               "machine": platform.machine(), "summary": summary, "per_gpu": per_gpu,
               "rows": rows}, f, indent=1)

print(f"{'gpu':<28}{'labels':>7}{'heavy%':>8}{'light%':>8}{'fallb%':>8}{'kernels':>9}{'views':>7}"
      f"{'bias%':>8}{'APE%':>7}{'g_us':>8}{'APE%+g':>8}{'g_oth_us':>10}{'APE%+g_oth':>11}")
for g, s in per_gpu.items():
    sh = s["share_pct"]
    print(f"{g:<28}{s['labels']:>7}{sh['heavy_ms']:>8.1f}{sh['light_ms']:>8.1f}{sh['fallback_ms']:>8.1f}"
          f"{s['kernels_per_label_median']:>9.0f}{s['views_per_label_median']:>7.0f}"
          f"{s['before']['median_signed_pct']:>+8.1f}{s['before']['median_ape_pct']:>7.1f}"
          f"{1000 * s['g_ms_per_kernel']:>+8.1f}{s['with_own_g']['median_ape_pct']:>8.1f}"
          f"{1000 * s['g_other_gpus_ms_per_kernel']:>+10.1f}{s['with_other_gpus_g']['median_ape_pct']:>11.1f}")
print(f"pooled: {summary['labels']} labels, median APE {summary['before']['median_ape_pct']:.1f}% "
      f"(bias {summary['before']['median_signed_pct']:+.1f}%); one g for all GPUs "
      f"{1000 * pooled_g:+.1f} us/kernel -> {summary['with_pooled_g']['median_ape_pct']:.1f}%; "
      f"g from the other GPUs -> {summary['with_other_gpus_g']['median_ape_pct']:.1f}%")
