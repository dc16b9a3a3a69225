#!/usr/bin/python3
"""Do Ceer's step predictions explain Gavel's co-location slowdowns?

The interference issue names "Ceer's per-op prediction of each job's
compute-bound vs memory-bound time share" as a feature. Gavel's seven
workloads are bundled as ONNX exports (models/share/gavel, written by
tools/export_gavel_models.py); this script prices one training step of each of
Gavel's 26 single-GPU configurations on the catalog GPU behind each Gavel key
(`frugal predict --train`) and derives, per (GPU, job):

  busy           predicted GPU time per step / measured step time (1 / solo
                 throughput): the share of its step a job keeps the GPU busy
  compute_share  the share of predicted GPU time in compute ops (conv, matmul,
                 bmm, conv_transpose, rnn, einsum)

and reports, per GPU, how they relate to each measured pair's normalised
throughput (co-located / solo): Pearson correlation of the label with each
feature and with a time-slicing prediction 1 / (1 + busy_self * busy_other),
and that prediction's mean absolute error beside the label's spread. A3C's step
is 20 single-frame forwards and backwards (the exported graph is one frame).

    /usr/bin/python3 bench/share_interference_ceer.py [BUILD_DIR] [--out FILE]

Writes bench/results/share_interference_ceer.json. Needs ../shared/data (the
Gavel file); no GPU.
"""

import argparse
import json
import os
import re
import subprocess
import sys

import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
GAVEL = os.path.normpath(os.path.join(ROOT, "..", "shared", "data", "share", "gavel",
                                      "simulation_throughputs.json"))
# family -> (graph, optimizer as Gavel's scripts use it, graph runs per step)
FAMILIES = {
    "ResNet-18": ("resnet18_cifar", "momentum", 1),
    "ResNet-50": ("resnet50", "momentum", 1),
    "Transformer": ("transformer", "adam", 1),
    "LM": ("lm", "sgd", 1),
    "Recommendation": ("recommendation", "adam", 1),
    "A3C": ("a3c", "adam", 20),
    "CycleGAN": ("cyclegan", "adam", 1),
}
GPUS = {"k80": "K80", "p100": "P100-PCIE-16GB", "v100": "V100-SXM2-16GB"}
COMPUTE_KINDS = {"conv", "matmul", "bmm", "conv_transpose", "rnn", "einsum"}
KEY = re.compile(r"^\('(.*)', (\d+)\)$")


def fail(msg):
    print("share_interference_ceer.py: error: " + msg, file=sys.stderr)
    sys.exit(1)


