#!/usr/bin/env bash
# Speed of `frugal perf score` on 50,000 measured rows with the bundled model
# (target: under 10 s). The rows are drawn at run time from the shared NeuSight
# op timings (../shared/data/perf/neusight-op-timings): evenly spaced rows of
# every (op type, GPU) file, 12 op types on 5 GPUs, written as one CSV per
# source file into a temporary folder (nothing is copied into the repository).
# Times three runs of `perf score --json` and one with `--out`, and writes
# bench/results/perf_score.json (rows, seconds = the median of the three
# wall times, target_seconds 10, the model's median and p90 error overall).
# Usage: bench/perf_score.sh [FRUGAL_BINARY] [ROWS]   (Release build)
set -euo pipefail
cd "$(dirname "$0")/.."
FRUGAL="${1:-build/tools/frugal/frugal}"
ROWS="${2:-50000}"
SRC=../shared/data/perf/neusight-op-timings
[ -d "$SRC" ] || { echo "perf_score: $SRC not found" >&2; exit 1; }
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
mkdir -p bench/results "$TMP/data"

# Evenly spaced rows of each source file; the quota is split over the files,
# the first ones taking one row more when ROWS does not divide evenly.
python3 - "$SRC" "$TMP/data" "$ROWS" <<'PY'
import glob, os, sys
src, dst, total = sys.argv[1], sys.argv[2], int(sys.argv[3])
files = sorted(glob.glob(os.path.join(src, "*", "*.csv")))
base, extra = divmod(total, len(files))
for i, path in enumerate(files):
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    header, body = lines[0], [l for l in lines[1:] if l.strip()]
    want = base + (1 if i < extra else 0)
    if want > len(body):
        sys.exit(f"perf_score: {path} has {len(body)} rows, need {want}")
    picked = [body[j * len(body) // want] for j in range(want)]
    op, gpu = os.path.basename(os.path.dirname(path)), os.path.basename(path)
    with open(os.path.join(dst, f"{op}_{gpu}"), "w", newline="") as out:
        out.write(header + "\n" + "\n".join(picked) + "\n")
PY

for run in 1 2 3; do
  start=$(date +%s.%N)
  "$FRUGAL" perf score --data "$TMP/data" --json >"$TMP/score$run.json"
  end=$(date +%s.%N)
  echo "$start $end" >"$TMP/time$run"
  echo "perf_score: run $run done" >&2
done
start=$(date +%s.%N)
"$FRUGAL" perf score --data "$TMP/data" --json --out "$TMP/pred.csv" >"$TMP/score_out.json"
end=$(date +%s.%N)
echo "$start $end" >"$TMP/time_out"
[ "$(($(wc -l <"$TMP/pred.csv") - 1))" -eq "$ROWS" ] || { echo "perf_score: --out row count" >&2; exit 1; }

python3 - "$TMP" "$ROWS" <<'PY'
import json, os, platform, statistics, sys
tmp, rows = sys.argv[1], int(sys.argv[2])
def wall(name):
    a, b = map(float, open(os.path.join(tmp, name)).read().split())
    return b - a
walls = [wall(f"time{r}") for r in (1, 2, 3)]
j = json.load(open(os.path.join(tmp, "score1.json")))
assert j["rows_in"] == rows, j["rows_in"]
overall = next(r for r in j["rows"] if r["op"] == "all")
ops = sorted({r["op"] for r in j["rows"] if r["op"] != "all"})
gpus = sorted({r["gpu"] for r in j["rows"] if r["gpu"] != "all"})
seconds = statistics.median(walls)
out = {
    "command": "bench/perf_score.sh",
    "machine": platform.machine(), "cpus": os.cpu_count(),
    "data": "../shared/data/perf/neusight-op-timings, evenly spaced rows of every file",
    "model": j["model"], "perf_model": os.path.relpath(j["perf_model"]),
    "rows": rows, "op_types": len(ops), "gpus": gpus,
    "priced_rows": j["priced_rows"], "uncovered_rows": j["uncovered_rows"],
    "seconds": round(seconds, 3),
    "wall_s_runs": [round(w, 3) for w in walls],
    "internal_seconds": round(j["seconds"], 3),
    "seconds_with_out": round(wall("time_out"), 3),
    "target_seconds": 10,
    "meets_target": seconds < 10,
    "median_ape_pct": round(overall["median_ape_pct"], 2),
    "p90_ape_pct": round(overall["p90_ape_pct"], 2),
    "median_bias_pct": round(overall["median_bias_pct"], 2),
}
json.dump(out, open("bench/results/perf_score.json", "w"), indent=2)
open("bench/results/perf_score.json", "a").write("\n")
print(f"perf score: {rows} rows ({len(ops)} op types, {len(gpus)} GPUs) in "
      f"{seconds:.2f} s (target < 10 s; with --out {out['seconds_with_out']:.2f} s); "
      f"median APE {out['median_ape_pct']}%, p90 {out['p90_ape_pct']}%")
PY
echo "wrote bench/results/perf_score.json" >&2
