#!/usr/bin/env bash
# The Dask preprocessing job (job.py) through `frugal cache mount`, measured.
# A deterministic corpus (corpus.py) sits in REMOTE_DIR; the mount throttles
# it to an object-store-like link (--mbps MB/s per direction and --latency-ms
# per request: an emulation on a local disk, see docs/cache.md). Each
# configuration runs the job twice (day 1, day 2: a daily re-run) on a cold
# cache and is timed end to end:
#   none            capacity 1 byte: the same FUSE path, nothing cached (run
#                   first and again last, to show the machine's drift)
#   POLICY x SIZE   lru s3fifo sieve lrb glcache smartcache (those registered)
#                   at 5 % and 20 % of the bytes the job touches (the
#                   footprint of the first run's recorded trace)
# Every mounted run records its trace; the first one is replayed by
# `cache simulate` with the same policies and sizes, so simulated and
# measured speed-ups stand side by side: once with the throughput model's
# default compute rate, once with the rate calibrated on the "none" run
# (input bytes over the seconds not spent moving bytes to or from the
# remote) and compute and I/O adding up (`--overlap none`), as that
# calibration assumes. --repeat N runs the whole sequence N times (a "none" run opens
# each round): a cell's wall time is the median of its runs, its measured
# speed-up the median of the per-round speed-ups (each run against its own
# round's "none"), and its spread their lowest and highest, so two
# policies whose spreads overlap are not told apart.
# Writes bench/results/pipeline.json. --report-only redoes only the replay
# and the JSON from an earlier --work DIR. --days N runs N daily re-runs per
# configuration instead of 2; --record-only stops after the first "none"
# run and prints its trace's path (how testdata/cache/recorded/*.frt were
# made: dask_pipeline_100mb_7days.frt is `--mb 100 --mbps 50 --days 7
# --record-only`). --warm-from TRACE adds a cell "smartcache-warm" per size:
# smartcache mounted with --model, the model `cache train TRACE` fitted at
# that size (TRACE: an earlier recording of the same job, as a daily
# deployment would have); the replay warm-starts from the same model
# (--report-only takes the model source from the run's settings).
# --out FILE writes the JSON there instead of bench/results/pipeline.json.
# --sizes "5 20" (the default) lists the cache sizes, in % of the footprint.
# Usage: bench/pipeline/run.sh [BUILD_DIR] [--mb 300] [--mbps 100] [--latency-ms 20] [--work DIR]
#        [--policies "lru sieve"] [--sizes "5 20"] [--repeat N] [--days N] [--warm-from TRACE]
#        [--out FILE]
#        [--report-only | --record-only]
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then BUILD="$1"; shift; fi
MB=300 MBPS=100 LAT=20 WORK="" POLICIES="lru s3fifo sieve lrb glcache smartcache" REPORT_ONLY=0 REPEAT=1
SIZES="5 20" DAYS=2 RECORD_ONLY=0 GIVEN="" WARM_FROM="" OUT=bench/results/pipeline.json OUT_GIVEN=0 LINK_GIVEN=""  # GIVEN: the run-shaping flags given
while [ $# -gt 0 ]; do
  case "$1" in
    --mb) MB="$2"; LINK_GIVEN="$LINK_GIVEN --mb"; shift 2 ;;
    --mbps) MBPS="$2"; LINK_GIVEN="$LINK_GIVEN --mbps"; shift 2 ;;
    --latency-ms) LAT="$2"; LINK_GIVEN="$LINK_GIVEN --latency-ms"; shift 2 ;;
    --work) WORK="$2"; shift 2 ;;
    --policies) POLICIES="$2"; GIVEN="$GIVEN --policies"; shift 2 ;;
    --sizes) SIZES="$2"; GIVEN="$GIVEN --sizes"; shift 2 ;;
    --repeat) REPEAT="$2"; GIVEN="$GIVEN --repeat"; shift 2 ;;
    --report-only) REPORT_ONLY=1; shift ;;
    --days) DAYS="$2"; GIVEN="$GIVEN --days"; shift 2 ;;
    --record-only) RECORD_ONLY=1; shift ;;
    --warm-from) WARM_FROM="$2"; shift 2 ;;
    --out) OUT="$2"; OUT_GIVEN=1; shift 2 ;;
    *) echo "usage: bench/pipeline/run.sh [BUILD_DIR] [--mb N] [--mbps N] [--latency-ms N] [--work DIR] [--policies LIST] [--sizes LIST] [--repeat N] [--days N] [--warm-from TRACE] [--out FILE] [--report-only | --record-only]" >&2; exit 2 ;;
  esac
done
# Flags the mode would ignore are errors.
if [ "$REPORT_ONLY" = 1 ] && [ "$RECORD_ONLY" = 1 ]; then
  echo "bench/pipeline: --report-only and --record-only exclude each other" >&2; exit 2
