#!/usr/bin/env bash
# CLI checks for `frugal share interference fit|eval`.
# Usage: cli_share_interference_test.sh FRUGAL_BINARY. Runs from the repository root.
source "$(dirname "$0")/cli_test_lib.sh" "$1"
py() { python3 -c "$@"; }
TINY=testdata/share/gavel_tiny.json
LUCID_TINY=testdata/share/lucid_tiny

# Bad input: one line naming the file and the problem, exit 1.
expect_error 1 "none.json: no such file" share interference eval --data testdata/share/none.json
expect_error 1 "none.json: no such file" share interference fit --data testdata/share/none.json --out "$TMP/m.json"
printf '{"k80": {' >"$TMP/trunc.json"
expect_error 1 "trunc.json: malformed JSON" share interference eval --data "$TMP/trunc.json"
printf '{"k80": {"(%s, 1)": {"null": -2}}, "p100": {}, "v100": {}}' "'A'" >"$TMP/neg.json"
expect_error 1 "neg.json: k80: ('A', 1): solo throughput -2 is not a finite number >= 0" \
  share interference eval --data "$TMP/neg.json" --gpu k80
printf '{"k80": {"(%s, 1)": {"null": 2, "(%s, 1)": [1, "NaN"]}}}' "'A'" "'A'" >"$TMP/nan.json"
expect_error 1 "nan.json: k80: ('A', 1) next to ('A', 1): expected two finite throughputs" \
  share interference eval --data "$TMP/nan.json" --gpu k80
expect_error 1 "unknown Gavel GPU 'a100'" share interference eval --data "$TINY" --gpu a100
expect_error 1 "unknown Gavel GPU 'h100'" share interference fit --data gavel --gpu h100 --out "$TMP/m.json"
mkdir -p "$TMP/lucid_nan" "$TMP/lucid_neg" "$TMP/lucid_short" "$TMP/lucid_missing"
cp "$LUCID_TINY/single_data.csv" "$TMP/lucid_nan/"
sed '3s/0.8,/nan,/' "$LUCID_TINY/colocate_info.csv" >"$TMP/lucid_nan/colocate_info.csv"
expect_error 1 "lucid_nan/colocate_info.csv:3: speed1 'nan' is not a finite number" \
  share interference eval --data "$TMP/lucid_nan"
cp "$LUCID_TINY/colocate_info.csv" "$TMP/lucid_neg/"
sed '4s/,50.0,/,-50.0,/' "$LUCID_TINY/single_data.csv" >"$TMP/lucid_neg/single_data.csv"
expect_error 1 "lucid_neg/single_data.csv:4: speed -50 is negative" \
  share interference eval --data "$TMP/lucid_neg"
cp "$LUCID_TINY/single_data.csv" "$TMP/lucid_short/"
head -2 "$LUCID_TINY/colocate_info.csv" >"$TMP/lucid_short/colocate_info.csv"
echo "9,ToyNetA,Synthetic,1" >>"$TMP/lucid_short/colocate_info.csv"
expect_error 1 "lucid_short/colocate_info.csv:3: expected 16 fields, got 4" \
  share interference eval --data "$TMP/lucid_short"
cp "$LUCID_TINY/colocate_info.csv" "$TMP/lucid_missing/"
expect_error 1 "lucid_missing/single_data.csv: no such file" share interference eval --data "$TMP/lucid_missing"

# Usage errors exit 2; --help exits 0.
"$FRUGAL" share interference >/dev/null 2>&1; [ $? -eq 2 ] || fail "bare 'share interference' should exit 2"
"$FRUGAL" share interference fit --data "$TINY" >/dev/null 2>&1; [ $? -eq 2 ] || fail "fit without --out should exit 2"
"$FRUGAL" share interference eval --data "$LUCID_TINY" --gpu k80 >/dev/null 2>&1
[ $? -eq 2 ] || fail "--gpu with Lucid data should exit 2"
"$FRUGAL" share interference eval --data "$LUCID_TINY" --per-gpu >/dev/null 2>&1
[ $? -eq 2 ] || fail "--per-gpu with Lucid data should exit 2"
"$FRUGAL" share interference eval --bogus >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown flag should exit 2"
"$FRUGAL" share interference eval --help >/dev/null 2>&1 || fail "--help should exit 0"

