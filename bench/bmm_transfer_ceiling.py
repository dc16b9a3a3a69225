#!/usr/bin/env python3
"""How well one GPU's measured bmm times carry to another GPU's: an oracle
bound for leave-one-GPU-out bmm accuracy.

For every pair (held-out GPU H, source GPU S) of
../shared/data/perf/neusight-op-timings-test/bmm, on the shapes both were
timed on: predict H's time of each shape as S's time times the *true*
median ratio H / S (so the level is exact and only S's shape profile is
tested), and report the median APE. Then, per held-out GPU, the best source
(chosen with the held-out rows: an oracle) and the pooled median APE over
all held-out rows with each GPU's best source. A second oracle per pair
takes one true ratio per (cuBLAS kernel the held-out GPU ran, power-of-two
bin of the source's time): what knowing the held-out GPU's kernel choice and
a duration effect (clock throttling) would add. No model is involved.
Writes bench/results/bmm_transfer_ceiling.json.

Usage (from the repository root): python3 bench/bmm_transfer_ceiling.py [--out FILE]
"""
import argparse
import csv
import glob
import json
import math
import os
import statistics
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--data", default=os.path.join("..", "shared", "data", "perf",
                                               "neusight-op-timings-test", "bmm"))
ap.add_argument("--out", default="bench/results/bmm_transfer_ceiling.json")
args = ap.parse_args()

def fail(msg):
    print("bmm_transfer_ceiling: " + msg, file=sys.stderr)
    sys.exit(1)


times, kernels = {}, {}  # GPU -> {(B, M, N, K): ms}, {(B, M, N, K): kernel name}
for path in sorted(glob.glob(os.path.join(args.data, "*.csv"))):
    gpu = os.path.basename(path)[:-len(".csv")]
    times[gpu], kernels[gpu] = {}, {}
    try:
        with open(path, newline="") as f:
            for line, r in enumerate(csv.DictReader(f), start=2):
                try:
                    shape = (int(r["B"]), int(r["M"]), int(r["N"]), int(r["K"]))
                    ms = float(r["Latency"])
                    kernel = r["Kernel Name"]
                except (KeyError, TypeError, ValueError) as e:
                    fail("%s:%d: needs integer B, M, N, K, a Latency and a Kernel Name (%s)"
                         % (path, line, e))
                if not math.isfinite(ms) or ms <= 0:
                    fail("%s:%d: Latency must be a positive number, got %r" % (path, line, r["Latency"]))
                times[gpu][shape], kernels[gpu][shape] = ms, kernel
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        fail("%s: %s" % (path, e))
if len(times) < 2:
    fail("%s: fewer than two GPUs' bmm timings" % args.data)


def errors(held, src, group=lambda k: None):
    """APEs of `held`'s shapes priced from `src`'s at the true median ratio
    of each group of shapes (by default one group: one ratio)."""
    groups = {}
    for k in times[held]:
        if k in times[src]:
            groups.setdefault(group(k), []).append(times[held][k] / times[src][k])
    out = []
    for ratio in groups.values():
        scale = statistics.median(ratio)
        out += [abs(r / scale - 1) for r in ratio]
    return out


pairs, best, pooled = [], {}, []
for held in times:
    by_src = {}
    for src in times:
        if src == held:
            continue
        e = errors(held, src)
        if not e:
            continue
        by_src[src] = e
        by_kernel = errors(held, src, lambda k: (kernels[held][k],
                                                 math.floor(math.log2(times[src][k]))))
        pairs.append({"held_out": held, "source": src, "shapes": len(e),
                      "median_ape_pct": 100 * statistics.median(e),
                      "median_ape_pct_by_kernel_and_duration": 100 * statistics.median(by_kernel)})
    # Best source among those covering most of the held-out GPU's shapes.
    cands = [p for p in pairs if p["held_out"] == held and p["shapes"] >= len(times[held]) / 2]
    if cands:
        b = min(cands, key=lambda p: p["median_ape_pct"])
        best[held] = b["source"]
        pooled += by_src[b["source"]]
for p in pairs:
    print("%-28s <- %-28s %5d shapes  median APE %5.1f %%, by kernel and duration %5.1f %%" % (
        p["held_out"], p["source"], p["shapes"], p["median_ape_pct"],
        p["median_ape_pct_by_kernel_and_duration"]))
result = {"data": args.data, "pairs": pairs, "best_source": best,
          "pooled_best_source_rows": len(pooled),
          "pooled_best_source_median_ape_pct": 100 * statistics.median(pooled) if pooled else None}
print("pooled over %d held-out rows, each GPU from its best source: median APE %.1f %%" % (
    len(pooled), result["pooled_best_source_median_ape_pct"]))
with open(args.out, "w") as f:
    json.dump(result, f, indent=1)
