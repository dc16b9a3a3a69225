#!/usr/bin/env python3
"""End-to-end accuracy of `frugal predict` on GPUs the op-time model never saw.

For each GPU that has end-to-end labels (../shared/data/perf/e2e-labels/<GPU>),
trains the learned model on the op timings of the other GPUs only (a folder of
symlinks that leaves the GPU's CSVs out), then predicts that GPU's labels with
it, exactly as bench/predict_e2e.py does. Then calibrates that model with
`frugal perf calibrate` on CAL_ROWS evenly spaced measured rows per op type of
the held-out GPU (a short profile of a new card) and predicts again
("calibrated_*"). Writes bench/results/predict_e2e_unseen.json. Takes a few
minutes (one training per GPU).

Usage (from the repository root): bench/predict_e2e_unseen.py [BUILD_DIR]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

import e2e_labels

build = sys.argv[1] if len(sys.argv) > 1 else "build"
frugal = os.path.join(build, "tools", "frugal", "frugal")
shared = os.path.join("..", "shared", "data", "perf")
timings = os.path.join(shared, "neusight-op-timings")
CAL_ROWS = 30


def same_gpu(csv_name, label_gpu):
    # A100 labels are on the 40 GB PCIe card; its conv timings are on the 80 GB one.
    stem = csv_name[:-4]
    if stem == label_gpu:
        return True
    return "A100" in stem and "A100" in label_gpu


rows = []
with tempfile.TemporaryDirectory() as tmp:
    gpus = sorted({gpu for gpu, _, _, _ in e2e_labels.labels()})
    for gpu in gpus:
        data = os.path.join(tmp, gpu, "data")
        cal = os.path.join(tmp, gpu, "cal")
        for op in sorted(os.listdir(timings)):
            src = os.path.join(timings, op)
            if not os.path.isdir(src):
                continue
            os.makedirs(os.path.join(data, op))
            os.makedirs(os.path.join(cal, op))
            for f in os.listdir(src):
                if not f.endswith(".csv"):
                    continue
                if not same_gpu(f, gpu):
                    os.symlink(os.path.abspath(os.path.join(src, f)), os.path.join(data, op, f))
                    continue
                lines = open(os.path.join(src, f)).read().splitlines()
                step = max(1, (len(lines) - 1) // CAL_ROWS)
                with open(os.path.join(cal, op, f), "w") as out:
                    out.write("\n".join([lines[0]] + lines[1::step][:CAL_ROWS]) + "\n")
        model = os.path.join(tmp, gpu, "learned.ubj")
        r = subprocess.run([frugal, "perf", "train", "--model", "learned", "--data", data,
                            "--out", model], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"training without {gpu} failed: {r.stderr.strip()}")
        calibrated = os.path.join(tmp, gpu, "learned-cal.ubj")
        r = subprocess.run([frugal, "perf", "calibrate", "--perf-model", model, "--data", cal,
                            "--out", calibrated], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"calibrating on {gpu} failed: {r.stderr.strip()}")
        for label_gpu, f, m, path in e2e_labels.labels():
            if label_gpu != gpu:
                continue
            label = json.load(open(path))
            row = {"gpu": gpu, "label": f, "measured_ms": label["e2e_latency"]}
            for prefix, model_path in (("", model), ("calibrated_", calibrated)):
                cmd = e2e_labels.predict_command(frugal, gpu, m, model_path)
                p = subprocess.run(cmd, capture_output=True, text=True)
                if p.returncode != 0:
                    row[prefix + "error"] = p.stderr.strip()
                else:
                    pred = json.loads(p.stdout)["iteration_ms"]
                    row[prefix + "predicted_ms"] = pred
                    row[prefix + "ape"] = abs(pred - label["e2e_latency"]) / label["e2e_latency"]
            rows.append(row)
            print(f"{gpu:<24} {f:<34} {row.get('ape', float('nan')) * 100:6.1f}%  "
                  f"calibrated {row.get('calibrated_ape', float('nan')) * 100:6.1f}%", flush=True)

summary = {"calibration_rows_per_op": CAL_ROWS}
for prefix in ("", "calibrated_"):
    apes = [r[prefix + "ape"] for r in rows if prefix + "ape" in r]
    per_gpu = {}
    for r in rows:
        if prefix + "ape" in r:
            per_gpu.setdefault(r["gpu"], []).append(r[prefix + "ape"])
    summary.update({prefix + "labels": len(apes), prefix + "median_ape": statistics.median(apes),
                    prefix + "mean_ape": statistics.mean(apes),
                    prefix + "per_gpu_median_ape": {g: statistics.median(v) for g, v in per_gpu.items()}})
os.makedirs("bench/results", exist_ok=True)
with open("bench/results/predict_e2e_unseen.json", "w") as out:
    json.dump({"summary": summary, "rows": rows}, out, indent=1)
for prefix, what in (("", "unseen-GPU"), ("calibrated_", f"unseen-GPU + {CAL_ROWS} rows/op calibration")):
    print(f"{what} end-to-end: {summary[prefix + 'labels']} labels, "
          f"median APE {100 * summary[prefix + 'median_ape']:.1f}%, "
          f"mean {100 * summary[prefix + 'mean_ape']:.1f}%")
    for g, v in summary[prefix + "per_gpu_median_ape"].items():
        print(f"  {g:<24} median APE {100 * v:.1f}%")
