#!/usr/bin/env python3
"""`frugal share extender` at the scale of Alibaba's GPU cluster, over HTTP.

The 1,213 nodes of openb_node_list_gpu_node.csv become Kubernetes Node
objects (allocatable alibabacloud.com/gpu-count, label
alibabacloud.com/gpu-card-model) served by tools/frugal/fake_kube_api.py.
Pods drawn from openb_pod_list_default.csv (seeded, with replacement, until
their GPU requests reach --tune x capacity) are created one at a time and
scheduled the way kube-scheduler drives an extender: filter over every
node name (nodeCacheCapable), bind to the first node kept. Each filter
re-lists nodes and bound pods from the API server, so its latency grows
with the pods bound.

Writes bench/results/share_extender.json: per policy the pods, failed
pods, the final unallocated GPU % (from the API server's bound pods, not
the extender's view), whether any GPU was over-committed, and the filter
and bind latencies (p50 / p99 / max, ms) in quarters of the replay, with
the stand-in API server's own time per filter (its list answers) measured
apart. Context, not a target: `frugal share frag --policy P --seeds 42
--tune T` on the same files (its own arrival sequence).

Each policy runs with each --view: 0 (--resync 0, re-list before every
filter), 1 (--resync 1, at most once a second, the extender's own binds
counted as it makes them) and watch (--watch: one list, then the API
server's watch events; no list per filter).

Usage: bench/share_extender.py [BUILD_DIR] [--policies fgd,best-fit] [--view 0,1,watch] [--tune 1.0]
                               [--out bench/results/share_extender.json]
"""
import argparse
import csv
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRACES = os.path.join(ROOT, "..", "shared", "data", "traces", "alibaba-gpu-v2023")


def post(url, body, timeout=60):
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req, timeout=timeout))


def start(cmd, pattern, log):
    """Starts cmd, waits for a line of its output containing pattern."""
    p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, text=True)
    for _ in range(600):
        with open(log.name) as f:
            for line in f:
                if pattern in line:
                    return p, line
        time.sleep(0.05)
    p.kill()
    sys.exit("share_extender: %s did not start" % cmd[0])


