#!/usr/bin/env bash
# CLI checks for `frugal perf score`. Usage: cli_perf_score_test.sh FRUGAL_BINARY
# Runs from the repository root. Exits 1 on the first failed check. Uses the
# roofline model (no file) and a ceer model trained on a tiny generated CSV,
# so it takes a second or two.
source "$(dirname "$0")/cli_test_lib.sh" "$1"
json_get() {  # json_get FILE EXPR: evaluates EXPR on the document `d`
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
H='OPName,Latency (ms),Device,B,H'

# Good data: add and relu on two GPUs, linear on one; extra columns ignored.
mkdir -p "$TMP/data/sub"
{
  echo "OPName,Latency (ms),Device,Kernel Name,B,H"
  for gpu in "Tesla T4" "Tesla V100-PCIE-32GB"; do
    awk -v g="$gpu" 'BEGIN { for (i = 1; i <= 20; i++) {
      printf "add,%.6f,%s,\"vectorized<4, add>\",%d,%d\n", 0.01 + 0.001 * i, g, 16 * i, 512;
      printf "relu,%.6f,%s,relu_kernel,%d,%d\n", 0.01 + 0.0008 * i, g, 16 * i, 512 } }'
  done
} >"$TMP/data/elementwise.csv"
{
  echo "OPName,Latency,Device,B,M,N,K"
  awk 'BEGIN { for (i = 1; i <= 15; i++) printf "linear,%.6f,Tesla T4,1,%d,256,256\n", 0.02 + 0.01 * i, 64 * i }'
} >"$TMP/data/sub/linear.csv"
rows_in=$((40 * 2 + 15))

# Bad data: one stderr line naming the file (and the line), exit 1.
expect_error 1 "$TMP/nope.csv: no such file" perf score --perf-model roofline --data "$TMP/nope.csv"
: >"$TMP/empty.csv"
expect_error 1 "empty.csv:1: empty file" perf score --perf-model roofline --data "$TMP/empty.csv"
printf '\n\n' >"$TMP/blank.csv"
expect_error 1 "blank.csv:" perf score --perf-model roofline --data "$TMP/blank.csv"
echo "$H" >"$TMP/header.csv"
expect_error 1 "header.csv:2: no data rows" perf score --perf-model roofline --data "$TMP/header.csv"
printf 'OPName,Device,B,H\nadd,Tesla T4,4,8\n' >"$TMP/nolat.csv"
expect_error 1 "nolat.csv:1: header lacks the 'Latency (ms)' column" \
  perf score --perf-model roofline --data "$TMP/nolat.csv"
printf 'OPName,Latency (ms),B,H\nadd,0.1,4,8\n' >"$TMP/nodev.csv"
expect_error 1 "nodev.csv:1: header lacks the 'Device' column" \
  perf score --perf-model roofline --data "$TMP/nodev.csv"
printf 'Latency (ms),Device,B,H\n0.1,Tesla T4,4,8\n' >"$TMP/noop.csv"
expect_error 1 "noop.csv:1: header lacks the 'OPName' column" \
  perf score --perf-model roofline --data "$TMP/noop.csv"
printf 'OPName,Latency (ms),Device,B\nadd,0.1,Tesla T4,4\n' >"$TMP/noshape.csv"
expect_error 1 "noshape.csv:2: header lacks the 'H' column that add needs" \
  perf score --perf-model roofline --data "$TMP/noshape.csv"
printf '%s\nadd,0.1,Tesla T4,4,8\nadd,0.1,Tesla T4,4\n' "$H" >"$TMP/short.csv"
expect_error 1 "short.csv:3: 4 fields, header has 5" perf score --perf-model roofline --data "$TMP/short.csv"
printf '%s\nadd,0.1,Tesla T4,4,8,9\n' "$H" >"$TMP/long.csv"
expect_error 1 "long.csv:2: 6 fields, header has 5" perf score --perf-model roofline --data "$TMP/long.csv"
printf '%s\nadd,0.1,Tesla T4,4,8\nadd,0,Tesla T4,4,8\n' "$H" >"$TMP/zero.csv"
expect_error 1 "zero.csv:3: latency '0' is not a positive number" \
  perf score --perf-model roofline --data "$TMP/zero.csv"
