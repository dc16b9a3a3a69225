#!/usr/bin/env bash
# CLI checks for `frugal perf`. Usage: cli_perf_test.sh FRUGAL_BINARY
# Runs from the repository root. Exits 1 on the first failed check. Trains
# only on small generated CSVs, so it takes seconds.
source "$(dirname "$0")/cli_test_lib.sh" "$1"
json_get() {  # json_get FILE EXPR: evaluates EXPR on the document `d`
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# A small profile in the project's schema: two GPUs, three op types.
mkdir -p "$TMP/data"
{
  echo "OPName,Latency (ms),Device,Kernel Name,B,M,N,K"
  for gpu in "Tesla T4:1.0" "Tesla V100-PCIE-32GB:0.4"; do
    awk -v spec="$gpu" 'BEGIN { split(spec, g, ":");
      for (i = 1; i <= 60; i++) { m = 32 * i; n = 64 + 16 * (i % 7); k = 128 + 8 * (i % 5);
        printf "linear,%.6f,%s,\"sgemm<128, 64>\",1,%d,%d,%d\n", 0.02 + g[2] * 2 * m * n * k / 1e10, g[1], m, n, k } }'
  done
} >"$TMP/data/linear.csv"
{
  echo "OPName,Latency (ms),Device,B,H"
  for gpu in "Tesla T4:3.0" "Tesla V100-PCIE-32GB:1.0"; do
    awk -v spec="$gpu" 'BEGIN { split(spec, g, ":");
      for (i = 1; i <= 60; i++) { b = 16 * i; h = 256 + 64 * (i % 9);
        printf "add,%.6f,%s,%d,%d\n", 0.02 + g[2] * 12 * b * h / 1e9, g[1], b, h;
        printf "relu,%.6f,%s,%d,%d\n", 0.02 + g[2] * 8 * b * h / 1e9, g[1], b, h } }'
  done
} >"$TMP/data/elementwise.csv"

# list: the registry table.
"$FRUGAL" perf list >"$TMP/list.txt" || fail "perf list"
for m in roofline ceer learned efficiency; do grep -q "^$m " "$TMP/list.txt" || fail "perf list lacks $m"; done
"$FRUGAL" perf list --json >"$TMP/list.json" || fail "perf list --json"
[ "$(json_get "$TMP/list.json" 'len(d["models"])')" = "4" ] || fail "perf list --json: want 4 models"

# Bad data: one line naming the file and the line, exit 1.
: >"$TMP/empty.csv"
expect_error 1 "empty.csv:1: empty file" perf train --model ceer --data "$TMP/empty.csv" --out "$TMP/m.json"
printf 'OPName,Latency (ms),Device,B,H\nadd,0.1,Tesla T4,4,8\nadd,fast,Tesla T4,4,8\n' >"$TMP/bad.csv"
expect_error 1 "bad.csv:3: latency 'fast'" perf train --model ceer --data "$TMP/bad.csv" --out "$TMP/m.json"
printf 'OPName,Latency (ms),Device,B,H\nadd,0.1,Tesla T4,4\n' >"$TMP/short.csv"
expect_error 1 "short.csv:2: 4 fields" perf eval --model roofline --data "$TMP/short.csv"
printf 'OPName,Latency (ms),Device,B,H\nadd,0.1,Imaginary GPU 9000,4,8\n' >"$TMP/gpu.csv"
expect_error 1 "Imaginary GPU 9000" perf train --model ceer --data "$TMP/gpu.csv" --out "$TMP/m.json"
expect_error 1 "no such file" perf train --model ceer --data "$TMP/nope" --out "$TMP/m.json"
expect_error 1 "unknown op-time model 'magic'" perf train --model magic --data "$TMP/data" --out "$TMP/m.json"
expect_error 1 "unknown op-time model 'magic'" perf eval --model magic --data "$TMP/data"
expect_error 1 "--split must be" perf eval --model roofline --split sometimes --data "$TMP/data"

# Usage errors exit 2.
"$FRUGAL" perf >/dev/null 2>&1; [ $? -eq 2 ] || fail "bare 'perf' should exit 2"
"$FRUGAL" perf train --model ceer >/dev/null 2>&1; [ $? -eq 2 ] || fail "train without --out should exit 2"
"$FRUGAL" perf eval --help >/dev/null 2>&1 || fail "--help should exit 0"