def price(frugal, family, batch, gpu):
    graph, optimizer, repeat = FAMILIES[family]
    path = os.path.join(ROOT, "models", "share", "gavel", graph + ".onnx")
    cmd = [frugal, "predict", path, "--gpu", gpu, "--train", "--batch", str(batch),
           "--optimizer", optimizer, "--top", "0", "--json"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail("%s: %s" % (" ".join(cmd), r.stderr.strip()))
    p = json.loads(r.stdout)
    gpu_ms = sum(o["time_ms"] for o in p["ops"])
    compute_ms = sum(o["time_ms"] for o in p["ops"] if o["kind"] in COMPUTE_KINDS)
    return {"step_ms": p["iteration_ms"] * repeat,
            "compute_share": compute_ms / gpu_ms if gpu_ms > 0 else 0.0,
            "fallback_ops": p["fallback_ops"]}


def is_tput(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < float("inf")


def read_gavel(path):
    """The Gavel file, checked: every GPU key, solo and pair throughput."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        fail("%s: %s" % (path, e))
    if not isinstance(data, dict):
        fail("%s: not a JSON object" % path)
    for key in GPUS:
        jobs = data.get(key)
        if not isinstance(jobs, dict):
            fail("%s: no \"%s\" object" % (path, key))
        for name, v in jobs.items():
            m = KEY.match(name)
            if not m:
                fail("%s: %s: key \"%s\" is not ('Name', scale)" % (path, key, name))
            if m.group(2) == "1" and m.group(1).split(" (")[0] not in FAMILIES:
                fail("%s: %s: %s: no bundled graph for this family" % (path, key, name))
            if not isinstance(v, dict) or not is_tput(v.get("null")):
                fail("%s: %s: %s: no solo (\"null\") throughput >= 0" % (path, key, name))
            for other, t in v.items():
                if other != "null" and not (isinstance(t, list) and len(t) == 2 and
                                            all(is_tput(x) for x in t)):
                    fail("%s: %s: %s next to %s: expected two throughputs >= 0"
                         % (path, key, name, other))
    return data


def corr(x, y):
    return statistics.correlation(x, y)


def mean_abs(xs):
    return sum(abs(v) for v in xs) / len(xs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build", nargs="?", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results",
                                                  "share_interference_ceer.json"))
    ap.add_argument("--gavel", default=GAVEL, help="Gavel's simulation_throughputs.json")
    args = ap.parse_args()
    data = read_gavel(args.gavel)
    frugal = os.path.join(args.build, "tools", "frugal", "frugal")
    if not os.access(frugal, os.X_OK):
        fail("%s: not an executable (build first)" % frugal)

    out = {"command": "bench/share_interference_ceer.py", "gavel": args.gavel, "jobs": [],
           "results": []}
    for key, gpu in GPUS.items():
        jobs = {}
        for name, v in data[key].items():
            m = KEY.match(name)
            if not m or m.group(2) != "1" or not v.get("null"):
                continue
            family = m.group(1).split(" (")[0]
            b = re.search(r"batch size (\d+)", m.group(1))
            batch = int(b.group(1)) if b else 1
            p = price(frugal, family, batch, gpu)
            measured_ms = 1000.0 / v["null"]
            job = {"gpu": key, "job": m.group(1), "family": family, "batch": batch,
                   "measured_step_ms": round(measured_ms, 3),
                   "predicted_step_ms": round(p["step_ms"], 3),
                   "busy": round(p["step_ms"] / measured_ms, 4),
                   "compute_share": round(p["compute_share"], 4),
                   "fallback_ops": p["fallback_ops"]}
            jobs[name] = job
            out["jobs"].append(job)
            print("%-5s %-34s measured %8.2f ms  predicted %8.2f ms  busy %.2f  compute %.2f"
                  % (key, m.group(1), measured_ms, p["step_ms"], job["busy"],
                     job["compute_share"]), flush=True)
        rows = []
        for name, v in data[key].items():
            if name not in jobs:
                continue
            for other, t in v.items():
                if other == "null" or other not in jobs:
                    continue
                a, b = t
                if a == 0 and b == 0:
                    continue  # did not run
                if a == v["null"] and b == data[key][other]["null"]:
                    continue  # both exactly at solo speed: not a measurement
                s, o = jobs[name], jobs[other]
                rows.append((min(s["busy"], 1.0), min(o["busy"], 1.0), s["compute_share"],
                             o["compute_share"], a / v["null"], s["family"]))
        col = [[r[k] for r in rows] for k in range(5)]
        y = col[4]
        slice_pred = [1.0 / (1.0 + a * b) for a, b in zip(col[0], col[1])]
        y_mean = statistics.fmean(y)
        fam_y = {}
        for r in rows:
            fam_y.setdefault(r[5], []).append(r[4])
        res = {"gpu": key, "samples": len(rows),
               "corr_busy_self": round(corr(col[0], y), 3),
               "corr_busy_other": round(corr(col[1], y), 3),
               "corr_compute_share_self": round(corr(col[2], y), 3),
               "corr_compute_share_other": round(corr(col[3], y), 3),
               "corr_time_slice_prediction": round(corr(slice_pred, y), 3),
               "time_slice_prediction_mae": round(mean_abs([p - t for p, t in zip(slice_pred, y)]), 4),
               "label_mean_abs_deviation": round(mean_abs([t - y_mean for t in y]), 4),
               "family_mean_norm_tput": {f: round(statistics.fmean(v), 3)
                                         for f, v in sorted(fam_y.items())},
               "family_mean_busy": {f: round(statistics.fmean([j["busy"] for j in jobs.values()
                                                               if j["family"] == f]), 3)
                                    for f in sorted(fam_y)}}
        out["results"].append(res)
        print(json.dumps({k: v for k, v in res.items() if not isinstance(v, dict)}), flush=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print("wrote " + args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