printf '%s\nadd,-0.5,Tesla T4,4,8\n' "$H" >"$TMP/neg.csv"
expect_error 1 "neg.csv:2: latency '-0.5' is not a positive number" \
  perf score --perf-model roofline --data "$TMP/neg.csv"
printf '%s\nadd,fast,Tesla T4,4,8\n' "$H" >"$TMP/garbage.csv"
expect_error 1 "garbage.csv:2: latency 'fast' is not a positive number" \
  perf score --perf-model roofline --data "$TMP/garbage.csv"
printf '%s\nadd,nan,Tesla T4,4,8\n' "$H" >"$TMP/nan.csv"
expect_error 1 "nan.csv:2: latency 'nan'" perf score --perf-model roofline --data "$TMP/nan.csv"
printf '%s\nadd,0.1,Tesla T4,0,8\n' "$H" >"$TMP/dim.csv"
expect_error 1 "dim.csv:2: B '0' is not an integer >= 1" perf score --perf-model roofline --data "$TMP/dim.csv"
printf '%s\nadd,0.1,Tesla T4,4,8\nfrobnicate,0.1,Tesla T4,4,8\n' "$H" >"$TMP/op.csv"
expect_error 1 "op.csv:3: unknown OPName 'frobnicate'" perf score --perf-model roofline --data "$TMP/op.csv"
printf '%s\nadd,0.1,"Tesla T4,4,8\n' "$H" >"$TMP/quote.csv"
expect_error 1 "quote.csv:2: unterminated quoted field" perf score --perf-model roofline --data "$TMP/quote.csv"
printf '%s\nadd,0.1,Tesla T4,4,8\nadd,0.1,Imaginary GPU 9000,4,8\n' "$H" >"$TMP/gpu.csv"
expect_error 1 "gpu.csv:3:" perf score --perf-model roofline --data "$TMP/gpu.csv"
grep -qF "Imaginary GPU 9000" "$TMP/err" || fail "unknown GPU: error lacks the device: $(cat "$TMP/err")"
# In a folder, the error names the file inside it.
mkdir -p "$TMP/baddir"
cp "$TMP/data/elementwise.csv" "$TMP/baddir/a.csv"
cp "$TMP/gpu.csv" "$TMP/baddir/b.csv"
expect_error 1 "baddir/b.csv:3:" perf score --perf-model roofline --data "$TMP/baddir"
mkdir -p "$TMP/nocsv"
echo "not a csv" >"$TMP/nocsv/readme.txt"
expect_error 1 "nocsv: no .csv files" perf score --perf-model roofline --data "$TMP/nocsv"
# Special files: rejected at once, never read (a FIFO would block).
expect_error 1 "/dev/null: is a character device" perf score --perf-model roofline --data /dev/null
mkfifo "$TMP/fifo.csv"
timeout 10 "$FRUGAL" perf score --perf-model roofline --data "$TMP/fifo.csv" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 1 ] || fail "FIFO: exit $rc, want 1 ($(cat "$TMP/err"))"
grep -qF "fifo.csv: is a FIFO" "$TMP/err" || fail "FIFO: $(cat "$TMP/err")"
# Models.
expect_error 1 "$TMP/nomodel.ubj: no such perf model file or model name" \
  perf score --perf-model "$TMP/nomodel.ubj" --data "$TMP/data"
echo "this is not a model" >"$TMP/garbage.json"
expect_error 1 "garbage.json" perf score --perf-model "$TMP/garbage.json" --data "$TMP/data"
printf '\x00\x01\x02garbage' >"$TMP/garbage.ubj"
expect_error 1 "garbage.ubj" perf score --perf-model "$TMP/garbage.ubj" --data "$TMP/data"
echo '{"format": "frugal-perf-model", "model": "magic"}' >"$TMP/magic.json"
expect_error 1 "magic.json" perf score --perf-model "$TMP/magic.json" --data "$TMP/data"
# --out into a folder that does not exist.
expect_error 1 "$TMP/no/dir/p.csv" perf score --perf-model roofline --data "$TMP/data" --out "$TMP/no/dir/p.csv"

# Usage errors exit 2; --help exits 0.
"$FRUGAL" perf score >/dev/null 2>&1; [ $? -eq 2 ] || fail "score without --data should exit 2"
"$FRUGAL" perf score --data "$TMP/data" --bogus >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown flag should exit 2"
"$FRUGAL" perf score --help >"$TMP/help.txt" 2>&1 || fail "--help should exit 0"
for flag in --data --perf-model --json --out --catalog; do
  grep -qF -- "$flag" "$TMP/help.txt" || fail "--help lacks $flag"
