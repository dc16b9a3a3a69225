#!/usr/bin/env bash
# CLI checks for `frugal share policies` and `frugal share frag`.
# Usage: cli_share_cluster_test.sh FRUGAL_BINARY. Runs from the repository root.
source "$(dirname "$0")/cli_test_lib.sh" "$1"
py() { python3 -c "$@"; }
N=testdata/share/tiny_nodes.csv
P=testdata/share/tiny_pods.csv

# The one policy table, text and JSON.
"$FRUGAL" share policies >"$TMP/p.txt" || fail "share policies"
for p in random dotprod gpu-clustering gpu-packing best-fit fgd gshare; do
  grep -q "^  $p " "$TMP/p.txt" || fail "policies lacks $p"
done
"$FRUGAL" share policies --json | py 'import json,sys; j=json.load(sys.stdin); assert len(j)==7 and j[5]["name"]=="fgd"' ||
  fail "policies --json"

# Bad input: one line naming the file and line, exit 1.
expect_error 1 "bad_gpu_milli.csv:3: gpu_milli 1200 is out of range" share frag --pods testdata/share/bad_gpu_milli.csv --nodes $N
expect_error 1 "bad_unknown_model.csv:3: unknown GPU model 'K9000'" share frag --pods $P --nodes testdata/share/bad_unknown_model.csv
expect_error 1 "empty_pods.csv: no pods" share frag --pods testdata/share/empty_pods.csv --nodes $N
printf 'sn,cpu_milli,memory_mib,gpu,model\n' >"$TMP/no_nodes.csv"
expect_error 1 "no_nodes.csv: no nodes" share frag --pods $P --nodes "$TMP/no_nodes.csv"
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1000,1,1,500\nq,-4,1,1,500\n' >"$TMP/neg.csv"
expect_error 1 "neg.csv:3: cpu_milli -4 is negative" share frag --pods "$TMP/neg.csv" --nodes $N
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time\np,1000,1,1,500,-7\n' >"$TMP/negt.csv"
expect_error 1 "negt.csv:2: creation_time -7 is negative" share frag --pods "$TMP/negt.csv" --nodes $N
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1000,1,500,1000\n' >"$TMP/absurd.csv"
expect_error 1 "absurd.csv:2: num_gpu 500 is absurd" share frag --pods "$TMP/absurd.csv" --nodes $N
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\np,1000,1,1,500,H900\n' >"$TMP/spec.csv"
expect_error 1 "spec.csv:2: unknown GPU model 'H900' in gpu_spec" share frag --pods "$TMP/spec.csv" --nodes $N
printf 'name,cpu_milli\np,1000\n' >"$TMP/cols.csv"
expect_error 1 "cols.csv:1: missing column 'memory_mib'" share frag --pods "$TMP/cols.csv" --nodes $N
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1000\n' >"$TMP/short.csv"
expect_error 1 "short.csv:2: expected 5 fields, got 2" share frag --pods "$TMP/short.csv" --nodes $N
head -c 300 /dev/urandom >"$TMP/garbage.csv"
expect_error 1 "garbage.csv" share frag --pods "$TMP/garbage.csv" --nodes $N
expect_error 1 "testdata/share" share frag --pods testdata/share --nodes $N
expect_error 1 "nope.csv" share frag --pods nope.csv --nodes $N
expect_error 1 "unknown policy 'lru'" share frag --pods $P --nodes $N --policy lru
expect_error 1 "--seeds: bad range '9-3'" share frag --pods $P --nodes $N --seeds 9-3
expect_error 2 "--seeds: bad seed 'abc'" share frag --pods $P --nodes $N --seeds abc
printf 'sn,cpu_milli,memory_mib,gpu,model\nn1,96000,1000000,0,\n' >"$TMP/cpu_nodes.csv"
expect_error 1 "cpu_nodes.csv: no node has a GPU" share frag --pods $P --nodes "$TMP/cpu_nodes.csv"
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1000,1,0,0\n' >"$TMP/cpu_pods.csv"
expect_error 1 "cpu_pods.csv: no pod requests a GPU" share frag --pods "$TMP/cpu_pods.csv" --nodes $N
expect_error 1 "--tie-break" share frag --pods $P --nodes $N --tie-break worst
expect_error 1 "filter order 'parallel:17'" share frag --pods $P --nodes $N --filter-order parallel:17
expect_error 1 "filter order 'serial'" share frag --pods $P --nodes $N --filter-order serial
expect_error 2 "needs --tie-break first" share frag --pods $P --nodes $N --filter-order parallel:4 --tie-break random
"$FRUGAL" share frag --pods $P --nodes $N --policy gpu-packing --filter-order parallel:16:0.5 --json |
  py 'import json,sys; j=json.load(sys.stdin); assert j["filter_order"]=="parallel:16:0.5", j["filter_order"]' ||
  fail "--filter-order in JSON"
FRUGAL_SHARED_DATA="$TMP/absent" "$FRUGAL" share frag >"$TMP/out" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "pass --pods FILE and --nodes FILE" "$TMP/err" || fail "absent default trace"

# Usage errors exit 2; --help exits 0.
"$FRUGAL" share frag --pods $P --nodes $N --tune abc >/dev/null 2>&1; [ $? -eq 2 ] || fail "--tune abc should exit 2"
"$FRUGAL" share frag --help >/dev/null 2>&1 || fail "--help should exit 0"

# JSON fields, table text, determinism across thread counts, --out.
"$FRUGAL" share frag --pods $P --nodes $N --policy all --seeds 1-4 --tune 1.5 --json --threads 1 \
  --out "$TMP/out.json" >"$TMP/a.json" || fail "frag --json"
py '
import json,sys
j=json.load(open(sys.argv[1]))
assert j["cluster_gpus"]==14 and j["num_nodes"]==4 and len(j["seeds"])==4
assert len(j["results"])==7
for r in j["results"]:
  for k in ("policy","arrived_pct","unallocated_gpu_pct","frag_gpu_pct","frag_ratio_pct","failed_pods"):
    assert k in r, k
  assert len(r["unallocated_gpu_pct"])==len(r["arrived_pct"])==11
  # gshare says which descent its rollouts chose; no other policy decides.
  assert ("decision" in r)==(r["policy"]=="gshare"), r["policy"]
  if r["policy"]=="gshare": assert " (over 16 rollouts, mean unallocated GPU % minus fgd" in r["decision"], r["decision"]
' "$TMP/a.json" || fail "frag --json fields"
cmp -s "$TMP/a.json" "$TMP/out.json" || fail "--out differs from stdout"
"$FRUGAL" share frag --pods $P --nodes $N --policy all --seeds 1-4 --tune 1.5 --json --threads 3 >"$TMP/b.json" || fail "threads 3"
cmp -s "$TMP/a.json" "$TMP/b.json" || fail "results depend on --threads"
"$FRUGAL" share frag --pods $P --nodes $N --policy fgd,best-fit --seeds 1 >"$TMP/t.txt" || fail "frag text"
grep -q "unallocated GPU %" "$TMP/t.txt" && grep -q "^  fgd " "$TMP/t.txt" || fail "frag text table"
"$FRUGAL" share frag --pods $P --nodes $N --policy gshare --seeds 1 | grep -q "^gshare: .*descent.* (over 16 rollouts" ||
  fail "frag text: gshare's decision"
echo "cli_share_cluster_test: ok"
