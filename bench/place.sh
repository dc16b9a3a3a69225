#!/usr/bin/env bash
# Pesto benchmark: every OperatorGraphs and LayerGraphs training graph of the
# dnn-partitioning set, K = 2, 4, 8 GPUs, three cases — nvlink and pcie with
# the graph's own memory per GPU (maxSizePerFPGA, 16 GiB), and nvlink with
# memory forced down to 1.2 x total / K so that splitting is required.
# Runs `frugal place --method all --json` per case and writes
# bench/results/place.json: every method's makespan, ratio to the lower
# bound and seconds per case, a summary, and the README table as markdown
# ("table_md", also printed).
# Usage: bench/place.sh [BUILD_DIR] [PESTO_TIME_LIMIT_S]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
LIMIT="${2:-20}"
FRUGAL="$BUILD/tools/frugal/frugal"
DATA="${FRUGAL_SHARED_DATA:-../shared/data}/graphs/dnn-partitioning/throughput-inputs"
OUT=bench/results
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"
graphs=$(ls "$DATA"/OperatorGraphs/*_training.json "$DATA"/LayerGraphs/*_training.json)
i=0
for g in $graphs; do
  total=$(python3 -c "import json,sys; print(sum(n['size'] for n in json.load(open(sys.argv[1]))['nodes']))" "$g")
  for k in 2 4 8; do
    for case in nvlink pcie memory; do
      i=$((i + 1))
      topo=$case; extra=()
      if [ "$case" = memory ]; then
        topo=nvlink
        extra=(--mem-gb "$(python3 -c "print(1.2 * $total / $k / 2**30)")")
      fi
      echo "[$i] $(basename "$g" .json) K=$k $case" >&2
      if ! "$FRUGAL" place "$g" --gpus "$k" --topology "$topo" "${extra[@]}" \
          --time-limit "$LIMIT" --method all --json > "$TMP/$i.json" 2> "$TMP/$i.err"; then
        echo "{\"error\": $(python3 -c 'import json,sys; print(json.dumps(open(sys.argv[1]).read().strip()))' "$TMP/$i.err")}" > "$TMP/$i.json"
      fi
      python3 - "$TMP/$i.json" "$g" "$k" "$case" <<'PY'
import json, sys
path, graph, k, case = sys.argv[1:]
d = json.load(open(path))
d["case"] = {"graph": graph.split("/")[-2] + "/" + graph.split("/")[-1][:-5],
             "gpus": int(k), "memory": "forced" if case == "memory" else "graph",
             "topology": "nvlink" if case == "memory" else case}
json.dump(d, open(path, "w"))
PY
    done
  done
done
python3 - "$TMP" "$OUT" "$LIMIT" <<'PY'
import glob, json, math, os, platform, sys
tmp, out, limit = sys.argv[1], sys.argv[2], float(sys.argv[3])
runs = [json.load(open(f)) for f in sorted(glob.glob(tmp + "/*.json"),
        key=lambda f: int(os.path.basename(f)[:-5]))]
names = ["single", "expert", "heft", "m-topo", "m-etf", "m-sct", "metis", "pipeline", "pesto"]
cases, ratios, never_worse, max_pesto_s = [], [], True, 0.0
lines = ["| graph | K | topology | memory | LB ms | " + " | ".join(names) +
         " | pesto / LB | pesto s | MIP |",
         "|---|---|---|---|---|" + "---|" * len(names) + "---|---|---|"]
for r in runs:
    c = r["case"]
    if "error" in r:
        cases.append({**c, "error": r["error"]})
        why = r["error"].split("memory too small for any placement: ")[-1]
        lines.append(f"| {c['graph']} | {c['gpus']} | {c['topology']} | {c['memory']} | "
                     f"no placement fits: {why} |")
        continue
    by = {m["name"]: m for m in r["methods"]}
    lb = r["lower_bound_ms"]
    base = [m["makespan_ms"] for n, m in by.items() if n != "pesto" and m["makespan_ms"] is not None]
    p = by["pesto"]
    if p["makespan_ms"] is not None:
        ratios.append(p["makespan_ms"] / lb)
        if base and p["makespan_ms"] > min(base) + 1e-6:
            never_worse = False
    max_pesto_s = max(max_pesto_s, p["seconds"])
    cells = []
    for n in names:
        ms = by[n]["makespan_ms"]
        cells.append("—" if ms is None else f"{ms:.1f}")
    mip = p.get("status", "")
    if "gap" in p:
        mip += f" {100 * p['gap']:.0f}%"
    lines.append(f"| {c['graph']} | {c['gpus']} | {c['topology']} | {c['memory']} | {lb:.1f} | " +
                 " | ".join(cells) +
                 f" | {p['makespan_ms'] / lb:.3f} | {p['seconds']:.1f} | {mip} |")
    cases.append({**c, "lower_bound_ms": lb, "lower_bounds": r["lower_bounds"],
                  "ops": r["ops"],
                  "methods": [{k2: m[k2] for k2 in ("name", "makespan_ms", "ratio", "seconds", "status", "gap", "mip_bound_ms") if k2 in m}
                              for m in r["methods"]],
                  "best": r["best"]})
geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios)) if ratios else None
summary = {"cases": len(runs), "pesto_geomean_ratio_to_lower_bound": geo,
           "pesto_never_worse_than_best_baseline": never_worse,
           "pesto_max_seconds": max_pesto_s, "pesto_time_limit_s": limit}
doc = {"benchmark": "place", "command": f"bench/place.sh BUILD {limit:g}",
       "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
       "summary": summary, "cases": cases}
table = "\n".join(lines) + "\n\n" + (
    f"pesto: geomean makespan / lower bound = {geo:.3f}; never worse than the best "
    f"baseline: {never_worse}; slowest case {max_pesto_s:.1f} s (limit {limit:g} s).\n")
doc["table_md"] = table
json.dump(doc, open(out + "/place.json", "w"), indent=1)
print(table)
PY