# eval: the table and the JSON fields, on the tiny Gavel excerpt (3 families on k80).
"$FRUGAL" share interference eval --data "$TINY" --gpu k80 >"$TMP/eval.txt" || fail "eval table"
grep -q "leave-one-family-out over 3 families" "$TMP/eval.txt" || fail "eval header: $(cat "$TMP/eval.txt")"
grep -q "^k80 " "$TMP/eval.txt" || fail "eval lacks the k80 row"
"$FRUGAL" share interference eval --data "$TINY" --gpu k80 --json >"$TMP/eval.json" || fail "eval --json"
py 'import json,sys
j=json.load(open(sys.argv[1]))
assert j["holdout"]=="family" and j["groups"]==["A3C","LM","ResNet-18"], j
r=j["results"][0]
for k in ["gpu","samples","excluded_equal_solo","excluded_infeasible","mae","within_0_1","floor_mae",
          "floor_within_0_1","published_floor","target_mae","ratio_to_floor","met"]: assert k in r, k
assert r["gpu"]=="k80" and r["samples"]==6 and r["excluded_equal_solo"]==1 and r["excluded_infeasible"]==2, r
assert r["published_floor"] is None and 0 <= r["mae"] <= 1.2, r' "$TMP/eval.json" || fail "eval JSON fields"
"$FRUGAL" share interference eval --data "$TINY" --gpu k80 --json >"$TMP/eval2.json"
cmp -s "$TMP/eval.json" "$TMP/eval2.json" || fail "eval is not deterministic"
"$FRUGAL" share interference eval --data "$LUCID_TINY" --json >"$TMP/lucid.json" || fail "eval lucid fixture"
py 'import json,sys; j=json.load(open(sys.argv[1])); assert j["holdout"]=="model" and j["results"][0]["samples"]==6, j' \
  "$TMP/lucid.json" || fail "lucid fixture JSON"

# fit: a model file, byte-identical on a rerun.
"$FRUGAL" share interference fit --data "$TINY" --out "$TMP/m1.json" --json >"$TMP/fit.json" || fail "fit"
"$FRUGAL" share interference fit --data "$TINY" --out "$TMP/m2.json" >/dev/null || fail "fit again"
cmp -s "$TMP/m1.json" "$TMP/m2.json" || fail "fit is not deterministic"
py 'import json,sys; j=json.load(open(sys.argv[1])); assert j["samples"]==8 and j["excluded_infeasible"]==2, j' \
  "$TMP/fit.json" || fail "fit JSON"
py 'import json,sys; j=json.load(open(sys.argv[1])); assert j["format"]=="frugal-interference-v1" and len(j["samples"])==8' \
  "$TMP/m1.json" || fail "model file"

# The shared data sets, when present (Lucid is read from ../shared, never copied).
if [ -f ../shared/data/share/gavel/simulation_throughputs.json ]; then
  "$FRUGAL" share interference eval --data gavel --gpu v100 --json >"$TMP/v100.json" || fail "eval gavel v100"
  py 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; assert r["excluded_equal_solo"]==25 and r["published_floor"]==0.205, r' \
    "$TMP/v100.json" || fail "v100 excluded count"
  # --gpu picks the GPU reported; pooled, its trees still learn from every GPU's pairs.
  "$FRUGAL" share interference eval --data gavel --json >"$TMP/all.json" || fail "eval gavel"
  py 'import json,sys; one=json.load(open(sys.argv[1])); rows={r["gpu"]: r for r in json.load(open(sys.argv[2]))["results"]}
assert one["pool_gpus"] and len(one["results"])==1 and one["results"][0]==rows["v100"], (one["results"], rows["v100"])' \
    "$TMP/v100.json" "$TMP/all.json" || fail "--gpu v100 pooled is the pooled run's v100 row"
else
  echo "skip: ../shared/data/share/gavel absent"
fi
if [ -d ../shared/data/share/lucid ]; then
  "$FRUGAL" share interference eval --data lucid --json >"$TMP/lucid_real.json" || fail "eval lucid"
  py 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; assert r["gpu"]=="lucid" and r["samples"]>1000, r' \
    "$TMP/lucid_real.json" || fail "lucid eval JSON"
else
  echo "skip: ../shared/data/share/lucid absent (non-commercial data, read at run time only)"
fi
echo "cli_share_interference_test: ok"
