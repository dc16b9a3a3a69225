#!/usr/bin/env bash
# bench/pipeline/run.sh: flags its mode would ignore, and bad numbers, are
# usage errors (exit 2, one line) before anything is mounted or run.
set -uo pipefail
cd "$(dirname "$0")/../.."
fail=0
expect() {  # expect SUBSTRING ARGS...: run.sh ARGS exits 2 with one line holding SUBSTRING
  local want="$1"; shift
  local out rc
  out="$(bench/pipeline/run.sh "$@" 2>&1)"; rc=$?
  if [ "$rc" != 2 ] || [ "$(printf '%s\n' "$out" | wc -l)" != 1 ] || [[ "$out" != *"$want"* ]]; then
    echo "FAIL: run.sh $*: rc $rc, output: $out"; fail=1
  fi
}
expect "exclude each other" --report-only --record-only
expect "--days cannot apply" --report-only --days 3
expect "--repeat cannot apply" --report-only --repeat 2
expect "--repeat cannot apply" --record-only --repeat 2 --days 3
expect "--policies cannot apply" --record-only --policies lru
expect "--days needs a positive integer" --days 0
expect "--repeat needs a positive integer" --repeat x
expect "--sizes cannot apply" --record-only --sizes 5
expect "--sizes cannot apply" --report-only --work /nonexistent --sizes 5
expect "whole percentages in 1..100, got '0'" --sizes "5 0"
expect "whole percentages in 1..100, got '101'" --sizes 101
expect "whole percentages in 1..100, got '5%'" --sizes 5%
expect "--sizes needs at least one size" --sizes " "
expect "--warm-from and --out cannot apply" --record-only --warm-from x.frt
expect "--warm-from and --out cannot apply" --record-only --out x.json
expect "--mbps cannot apply" --report-only --work /nonexistent --mbps 50
expect "--warm-from cannot apply" --report-only --work /nonexistent --warm-from x.frt
expect "--report-only needs the --work DIR" --report-only
expect "usage" --bogus

# merge_rounds.py: bad files are one line, exit 1; a merge of rounds names the best policy.
M=bench/pipeline/merge_rounds.py
R=bench/results/pipeline_1gb.json
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
merge_fails() {  # merge_fails SUBSTRING FILES...: merge_rounds.py exits 1 with one line holding SUBSTRING
  local want="$1"; shift
  local out rc
  out="$(python3 "$M" "$@" --out "$T/m.json" 2>&1)"; rc=$?
  if [ "$rc" != 1 ] || [ "$(printf '%s\n' "$out" | wc -l)" != 1 ] || [[ "$out" != *"$want"* ]]; then
    echo "FAIL: merge_rounds.py $*: rc $rc, output: $out"; fail=1
  fi
}
printf 'not json' >"$T/garbage.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["corpus_mb"]=5; json.dump(d,open(sys.argv[2],"w"))' "$R" "$T/other.json"
merge_fails "$T/missing.json" "$R" "$T/missing.json"
merge_fails "$T/garbage.json" "$R" "$T/garbage.json"
merge_fails "corpus_mb is 5" "$R" "$T/other.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["cells"][3]["measured_speedup"]; json.dump(d,open(sys.argv[2],"w"))' "$R" "$T/no_speedup.json"
merge_fails "cell 3 lacks one of" "$R" "$T/no_speedup.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["none_s"]=[1]; json.dump(d,open(sys.argv[2],"w"))' "$R" "$T/bad_none.json"
merge_fails "none_s needs numbers" "$R" "$T/bad_none.json"
# A round of some cells: refused unless --common, which merges the shared ones.
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["cells"]=[c for c in d["cells"] if c["policy"]=="smartcache"]; json.dump(d,open(sys.argv[2],"w"))' "$R" "$T/some.json"
merge_fails "--common merges" "$R" "$T/some.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["cells"]=[c for c in d["cells"] if c["policy"]=="nobody"]; json.dump(d,open(sys.argv[2],"w"))' "$R" "$T/none_shared.json"
merge_fails "no policy and size is in every file" "$R" "$T/none_shared.json" --common
if ! python3 "$M" "$R" "$T/some.json" --common --out "$T/m.json" >/dev/null ||
   ! python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert {c["policy"] for c in d["cells"]} == {"smartcache"}, d["cells"]
assert len(d["cells_not_in_every_file"]) == 10, d["cells_not_in_every_file"]
assert d["best_measured_5"] == "smartcache" and d["not_told_apart_from_best_5"] == []' "$T/m.json"; then
  echo "FAIL: merge_rounds.py --common"; fail=1
fi
# --union: every cell, each over the files that measured it.
if ! python3 "$M" "$R" "$T/some.json" --union --out "$T/m.json" >/dev/null ||
   ! python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=json.load(open(sys.argv[2]))
assert len(d["cells"]) == len(r["cells"]), d["cells"]
files = {(c["policy"], c["size_pct"]): c["files"] for c in d["cells"]}
assert all(n == (2 if p == "smartcache" else 1) for (p, _), n in files.items()), files
assert len(d["cells_not_in_every_file"]) == 10, d["cells_not_in_every_file"]' "$T/m.json" "$R"; then
  echo "FAIL: merge_rounds.py --union"; fail=1
fi
out="$(python3 "$M" "$R" "$T/some.json" --union --common --out "$T/m.json" 2>&1)"; rc=$?
if [ "$rc" != 2 ] || [[ "$out" != *"not allowed with"* ]]; then
  echo "FAIL: merge_rounds.py --union --common: rc $rc, output: $out"; fail=1
fi
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for c in d["cells"]:
  if c["policy"] == "lru": c["measured_speedup"] = 9.0
json.dump(d,open(sys.argv[2],"w"))' "$R" "$T/fast_lru.json"
if ! python3 "$M" "$R" "$T/fast_lru.json" --out "$T/m.json" >/dev/null ||
   ! python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert d["rounds"] == 2 and d["best_measured_5"] == d["best_measured_20"] == "lru", d["best_measured_5"]
c = [c for c in d["cells"] if c["policy"] == "lru"][0]
assert c["measured_speedup_spread"][1] == 9.0 and len(c["wall_s_runs"]) == 2' "$T/m.json"; then
  echo "FAIL: merge_rounds.py of two rounds"; fail=1
fi
# A round where every policy ran faster (drift between sittings) joins the spreads; compared
# round by round, the best policy still leads each of the others in both rounds.
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for shift, out in ((0.0, sys.argv[2]), (0.5, sys.argv[3])):
  for c in d["cells"]: c["measured_speedup"] = (1.2 if c["policy"] == "smartcache" else 1.1) + shift
  json.dump(d, open(out, "w"))' "$R" "$T/slow_round.json" "$T/fast_round.json"
if ! python3 "$M" "$T/slow_round.json" "$T/fast_round.json" --out "$T/m.json" >/dev/null ||
   ! python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
others = sorted({c["policy"] for c in d["cells"]} - {"smartcache"})
assert d["best_measured_5"] == "smartcache" and sorted(d["not_told_apart_from_best_5"]) == others, d
assert sorted(d["behind_best_in_every_round_5"]) == others, d["behind_best_in_every_round_5"]
assert all(abs(x - 0.1) < 1e-9 for v in d["paired_lead_of_best_5"].values() for x in v)' "$T/m.json"; then
  echo "FAIL: merge_rounds.py round-by-round lead"; fail=1
fi
exit $fail