def percentiles(xs):
    xs = sorted(xs)
    if not xs:
        return {}
    at = lambda q: xs[min(len(xs) - 1, int(q * len(xs)))]
    return {"p50_ms": round(1e3 * at(0.5), 2), "p99_ms": round(1e3 * at(0.99), 2),
            "max_ms": round(1e3 * xs[-1], 2)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--policies", default="fgd")
    ap.add_argument("--tune", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--view", default="0,1,watch",
                    help="how the extender reads the cluster: --resync seconds, or watch")
    ap.add_argument("--out", default=os.path.join("bench", "results", "share_extender.json"),
                    help="where to write the results (relative: to the repository root)")
    args = ap.parse_args()
    frugal = os.path.join(ROOT, args.build, "tools", "frugal", "frugal")
    node_rows = list(csv.DictReader(open(os.path.join(TRACES, "openb_node_list_gpu_node.csv"))))
    trace = list(csv.DictReader(open(os.path.join(TRACES, "openb_pod_list_default.csv"))))
    nodes = []
    for r in node_rows:
        nodes.append({"apiVersion": "v1", "kind": "Node",
                      "metadata": {"name": r["sn"], "labels": {"alibabacloud.com/gpu-card-model": r["model"]}},
                      "status": {"allocatable": {"cpu": r["cpu_milli"] + "m", "memory": r["memory_mib"] + "Mi",
                                                 "alibabacloud.com/gpu-count": r["gpu"]}}})
    capacity = sum(int(r["gpu"]) for r in node_rows) * 1000
    rng = random.Random(args.seed)
    arrivals, total = [], 0
    while total < args.tune * capacity:
        p = rng.choice(trace)
        arrivals.append(p)
        total += int(p["num_gpu"]) * int(p["gpu_milli"])
    names = [n["metadata"]["name"] for n in nodes]
    tmp = tempfile.mkdtemp()
    cluster = os.path.join(tmp, "cluster.json")
    json.dump({"nodes": {"kind": "NodeList", "items": nodes}, "pods": {"kind": "PodList", "items": []}},
              open(cluster, "w"))
    results = []
    runs = [(p, v) for p in args.policies.split(",") for v in args.view.split(",")]
    for policy, view in runs:
        view_flags = ["--watch"] if view == "watch" else ["--resync", str(float(view))]
        api_log = open(os.path.join(tmp, "api.log"), "w+")
        api, port_line = start([sys.executable, os.path.join(ROOT, "tools", "frugal", "fake_kube_api.py"), cluster],
                               "", api_log)
        time.sleep(0.2)
        api_url = "http://127.0.0.1:" + open(api_log.name).readline().strip()
        ext_log = open(os.path.join(tmp, "ext-%s-%s.log" % (policy, view)), "w+")
        ext, line = start([frugal, "share", "extender", "--policy", policy, "--api", api_url,
                           "--listen", "127.0.0.1:0", "--quiet", "--timeout", "60"] + view_flags,
                          "serving http://", ext_log)
        url = line.split("serving ")[1].split(",")[0]
        filt, bind, listing, failed = [], [], [], 0
        quarter = max(1, len(arrivals) // 4)
        for i, p in enumerate(arrivals):
            name = "pod-%05d" % i
            ann = {}
            if int(p["num_gpu"]) > 0:
                ann["alibabacloud.com/gpu-count"] = p["num_gpu"]
                ann["alibabacloud.com/gpu-milli"] = p["gpu_milli"]
            if p.get("gpu_spec"):
                ann["alibabacloud.com/gpu-card-model"] = p["gpu_spec"]
            pod = {"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": name, "namespace": "bench", "uid": "uid-%05d" % i, "annotations": ann},
                   "spec": {"schedulerName": "frugal-scheduler", "containers": [
                       {"name": "main", "resources": {"requests": {"cpu": p["cpu_milli"] + "m",
                                                                   "memory": p["memory_mib"] + "Mi"}}}]},
                   "status": {"phase": "Pending"}}
            post(api_url + "/api/v1/namespaces/bench/pods", pod)
            t0 = time.perf_counter()
            urllib.request.urlopen(api_url + "/api/v1/pods?fieldSelector=spec.nodeName%21%3D", timeout=60).read()
            t1 = time.perf_counter()
            f = post(url + "/scheduler/filter", {"pod": pod, "nodenames": names})
            t2 = time.perf_counter()
            listing.append(t1 - t0)
            filt.append(t2 - t1)
            if "error" in f:
                sys.exit("share_extender: filter error: %s" % f["error"])
            if not f["nodenames"]:
                failed += 1
                continue
            b = post(url + "/scheduler/bind", {"podName": name, "podNamespace": "bench",
                                               "podUID": "uid-%05d" % i, "node": f["nodenames"][0]})
            bind.append(time.perf_counter() - t2)
            if b:
                sys.exit("share_extender: bind error: %s" % b)
            if (i + 1) % quarter == 0:
                print("share_extender: %s %d/%d pods, filter p50 %.1f ms" %
                      (policy, i + 1, len(arrivals), 1e3 * sorted(filt[-quarter:])[len(filt[-quarter:]) // 2]),
                      file=sys.stderr)
        state = json.load(urllib.request.urlopen(url + "/state", timeout=60))
        pods = json.load(urllib.request.urlopen(api_url + "/api/v1/pods", timeout=60))["items"]
        used = {}
        allocated = 0
        for p in pods:
            if not p["spec"].get("nodeName"):
                continue
            a = p["metadata"]["annotations"]
            if "alibabacloud.com/gpu-index" not in a:
                continue
            for g in a["alibabacloud.com/gpu-index"].split("-"):
                k = (p["spec"]["nodeName"], int(g))
                used[k] = used.get(k, 0) + int(a["alibabacloud.com/gpu-milli"])
                allocated += int(a["alibabacloud.com/gpu-milli"])
        ext.terminate()
        ext.wait(timeout=30)
        api.kill()
        frag = json.loads(subprocess.run(
            [frugal, "share", "frag", "--policy", policy, "--seeds", str(args.seed), "--tune", str(args.tune),
             "--threads", "2", "--json"], check=True, capture_output=True, text=True).stdout)
        results.append({
            "policy": policy, "view": "watch" if view == "watch" else "resync %g s" % float(view),
            "pods": len(arrivals), "failed_pods": failed,
            "unallocated_gpu_pct": round(100 - 100.0 * allocated / capacity, 3),
            "extender_unallocated_gpu_pct": round(state["unallocated_gpu_pct"], 3),
            "overcommitted_gpus": sum(1 for v in used.values() if v > 1000),
            "filter_ms_by_quarter": [percentiles(filt[q * quarter:(q + 1) * quarter]) for q in range(4)],
            "api_list_ms_by_quarter": [percentiles(listing[q * quarter:(q + 1) * quarter]) for q in range(4)],
            "bind_ms": percentiles(bind),
            # The extender's own account (GET /state): API wait, reading the
            # lists into the model, deciding.
            "extender_seconds": {k: round(v, 3) for k, v in state["seconds"].items()},
            "extender_syncs": state["syncs"],
            "watch": state["watch"],
            "frag_experiment_context": {"failed_pods": frag["results"][0]["failed_pods"],
                                        "unallocated_gpu_pct_final": frag["results"][0]["unallocated_gpu_pct"][-1]},
        })
        print("share_extender: %s (%s) done: %d failed, %.2f %% unallocated" %
              (policy, view, failed, results[-1]["unallocated_gpu_pct"]), file=sys.stderr)
    out = {"nodes": len(nodes), "gpus": capacity // 1000, "tune": args.tune, "seed": args.seed,
           "results": results}
    path = os.path.join(ROOT, args.out)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
