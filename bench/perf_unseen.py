#!/usr/bin/env python3
"""Accuracy of the op-time models on GPUs they never saw, with no retraining
at scoring time.

For each of the five GPUs with op timings (P4, P100, T4, V100, A100; conv's
A100 is the 80 GB part and is held out with the 40 GB one), trains every
model given on the op timings of the other GPUs only -- both folders,
../shared/data/perf/neusight-op-timings (random shapes) and
neusight-op-timings-test (transformer-layer shapes), so no row of the
held-out GPU is in training -- then
  * scores it with `frugal perf score` on the held-out GPU's rows of
    neusight-op-timings-test (op level), and
  * predicts the held-out GPU's end-to-end labels
    (../shared/data/perf/e2e-labels, priced as bench/e2e_labels.py says).
Each model is also trained once on every GPU and predicts all e2e labels
("seen"): what is left there is the composition of op times into an
iteration (launch gaps, framework overhead), not the op model's transfer.
A model name NAME@FOLDER trains on that folder only: learned@neusight-op-timings
is the learned model as shipped before the transformer-shape folder was used.
Merges its results into bench/results/perf_eval.json under "unseen_gpu"
(the rest of that file is `perf eval`'s, bench/perf_eval.sh) and prints, per
model and op type, each held-out GPU's median APE and signed error; end to
end the median and p90 over all labels and each GPU's median.

Usage (from the repository root):
  bench/perf_unseen.py [BUILD_DIR] [--models efficiency,learned] [--gpus P4,T4] [--seed S]
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

import e2e_labels

ap = argparse.ArgumentParser()
ap.add_argument("build", nargs="?", default="build")
ap.add_argument("--models", default="efficiency,learned,learned@neusight-op-timings")
ap.add_argument("--gpus", default="")
ap.add_argument("--out", default="bench/results/perf_eval.json")
ap.add_argument("--seed", type=int, default=1, help="training seed (perf train --seed)")
args = ap.parse_args()
frugal = os.path.join(args.build, "tools", "frugal", "frugal")
shared = os.path.join("..", "shared", "data", "perf")
folders = ["neusight-op-timings", "neusight-op-timings-test"]
test_folder = os.path.join(shared, "neusight-op-timings-test")
models = args.models.split(",")
HELD_OUT = {  # held-out GPU -> CSV stems (op timings) and e2e label folder
    "P4": (["Tesla_P4"], None),
    "P100-PCIE-16GB": (["Tesla_P100-PCIE-16GB"], None),
    "T4": (["Tesla_T4"], "Tesla_T4"),
    "V100-PCIE-32GB": (["Tesla_V100-PCIE-32GB"], "Tesla_V100-PCIE-32GB"),
    "A100-PCIE-40GB": (["NVIDIA_A100-PCIE-40GB", "NVIDIA_A100_80GB_PCIe"],
                       "NVIDIA_A100-PCIE-40GB"),
}
gpus = args.gpus.split(",") if args.gpus else list(HELD_OUT)


def q(values, p):
    v = sorted(values)
    at = p * (len(v) - 1)
    lo = int(at)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (at - lo) * (v[hi] - v[lo])


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {r.stderr.strip()}")
    return r.stdout


op_rows, e2e_rows = [], []
pooled = {}  # model -> op -> APE % of every held-out row
with tempfile.TemporaryDirectory() as tmp:
    for gpu in gpus:
        stems, label_dir = HELD_OUT[gpu]
        data = os.path.join(tmp, gpu, "train")
        test = os.path.join(tmp, gpu, "test")
        for folder in folders:
            root = os.path.join(shared, folder)
            for op in sorted(os.listdir(root)):
                if not os.path.isdir(os.path.join(root, op)):
                    continue
                for f in sorted(os.listdir(os.path.join(root, op))):
                    if not f.endswith(".csv"):
                        continue
                    src = os.path.abspath(os.path.join(root, op, f))
                    held = f[:-4] in stems
                    if held and folder != "neusight-op-timings-test":
                        continue
                    dst = os.path.join(test if held else data, folder, op)
                    os.makedirs(dst, exist_ok=True)
                    os.symlink(src, os.path.join(dst, f))
        for model in models:
            kind, _, only = model.partition("@")
            path = os.path.join(tmp, gpu, model.replace("@", "-") + ".ubj")
            run([frugal, "perf", "train", "--model", kind, "--data",
                 os.path.join(data, only) if only else data, "--out", path, "--seed", str(args.seed)])
            preds = os.path.join(tmp, gpu, model.replace("@", "-") + ".csv")
            score = json.loads(run([frugal, "perf", "score", "--data", test,
                                    "--perf-model", path, "--json", "--out", preds]))
            with open(preds) as f:
                for r in csv.DictReader(f):
                    if r["ape_pct"]:
                        pooled.setdefault(model, {}).setdefault(r["OPName"], []).append(
                            float(r["ape_pct"]))
            for r in score["rows"]:
                if r["gpu"] != "all":
                    op_rows.append(dict(r, model=model, held_out=gpu))
            for u in score["uncovered"]:
                op_rows.append(dict(u, model=model, held_out=gpu, uncovered=True))
            if not label_dir:
                continue
            for lgpu, f, m, lpath in e2e_labels.labels():
                if lgpu != label_dir:
                    continue
                measured = json.load(open(lpath))["e2e_latency"]
                pred = json.loads(run(e2e_labels.predict_command(frugal, lgpu, m, path)))
                ms = pred["iteration_ms"]
                e2e_rows.append({"model": model, "gpu": gpu, "label": f, "measured_ms": measured,
                                 "predicted_ms": ms, "ape": abs(ms - measured) / measured,
                                 "signed": (ms - measured) / measured})
            print(f"{gpu:<16} {model:<10} done", file=sys.stderr, flush=True)

# Seen: trained on every GPU, end to end only.
seen_rows = []
with tempfile.TemporaryDirectory() as tmp:
    for model in models:
        kind, _, only = model.partition("@")
        path = os.path.join(tmp, model.replace("@", "-") + ".ubj")
        run([frugal, "perf", "train", "--model", kind, "--data",
             os.path.join(shared, only) if only else shared, "--out", path, "--seed", str(args.seed)])
        for lgpu, f, m, lpath in e2e_labels.labels():
            measured = json.load(open(lpath))["e2e_latency"]
            ms = json.loads(run(e2e_labels.predict_command(frugal, lgpu, m, path)))["iteration_ms"]
            seen_rows.append({"model": model, "gpu": lgpu, "label": f, "measured_ms": measured,
                              "predicted_ms": ms, "signed": (ms - measured) / measured})
        print(f"seen             {model:<10} done", file=sys.stderr, flush=True)

# Per held-out GPU and op type (exact medians from `perf score`).
summary = {}
for model in models:
    s = {"ops": {}, "e2e": {},
         "ops_pooled": {op: {"n": len(v), "median_ape_pct": statistics.median(v),
                             "p90_ape_pct": q(v, 0.9)}
                        for op, v in pooled.get(model, {}).items()}}
    for r in op_rows:
        if r["model"] != model or r.get("uncovered") or r["op"] == "all":
            continue
        s["ops"].setdefault(r["op"], {})[r["held_out"]] = {
            "n": r["n"], "median_ape_pct": r["median_ape_pct"],
            "p90_ape_pct": r["p90_ape_pct"], "median_bias_pct": r["median_bias_pct"]}
    e = [r for r in e2e_rows if r["model"] == model]
    if e:
        apes = [r["ape"] for r in e]
        s["e2e"] = {"labels": len(e), "median_ape_pct": 100 * statistics.median(apes),
                    "p90_ape_pct": 100 * q(apes, 0.9),
                    "per_gpu_median_ape_pct": {
                        g: 100 * statistics.median([r["ape"] for r in e if r["gpu"] == g])
                        for g in sorted({r["gpu"] for r in e})},
                    "per_gpu_median_bias_pct": {
                        g: 100 * statistics.median([r["signed"] for r in e if r["gpu"] == g])
                        for g in sorted({r["gpu"] for r in e})}}
    seen = [r for r in seen_rows if r["model"] == model]
    s["seen_e2e"] = {
        "median_ape_pct": 100 * statistics.median([abs(r["signed"]) for r in seen]),
        "p90_ape_pct": 100 * q([abs(r["signed"]) for r in seen], 0.9),
        "per_gpu_median_bias_pct": {
            g: 100 * statistics.median([r["signed"] for r in seen if r["gpu"] == g])
            for g in sorted({r["gpu"] for r in seen})}}
    summary[model] = s
os.makedirs(os.path.dirname(args.out), exist_ok=True)
doc = {}
if os.path.exists(args.out):
    try:
        doc = json.load(open(args.out))
    except ValueError:
        doc = {}
    if not isinstance(doc, dict):
        doc = {}
doc["unseen_gpu"] = {"held_out": gpus, "models": models, "seed": args.seed, "summary": summary,
                     "op_rows": op_rows, "e2e_rows": e2e_rows, "seen_e2e_rows": seen_rows}
with open(args.out, "w") as out:
    json.dump(doc, out, indent=1)
for model, s in summary.items():
    print(f"== {model}: op level, held-out GPU's neusight-op-timings-test rows "
          "(median APE % per held-out GPU)")
    print(f"{'op':<8}" + "".join(f"{g[:14]:>16}" for g in gpus) + f"{'pooled':>9}{'p90':>7}")
    for op, by in s["ops"].items():
        pool = s["ops_pooled"].get(op)
        print(f"{op:<8}" + "".join(
            f"{by[g]['median_ape_pct']:>9.1f} ({by[g]['median_bias_pct']:+5.0f})"
            if g in by else f"{'-':>16}" for g in gpus) +
              (f"{pool['median_ape_pct']:>9.1f}{pool['p90_ape_pct']:>7.1f}" if pool else ""))
    if s["e2e"]:
        e = s["e2e"]
        print(f"   e2e: {e['labels']} labels, median {e['median_ape_pct']:.1f}%, "
              f"p90 {e['p90_ape_pct']:.1f}%; per GPU " + ", ".join(
                  f"{g} {v:.1f}% ({e['per_gpu_median_bias_pct'][g]:+.1f})"
                  for g, v in e["per_gpu_median_ape_pct"].items()))
    se = s["seen_e2e"]
    print(f"   e2e on GPUs in training (composition only): median {se['median_ape_pct']:.1f}%, "
          f"p90 {se['p90_ape_pct']:.1f}%; "
          "bias " + ", ".join(f"{g} {v:+.1f}%" for g, v in se["per_gpu_median_bias_pct"].items()))
