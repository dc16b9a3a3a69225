#!/usr/bin/env python3
"""End-to-end accuracy of `frugal predict` on GPUs the op-time model never saw.

For each GPU that has end-to-end labels (../shared/data/perf/e2e-labels/<GPU>),
trains the learned model on the op timings of the other GPUs only (a folder of
symlinks that leaves the GPU's CSVs out), then predicts that GPU's labels with
it, exactly as bench/predict_e2e.py does. Writes
bench/results/predict_e2e_unseen.json. Takes a few minutes (one training per
GPU).

Usage (from the repository root): bench/predict_e2e_unseen.py [BUILD_DIR]
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

build = sys.argv[1] if len(sys.argv) > 1 else "build"
frugal = os.path.join(build, "tools", "frugal", "frugal")
shared = os.path.join("..", "shared", "data", "perf")
timings = os.path.join(shared, "neusight-op-timings")
labels_dir = os.path.join(shared, "e2e-labels")
name_re = re.compile(r"^(?P<model>.+)-(?P<mode>train|inf)-(?P<seq>\d+)-(?P<batch>\d+)\.json$")


def same_gpu(csv_name, label_gpu):
    # A100 labels are on the 40 GB PCIe card; its conv timings are on the 80 GB one.
    stem = csv_name[:-4]
    if stem == label_gpu:
        return True
    return "A100" in stem and "A100" in label_gpu


rows = []
with tempfile.TemporaryDirectory() as tmp:
    for gpu in sorted(os.listdir(labels_dir)):
        gdir = os.path.join(labels_dir, gpu)
        if not os.path.isdir(gdir):
            continue
        data = os.path.join(tmp, gpu, "data")
        for op in sorted(os.listdir(timings)):
            src = os.path.join(timings, op)
            if not os.path.isdir(src):
                continue
            os.makedirs(os.path.join(data, op))
            for f in os.listdir(src):
                if f.endswith(".csv") and not same_gpu(f, gpu):
                    os.symlink(os.path.abspath(os.path.join(src, f)), os.path.join(data, op, f))
        model = os.path.join(tmp, gpu, "learned.ubj")
        r = subprocess.run([frugal, "perf", "train", "--model", "learned", "--data", data,
                            "--out", model], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"training without {gpu} failed: {r.stderr.strip()}")
        for f in sorted(os.listdir(gdir)):
            m = name_re.match(f)
            if not m:
                continue
            label = json.load(open(os.path.join(gdir, f)))
            cmd = [frugal, "predict", f"models/hf/{m['model']}.json", "--gpu", gpu,
                   "--batch", m["batch"], "--seq", m["seq"],
                   "--train" if m["mode"] == "train" else "--infer",
                   "--perf-model", model, "--json"]
            p = subprocess.run(cmd, capture_output=True, text=True)
            row = {"gpu": gpu, "label": f, "measured_ms": label["e2e_latency"]}
            if p.returncode != 0:
                row["error"] = p.stderr.strip()
            else:
                pred = json.loads(p.stdout)["iteration_ms"]
                row["predicted_ms"] = pred
                row["ape"] = abs(pred - label["e2e_latency"]) / label["e2e_latency"]
            rows.append(row)
            print(f"{gpu:<24} {f:<34} {row.get('ape', float('nan')) * 100:6.1f}%", flush=True)

apes = [r["ape"] for r in rows if "ape" in r]
per_gpu = {}
for r in rows:
    if "ape" in r:
        per_gpu.setdefault(r["gpu"], []).append(r["ape"])
summary = {"labels": len(apes), "median_ape": statistics.median(apes),
           "mean_ape": statistics.mean(apes),
           "per_gpu_median_ape": {g: statistics.median(v) for g, v in per_gpu.items()}}
os.makedirs("bench/results", exist_ok=True)
with open("bench/results/predict_e2e_unseen.json", "w") as out:
    json.dump({"summary": summary, "rows": rows}, out, indent=1)
print(f"unseen-GPU end-to-end: {len(apes)} labels, median APE {100 * summary['median_ape']:.1f}%, "
      f"mean {100 * summary['mean_ape']:.1f}%")
for g, v in summary["per_gpu_median_ape"].items():
    print(f"  {g:<24} median APE {100 * v:.1f}%")