done

# Table output: one line per (op, GPU), the op's pooled line, the overall line.
"$FRUGAL" perf score --perf-model roofline --data "$TMP/data" >"$TMP/table.txt" 2>"$TMP/err" ||
  fail "score table: $(cat "$TMP/err")"
head -1 "$TMP/table.txt" | grep -q "^OP *GPU *ROWS *MEDIAN_APE% *P90_APE% *MEDIAN_BIAS%" ||
  fail "table header: $(head -1 "$TMP/table.txt")"
grep -Eq "^linear +T4 +15 " "$TMP/table.txt" || fail "table lacks linear/T4: $(cat "$TMP/table.txt")"
grep -Eq "^add +all +40 " "$TMP/table.txt" || fail "table lacks add/all"
grep -Eq "^all +all +$rows_in " "$TMP/table.txt" || fail "table lacks the overall row"
grep -q "not priced" "$TMP/table.txt" && fail "roofline prices every row"
grep -q "scored $rows_in rows" "$TMP/table.txt" || fail "table footer"

# JSON fields.
"$FRUGAL" perf score --perf-model roofline --data "$TMP/data" --json >"$TMP/s.json" ||
  fail "score --json"
[ "$(json_get "$TMP/s.json" 'd["priced_rows"]')" = "$rows_in" ] || fail "json priced_rows"
[ "$(json_get "$TMP/s.json" 'd["uncovered_rows"]')" = "0" ] || fail "json uncovered_rows"
[ "$(json_get "$TMP/s.json" 'd["rows_in"]')" = "$rows_in" ] || fail "json rows_in"
[ "$(json_get "$TMP/s.json" 'd["model"]')" = "roofline" ] || fail "json model"
[ "$(json_get "$TMP/s.json" 'len(d["uncovered"])')" = "0" ] || fail "json uncovered"
# add, relu: 2 GPUs + all each; linear: T4; overall.
[ "$(json_get "$TMP/s.json" 'len(d["rows"])')" = "8" ] || fail "json rows: $(cat "$TMP/s.json")"
[ "$(json_get "$TMP/s.json" 'sorted(d["rows"][0].keys())')" = \
  "['gpu', 'median_ape_pct', 'median_bias_pct', 'n', 'op', 'p90_ape_pct']" ] || fail "json row fields"
[ "$(json_get "$TMP/s.json" '[r["op"] for r in d["rows"]]')" = \
  "['linear', 'add', 'add', 'add', 'relu', 'relu', 'relu', 'all']" ] || fail "json row order"
[ "$(json_get "$TMP/s.json" 'all(r["p90_ape_pct"] >= r["median_ape_pct"] >= 0 for r in d["rows"])')" = "True" ] ||
  fail "json: p90 below median"

# Deterministic: same input, same output (the timing field aside).
"$FRUGAL" perf score --perf-model roofline --data "$TMP/data" --json >"$TMP/s2.json" || fail "score again"
[ "$(json_get "$TMP/s.json" 'json.dumps({k: v for k, v in d.items() if k != "seconds"})')" = \
  "$(json_get "$TMP/s2.json" 'json.dumps({k: v for k, v in d.items() if k != "seconds"})')" ] ||
  fail "score is not deterministic"

# --out: a header plus one line per input row, in input order.
"$FRUGAL" perf score --perf-model roofline --data "$TMP/data" --out "$TMP/pred.csv" >/dev/null ||
  fail "score --out"
[ "$(wc -l <"$TMP/pred.csv")" -eq $((rows_in + 1)) ] || fail "--out: $(wc -l <"$TMP/pred.csv") lines"
head -1 "$TMP/pred.csv" | grep -q "^file,line,OPName,Device,gpu,shape,Latency,predicted_ms,ape_pct$" ||
  fail "--out header: $(head -1 "$TMP/pred.csv")"
sed -n 2p "$TMP/pred.csv" | grep -q "elementwise.csv\",2,add,\"Tesla T4\",\"T4\"," ||
  fail "--out first row: $(sed -n 2p "$TMP/pred.csv")"