# train -> file -> query through --perf-model.
"$FRUGAL" perf train --model ceer --data "$TMP/data" --out "$TMP/ceer.json" >/dev/null ||
  fail "perf train ceer"
"$FRUGAL" perf query linear m=512 n=512 k=512 --gpu "Tesla T4" --perf-model "$TMP/ceer.json" \
  --json >"$TMP/q.json" || fail "query with a ceer file"
[ "$(json_get "$TMP/q.json" 'd["model"]')" = "ceer" ] || fail "query: model field"
json_get "$TMP/q.json" 'd["time_ms"] > 0' | grep -q True || fail "query: time_ms"
expect_error 1 "ceer has no linear measurements for GPU H100-SXM5-80GB" \
  perf query linear m=512 n=512 k=512 --gpu H100 --perf-model "$TMP/ceer.json"
expect_error 1 "bad dimension 'q=3'" perf query linear q=3 --gpu T4 --perf-model roofline
expect_error 1 "linear: dimension 'm' is required (its dims: b m n k)" perf query linear n=3 k=4 --gpu T4 --perf-model roofline
expect_error 1 "m must be >= 1" perf query linear m=0 n=3 k=4 --gpu T4 --perf-model roofline
expect_error 1 "unknown op 'exp'" perf query exp h=3 --gpu T4 --perf-model roofline
expect_error 1 "dimension 'm=9223372036854775807' is over 16777216 (2^24)" perf query linear m=9223372036854775807 n=1 k=1 --gpu T4 --perf-model roofline
expect_error 1 "dimension 'm' given twice" perf query linear m=1 m=2 n=1 k=1 --gpu T4 --perf-model roofline
expect_error 1 "is over 68719476736 (2^36)" perf query add b=1 h=99999999999999 --gpu T4 --perf-model roofline
expect_error 1 "no-such-gpu" perf query add b=1 h=8 --gpu no-such-gpu --perf-model roofline
expect_error 1 "missing.ubj: no such perf model file" \
  perf query add b=1 h=8 --gpu T4 --perf-model "$TMP/missing.ubj"
echo '{"format": "frugal-perf-model", "model": "learned", "feature_version": 1, "state": {}}' \
  >"$TMP/old.json"
expect_error 1 "feature version" perf query add b=1 h=8 --gpu T4 --perf-model "$TMP/old.json"

"$FRUGAL" perf train --model learned --data "$TMP/data" --out "$TMP/learned.ubj" --rounds 10 \
  --json >"$TMP/t.json" || fail "perf train learned"
[ "$(json_get "$TMP/t.json" 'd["rows"]')" = "360" ] || fail "train: rows"
for gpu in H100 L4 H200 T4; do
  "$FRUGAL" perf query add b=64 h=1024 --gpu "$gpu" --perf-model "$TMP/learned.ubj" --json \
    >"$TMP/q.json" || fail "learned query on $gpu"
  json_get "$TMP/q.json" 'd["time_ms"] > 0' | grep -q True || fail "learned $gpu: time_ms"
done

# A booster fitted without its op's all-missing feature columns names the
# kept ones in the XGBoost attribute frugal_columns; a corrupt list is an
# error naming the file, not a misread row.
"$FRUGAL" perf train --model learned --data "$TMP/data" --out "$TMP/learned.json" --rounds 5 \
  >/dev/null || fail "perf train learned (json)"
grep -q '"frugal_columns": "0,' "$TMP/learned.json" || fail "learned.json lacks frugal_columns"
sed 's/"frugal_columns": "0,/"frugal_columns": "x0,/' "$TMP/learned.json" >"$TMP/badcols.json"
expect_error 1 "badcols.json: learned: booster 'add': malformed frugal_columns" \
  perf query add b=64 h=1024 --gpu T4 --perf-model "$TMP/badcols.json"

# eval: JSON rows for both splits; the file copy matches stdout.
"$FRUGAL" perf eval --model all --data "$TMP/data" --rounds 10 --json --out "$TMP/e/eval.json" \
  >"$TMP/eval.json" || fail "perf eval"
