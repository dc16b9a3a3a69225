#!/usr/bin/env bash
# CLI checks for `frugal profile`. Usage: cli_profile_test.sh FRUGAL_BINARY
source "$(dirname "$0")/cli_test_lib.sh" "$1"
"$FRUGAL" profile --list | grep -q "cpu" || fail "--list lacks cpu"

# A small real measurement, written in the shared CSV schema.
"$FRUGAL" profile --op linear,relu --limit 3 --reps 2 --out "$TMP/p" --json >"$TMP/j" 2>"$TMP/e" ||
  fail "profile run: $(cat "$TMP/e")"
python3 - "$TMP/j" <<'PY' || fail "profile --json"
import json, sys
j = json.load(open(sys.argv[1]))
ops = {o["op"]: o for o in j["ops"]}
assert set(ops) == {"linear", "relu"}, ops
assert all(o["shapes"] == 3 and o["median_ms"] > 0 for o in ops.values()), ops
assert j["device"].startswith("cpu:"), j
PY
ls "$TMP"/p/linear/*.csv >/dev/null || fail "no linear CSV"
head -1 "$TMP"/p/linear/*.csv | grep -q "^OPName,Latency,Device,B,M,N,K" || fail "CSV header"

# Re-measuring shapes from an existing timing CSV.
"$FRUGAL" profile --shapes "$TMP/p/relu" --reps 1 --out "$TMP/q" >/dev/null 2>&1 ||
  fail "--shapes from CSV"
[ "$(tail -n +2 "$TMP"/q/relu/*.csv | wc -l)" -eq 3 ] || fail "--shapes count"

# Errors: one line, exit 1.
expect_error 1 "" profile --op warp
expect_error 1 "" profile --backend tpu
expect_error 1 "" profile --reps 0
expect_error 1 "" profile --shapes /nonexistent.csv
printf 'OPName,Latency,Device,B,H\nrelu,abc,cpu,1,2\n' >"$TMP/bad.csv"
expect_error 1 "" profile --shapes "$TMP/bad.csv"
echo "cli_profile_test: all checks passed"