fi
REPORT_REFUSED="$GIVEN$LINK_GIVEN${WARM_FROM:+ --warm-from}"
if [ "$REPORT_ONLY" = 1 ] && [ -n "$REPORT_REFUSED" ]; then
  echo "bench/pipeline: --report-only runs nothing (it reads the run's settings from --work), so${REPORT_REFUSED} cannot apply" >&2; exit 2
fi
if [ "$REPORT_ONLY" = 1 ] && [ -z "$WORK" ]; then
  echo "bench/pipeline: --report-only needs the --work DIR of an earlier run" >&2; exit 2
fi
if [ "$RECORD_ONLY" = 1 ] && [ -n "${GIVEN/ --days/}" ]; then
  echo "bench/pipeline: --record-only makes only the first \"none\" run, so${GIVEN/ --days/} cannot apply" >&2; exit 2
fi
if [ "$RECORD_ONLY" = 1 ] && { [ -n "$WARM_FROM" ] || [ "$OUT_GIVEN" = 1 ]; }; then
  echo "bench/pipeline: --record-only writes no report, so --warm-from and --out cannot apply" >&2; exit 2
fi
for v in "--repeat $REPEAT" "--days $DAYS"; do
  case "${v#* }" in ''|*[!0-9]*|0) echo "bench/pipeline: ${v% *} needs a positive integer, got '${v#* }'" >&2; exit 2 ;; esac
done
[ -n "${SIZES// /}" ] || { echo "bench/pipeline: --sizes needs at least one size" >&2; exit 2; }
for pct in $SIZES; do
  case "$pct" in ''|*[!0-9]*|0) echo "bench/pipeline: --sizes takes whole percentages in 1..100, got '$pct'" >&2; exit 2 ;; esac
  [ "$pct" -le 100 ] || { echo "bench/pipeline: --sizes takes whole percentages in 1..100, got '$pct'" >&2; exit 2; }
done
FRUGAL="$BUILD/tools/frugal/frugal"
PY=/usr/bin/python3
[ -c /dev/fuse ] || { echo "bench/pipeline: no /dev/fuse" >&2; exit 1; }
$PY -c "import dask.distributed, pandas, partd" || { echo "bench/pipeline: needs python3-dask python3-distributed python3-pandas python3-partd" >&2; exit 1; }
KNOWN="$("$FRUGAL" cache list --json | $PY -c 'import json,sys; print(" ".join(r["name"] for r in json.load(sys.stdin)["policies"]))')"
P=""
for p in $POLICIES; do case " $KNOWN " in *" $p "*) P="$P $p" ;; *) echo "bench/pipeline: skipping unregistered policy $p" >&2 ;; esac; done
[ -n "$WORK" ] || WORK="$(mktemp -d /tmp/frugal-pipeline.XXXXXX)"
R="$WORK/remote" M="$WORK/mnt" C="$WORK/cache" T="$WORK/traces"
mkdir -p "$M" "$C" "$T"
DAEMON=""
cleanup() { [ -n "$DAEMON" ] && kill -TERM "$DAEMON" 2>/dev/null; mountpoint -q "$M" && fusermount3 -uz "$M"; true; }
trap cleanup EXIT
# The run's settings, which --report-only reads back (so the replay uses
# the bandwidth and warm-start model source the runs had, and the JSON
# states them).
if [ "$REPORT_ONLY" = 1 ]; then
  [ -r "$T/settings" ] || { echo "bench/pipeline: $T/settings: missing: not the --work DIR of a run" >&2; exit 1; }
  . "$T/settings"
else
  printf 'MB=%q MBPS=%q LAT=%q DAYS=%q WARM_FROM=%q SIZES=%q\n' "$MB" "$MBPS" "$LAT" "$DAYS" "$WARM_FROM" "$SIZES" >"$T/settings"
fi
if [ -n "$WARM_FROM" ]; then
  [ -r "$WARM_FROM" ] || { echo "bench/pipeline: --warm-from $WARM_FROM: cannot read the trace" >&2; exit 1; }
  P="$P smartcache-warm"
fi
[ -d "$R/raw" ] || $PY bench/pipeline/corpus.py "$R" --mb "$MB" >&2

warm_model() {  # warm_model PCT FOOTPRINT: the --warm-from model for PCT % of FOOTPRINT bytes (trained once)
  local model="$T/warm-$1.model"
  [ -f "$model" ] || "$FRUGAL" cache train "$WARM_FROM" --size "$(($2 * $1 / 100))" -o "$model" >/dev/null
  echo "$model"
}