tail -1 "$TMP/pred.csv" | grep -q "linear.csv\",16,linear," || fail "--out last row: $(tail -1 "$TMP/pred.csv")"
python3 - "$TMP/pred.csv" <<'EOF' || fail "--out is not a well-formed CSV with predictions"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert all(float(r["predicted_ms"]) > 0 and float(r["ape_pct"]) >= 0 for r in rows), rows[0]
EOF
# A path with a quote and a comma stays one well-formed CSV field.
mkdir -p "$TMP/odd\"dir,x"
cp "$TMP/data/sub/linear.csv" "$TMP/odd\"dir,x/l.csv"
"$FRUGAL" perf score --perf-model roofline --data "$TMP/odd\"dir,x" --out "$TMP/odd.csv" >/dev/null ||
  fail "score --out, odd path"
python3 - "$TMP/odd.csv" "$TMP/odd\"dir,x/l.csv" <<'EOF' || fail "--out: odd path not quoted: $(sed -n 2p "$TMP/odd.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 15 and all(r["file"] == sys.argv[2] for r in rows), rows[0]
EOF

# Uncovered groups: ceer trained on T4 add rows prices neither V100 nor relu;
# those rows are counted and reported, the exit code stays 0.
printf '%s\n' "$H" >"$TMP/train.csv"
awk 'BEGIN { for (i = 1; i <= 20; i++) printf "add,%.6f,Tesla T4,%d,512\n", 0.01 + 0.001 * i, 16 * i }' \
  >>"$TMP/train.csv"
"$FRUGAL" perf train --model ceer --data "$TMP/train.csv" --out "$TMP/ceer.json" >/dev/null 2>&1 ||
  fail "perf train ceer"
"$FRUGAL" perf score --perf-model "$TMP/ceer.json" --data "$TMP/data" >"$TMP/unc.txt" 2>"$TMP/err" ||
  fail "score with uncovered groups should exit 0: $(cat "$TMP/err")"
grep -Eq "^add +T4 +20 " "$TMP/unc.txt" || fail "ceer: add/T4 priced: $(cat "$TMP/unc.txt")"
grep -q "not priced: 20 rows of add on V100-PCIE-32GB: ceer has no add measurements for GPU V100-PCIE-32GB" \
  "$TMP/unc.txt" || fail "ceer: add/V100 not reported: $(cat "$TMP/unc.txt")"
grep -q "not priced: 20 rows of relu on T4" "$TMP/unc.txt" || fail "ceer: relu/T4 not reported"
grep -q "not priced: 15 rows of linear on T4" "$TMP/unc.txt" || fail "ceer: linear/T4 not reported"
"$FRUGAL" perf score --perf-model "$TMP/ceer.json" --data "$TMP/data" --json \
  --out "$TMP/unc.csv" >"$TMP/unc.json" || fail "score --json with uncovered groups"
[ "$(json_get "$TMP/unc.json" 'd["priced_rows"]')" = "20" ] || fail "json priced_rows (ceer)"
[ "$(json_get "$TMP/unc.json" 'd["uncovered_rows"]')" = "$((rows_in - 20))" ] || fail "json uncovered_rows (ceer)"
[ "$(json_get "$TMP/unc.json" 'd["priced_rows"] + d["uncovered_rows"] == d["rows_in"]')" = "True" ] ||
  fail "json: priced + uncovered != rows_in"
[ "$(json_get "$TMP/unc.json" 'sorted(d["uncovered"][0].keys())')" = "['gpu', 'n', 'op', 'reason']" ] ||
  fail "json uncovered fields"
[ "$(json_get "$TMP/unc.json" '[(u["op"], u["gpu"], u["n"]) for u in d["uncovered"]]')" = \
  "[('linear', 'T4', 15), ('add', 'V100-PCIE-32GB', 20), ('relu', 'T4', 20), ('relu', 'V100-PCIE-32GB', 20)]" ] ||
  fail "json uncovered groups: $(json_get "$TMP/unc.json" 'd["uncovered"]')"
[ "$(wc -l <"$TMP/unc.csv")" -eq $((rows_in + 1)) ] || fail "--out keeps unpriced rows"
[ "$(grep -c ',,$' "$TMP/unc.csv")" -eq $((rows_in - 20)) ] || fail "--out: unpriced rows have empty predictions"

echo "cli_perf_score_test: all checks passed"
