#!/usr/bin/env python3
"""Speed of the advisor's plan search on a 70B model over the whole catalog.

Runs `frugal advise models/hf/llama2_70b.json --batch 1 --seq 4096 --tokens 2e12
--global-batch 1024 --precision amp-bf16` (every provider, 1..4 instances)
REPS times with the default efficiency model and with the roofline model
(the in-run baseline: no model file to load) and writes the whole-process
wall times (median), the plans priced and the recommendation to
bench/results/advise_plans.json. Target: < 2 s.

Usage (from the repository root): bench/advise_plans.py [BUILD_DIR] [REPS]
"""
import json
import os
import statistics
import subprocess
import sys
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
frugal = os.path.join(build, "tools", "frugal", "frugal")
base = [frugal, "advise", "models/hf/llama2_70b.json", "--batch", "1", "--seq", "4096",
        "--tokens", "2e12", "--global-batch", "1024", "--precision", "amp-bf16", "--json"]

out = {"command": " ".join(base[1:]), "reps": reps, "target_s": 2.0, "runs": {}}
for name, extra in [("efficiency", []), ("roofline", ["--perf-model", "roofline"])]:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        r = subprocess.run(base + extra, capture_output=True, text=True)
        times.append(time.perf_counter() - t)
        if r.returncode != 0:
            sys.exit(f"{' '.join(base + extra)}: {r.stderr.strip()}")
    a = json.loads(r.stdout)
    rec = a["recommended"]
    out["runs"][name] = {
        "median_s": statistics.median(times), "times_s": times,
        "plans_priced": a["plans_priced"], "configs": len(a["configs"]),
        "recommended": f"{rec['instances']} x {rec['instance']}, {rec['plan']}",
    }
    print(f"{name}: {statistics.median(times):.2f} s median of {reps}, "
          f"{a['plans_priced']} plans priced, {len(a['configs'])} configurations")
e, r = out["runs"]["efficiency"]["median_s"], out["runs"]["roofline"]["median_s"]
out["efficiency_over_roofline"] = e / r
os.makedirs("bench/results", exist_ok=True)
with open("bench/results/advise_plans.json", "w") as f:
    json.dump(out, f, indent=2)
    f.write("\n")