run() {  # run NAME POLICY CAPACITY [MODEL]: DAYS days through a fresh mount
  local name="$1" policy="$2" cap="$3" model=()
  [ $# -gt 3 ] && model=(--model "$4")
  rm -rf "$R/shards" "$R/tmp"
  "$FRUGAL" cache mount "$R" "$M" --cache-dir "$C" --capacity "$cap" --policy "$policy" --quiet "${model[@]}" \
    --remote-mbps "$MBPS" --remote-latency-ms "$LAT" --trace-out "$T/$name.frt" &
  DAEMON=$!
  for _ in $(seq 100); do [ -e "$M/.frugal-stats" ] && break; sleep 0.1; done
  local t0 t1
  t0=$(date +%s.%N)
  : >"$T/$name.log"
  for day in $(seq "$DAYS"); do
    $PY bench/pipeline/job.py "$M" --day "$day" >"$T/$name.day$day.json" 2>>"$T/$name.log"
  done
  t1=$(date +%s.%N)
  kill -TERM "$DAEMON"; wait "$DAEMON"; DAEMON=""
  cp "$C/stats.json" "$T/$name.stats.json"
  echo "$t0 $t1" | awk '{printf "%.3f\n", $2 - $1}' >"$T/$name.wall"
  echo "bench/pipeline: $name $(cat "$T/$name.wall") s" >&2
}

info() { "$FRUGAL" cache info "$T/none-first.frt" --json | $PY -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
# Round 1 keeps the names of a single run; round k > 1 adds "-rK".
[ "$REPORT_ONLY" = 1 ] || run none-first lru 1
if [ "$RECORD_ONLY" = 1 ]; then echo "$T/none-first.frt"; exit 0; fi
FOOT=$(info footprint_bytes)
if [ "$REPORT_ONLY" = 0 ]; then
  for round in $(seq "$REPEAT"); do
    sfx=""; [ "$round" -gt 1 ] && sfx="-r$round"
    [ "$round" -gt 1 ] && run "none$sfx" lru 1
    for pct in $SIZES; do
      cap=$((FOOT * pct / 100))
      for p in $P; do
        if [ "$p" = smartcache-warm ]; then run "$p-$pct$sfx" smartcache "$cap" "$(warm_model "$pct" "$FOOT")"
        else run "$p-$pct$sfx" "$p" "$cap"; fi
      done
    done
  done
  run none-last lru 1
fi
ROUNDS=$(ls "$T" | sed -n 's/^none-r\([0-9]*\)\.wall$/\1/p' | sort -n | tail -1); ROUNDS=${ROUNDS:-1}
# The compute rate the "none" run implies: input bytes over its seconds not
# spent on remote transfers (all reads and writes at the emulated bandwidth).
NONE_S=$(sort -n "$T/none-first.wall" "$T/none-last.wall" | head -1)
COMPUTE=$(awk -v r="$(info read_bytes)" -v w="$(info written_bytes)" -v s="$NONE_S" -v bw="$MBPS" \
  'BEGIN { io = (r + w) / (bw * 1e6); c = s - io; if (c < 1) c = 1; printf "%.6f", r / c / 1e9 }')
for pct in $SIZES; do
  for mode in default calibrated; do
    extra=""; [ "$mode" = calibrated ] && extra="--compute-gbps $COMPUTE --overlap none"
    sim=("$FRUGAL" cache simulate "$T/none-first.frt" --size "$((FOOT * pct / 100))"
         --remote-gbps "$(awk "BEGIN{print $MBPS/1000}")" $extra --json)
    "${sim[@]}" --policy "$(echo ${P/ smartcache-warm/} | tr ' ' ,),belady" >"$T/sim-$pct-$mode.json"
    if [ -n "$WARM_FROM" ]; then
      "${sim[@]}" --policy smartcache --model "$(warm_model "$pct" "$FOOT")" >"$T/sim-$pct-$mode-warm.json"
    fi
  done
done
$PY - "$T" "$MB" "$MBPS" "$LAT" "$FOOT" "$P" "$COMPUTE" "$ROUNDS" "$DAYS" "$OUT" "$WARM_FROM" "$SIZES" <<'PY'
import json, os, platform, statistics, sys
t, mb, mbps, lat, foot, pols = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), sys.argv[6].split()
compute = float(sys.argv[7])
rounds = int(sys.argv[8])
days, out_path, warm_from = int(sys.argv[9]), sys.argv[10], sys.argv[11]
sizes = [int(x) for x in sys.argv[12].split()]
wall = lambda n: float(open(os.path.join(t, n + ".wall")).read())
stats = lambda n: json.load(open(os.path.join(t, n + ".stats.json")))
name = lambda base, k: base + ("" if k == 1 else "-r%d" % k)
# Each round's "none" (round 1: the first run); the median over rounds and
# the last run is the reference.
none_round = [wall("none-first")] + [wall("none-r%d" % k) for k in range(2, rounds + 1)]
none = statistics.median(none_round + [wall("none-last")]) if rounds > 1 else min(wall("none-first"), wall("none-last"))
out = {"command": "bench/pipeline/run.sh", "machine": "%s, %d cpus" % (platform.machine(), os.cpu_count()),
       "corpus_mb": mb, "remote_mb_per_s": mbps, "remote_latency_ms": lat,
       "remote_note": "REMOTE_DIR is a local directory throttled by the mount (emulation of an object store)",
       "footprint_bytes": foot, "calibrated_compute_gbps": compute, "rounds": rounds, "days": days,
       "smartcache_warm_model_from": warm_from or None, "size_pcts": sizes,
       "none_s": {"first": wall("none-first"), "last": wall("none-last"), "rounds": none_round, "reference": none},
       "cells": []}
for pct in sizes:
    sim = {r["policy"]: r for r in json.load(open(os.path.join(t, "sim-%d-default.json" % pct)))["results"]}
    cal = {r["policy"]: r for r in json.load(open(os.path.join(t, "sim-%d-calibrated.json" % pct)))["results"]}
    if warm_from:
        for d, mode in ((sim, "default"), (cal, "calibrated")):
            d["smartcache-warm"] = json.load(open(os.path.join(t, "sim-%d-%s-warm.json" % (pct, mode))))["results"][0]
    for p in pols:
        n = "%s-%d" % (p, pct)
        s = stats(n)
        walls = [wall(name(n, k)) for k in range(1, rounds + 1)]
        paired = [none_round[k] / walls[k] for k in range(rounds)]
        med = statistics.median(walls)
        # One round: against the faster of the first and last "none"; more:
        # the median of the per-round speed-ups.
        speedup = none / med if rounds == 1 else statistics.median(paired)
        out["cells"].append({
            "policy": p, "size_pct": pct, "capacity_bytes": s["capacity_bytes"], "wall_s": med,
            "wall_s_runs": walls, "measured_speedup": speedup,
            # One round measures no spread.
            "measured_speedup_spread": None if rounds == 1 else [min(paired), max(paired)],
            "simulated_speedup": sim[p]["pipeline_speedup"],
            "simulated_speedup_calibrated": cal[p]["pipeline_speedup"],
            # Share of the bytes callers read that the local copy served (a miss
            # the policy admits is filled, then served locally): not a hit ratio.
            "measured_served_from_cache": s["byte_hit_ratio"],
            "measured_byte_miss_ratio": s.get("byte_miss_ratio"),
            "simulated_byte_miss_ratio": sim[p]["byte_miss_ratio"],
            "hits": s["hits"], "read_opens": s["read_opens"], "evictions": s["evictions"],
            "bytes_from_remote": s["bytes_read_from_remote"] + s["bytes_filled_from_remote"]})
    out["belady_%d_byte_miss_ratio" % pct] = sim["belady"]["byte_miss_ratio"]
for pct in sizes:
    cells = [c for c in out["cells"] if c["size_pct"] == pct]
    best = max(cells, key=lambda c: c["measured_speedup"])
    out["best_measured_%d" % pct] = best["policy"]
    # Policies whose spread reaches the best one's: not told apart from it
    # (null after one round: no spread was measured).
    out["not_told_apart_from_best_%d" % pct] = None if rounds == 1 else [
        c["policy"] for c in cells if c is not best and
        c["measured_speedup_spread"][1] >= best["measured_speedup_spread"][0]]
json.dump(out, open(out_path, "w"), indent=1)
print("%-15s %4s %8s %9s %13s %9s %10s %9s %9s" % ("policy", "size", "wall s", "measured", "spread", "simulated",
      "calibrated", "served loc", "remote MB"))
for c in out["cells"]:
    spread = "%6.3f-%.3fx" % tuple(c["measured_speedup_spread"]) if c["measured_speedup_spread"] else "%13s" % "1 round"
    print("%-15s %3d%% %8.1f %8.3fx %s %8.3fx %9.3fx %9.3f %9.0f" % (c["policy"], c["size_pct"], c["wall_s"],
          c["measured_speedup"], spread, c["simulated_speedup"], c["simulated_speedup_calibrated"],
          c["measured_served_from_cache"], c["bytes_from_remote"] / 1e6))
print("none: %.1f s first, %.1f s last, rounds %s" % (out["none_s"]["first"], out["none_s"]["last"],
      ", ".join("%.1f" % x for x in none_round)))
for pct in sizes:
    apart = out["not_told_apart_from_best_%d" % pct]
    print("best at %d%%: %s; not told apart from it: %s" % (pct, out["best_measured_%d" % pct],
          "not measured (one round: no spread; --repeat N)" if apart is None else ", ".join(apart) or "none"))
PY