cmp -s "$TMP/eval.json" "$TMP/e/eval.json" || fail "eval --out differs from stdout"
json_get "$TMP/eval.json" \
  'sorted({(r["model"], r["split"]) for r in d["rows"]})' | grep -q "('learned', 'logo')" ||
  fail "eval lacks learned logo rows"
json_get "$TMP/eval.json" \
  '[r for r in d["rows"] if r["model"]=="ceer" and r["split"]=="logo"][0]["error"]' |
  grep -q "ceer has no" || fail "ceer logo rows should carry an error"
"$FRUGAL" perf eval --model roofline --data "$TMP/data" >"$TMP/eval.txt" || fail "eval table"
grep -q "^roofline  linear" "$TMP/eval.txt" || fail "eval table lacks roofline linear"

# eval --calibrate: a "logo-cal" split beside logo; the table gains CAL_ columns.
"$FRUGAL" perf eval --model roofline --split logo --calibrate 5 --data "$TMP/data" --json \
  >"$TMP/evalcal.json" || fail "perf eval --calibrate"
json_get "$TMP/evalcal.json" '[r["median_ape_pct"] for r in d["rows"] if r["split"]=="logo-cal" and r["op"]=="all"][0] < 20' |
  grep -q True || fail "eval --calibrate: calibrated roofline should be within 20%"
"$FRUGAL" perf eval --model roofline --split logo --calibrate 5 --data "$TMP/data" |
  grep -q "CAL_MEDIAN_APE%" || fail "eval --calibrate table lacks CAL_ columns"
expect_error 1 "--calibrate: must be >= 0, got -1" perf eval --model roofline --calibrate -1 --data "$TMP/data"

# calibrate: roofline scaled to the measured T4 rows; the file applies it again.
mkdir -p "$TMP/t4"
grep -h -e "^OPName" -e "Tesla T4" "$TMP/data/linear.csv" >"$TMP/t4/linear.csv"
"$FRUGAL" perf calibrate --perf-model roofline --data "$TMP/t4" --out "$TMP/cal.json" --json \
  >"$TMP/cal_out.json" || fail "perf calibrate"
json_get "$TMP/cal_out.json" 'd["calibration"]["T4"]["linear"]["median_ape_after_pct"] < d["calibration"]["T4"]["linear"]["median_ape_before_pct"]' |
  grep -q True || fail "calibrate: error should drop on the T4 rows"
for f in cal plain; do
  m="$TMP/cal.json"; [ $f = plain ] && m=roofline
  "$FRUGAL" perf query linear m=2048 n=1024 k=1024 --gpu T4 --perf-model "$m" --json >"$TMP/q_$f.json" ||
    fail "query with $f model"
done
python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["time_ms"]; b=json.load(open(sys.argv[2]))["time_ms"]; sys.exit(0 if a > 1.5 * b else 1)' \
  "$TMP/q_cal.json" "$TMP/q_plain.json" || fail "calibrated T4 linear should be slower than roofline"
expect_error 1 "already calibrated" perf calibrate --perf-model "$TMP/cal.json" --data "$TMP/t4" --out "$TMP/x.json"
printf 'OPName,Latency (ms),Device,B,H\nadd,0.1,Tesla T4,4,8\n' >"$TMP/one.csv"
expect_error 1 "at least 3 measured launches" perf calibrate --perf-model roofline --data "$TMP/one.csv" --out "$TMP/x.json"
expect_error 1 "no such file" perf calibrate --perf-model roofline --data "$TMP/nope" --out "$TMP/x.json"
"$FRUGAL" perf calibrate --data "$TMP/t4" >/dev/null 2>&1; [ $? -eq 2 ] || fail "calibrate without --out should exit 2"

# The bundled default model answers out of the box.
if [ -f data/perf/efficiency.ubj ]; then
  "$FRUGAL" perf query bmm b=16 m=512 n=512 k=64 --gpu H100 --json >"$TMP/q.json" ||
    fail "query with the default model"
  [ "$(json_get "$TMP/q.json" 'd["model"]')" = "efficiency" ] || fail "default model is efficiency"
fi
echo "cli_perf_test: ok"
