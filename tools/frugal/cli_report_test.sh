#!/usr/bin/env bash
# `frugal report` and `frugal demo`'s argument handling: a report from every
# kind of result, --json, and bad input (one stderr line, exit 1; usage
# errors exit 2). The demo itself runs in browser_report_test.
source "$(dirname "$0")/cli_test_lib.sh"
D=testdata/report
ALL=("$D"/advise.json "$D"/predict.json "$D"/predict_generation.json "$D"/perf_score.json "$D"/place.json "$D"/schedule.json
  "$D"/share_frag.json "$D"/share_simulate.json "$D"/cache_simulate.json "$D"/pipeline.json)

"$FRUGAL" report "${ALL[@]}" --out "$TMP/r" >"$TMP/out" || fail "report of every kind"
[ -s "$TMP/r/index.html" ] || fail "no index.html"
grep -q "^wrote $TMP/r/index.html" "$TMP/out" || fail "report did not say what it wrote: $(cat "$TMP/out")"
grep -q "^Pesto: gnmt_training on 4 GPUs" "$TMP/out" || fail "no Pesto headline: $(cat "$TMP/out")"
for id in ceer pesto gshare smartcache; do
  grep -q "<section class=\"system\" id=\"$id\">" "$TMP/r/index.html" || fail "no $id section"
done
"$FRUGAL" report "$D"/place.json --out "$TMP/r2" --json >"$TMP/j" || fail "report --json"
python3 - "$TMP/j" "$TMP/r2/index.html" <<'PY' || fail "report --json fields"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["report"] == sys.argv[2], j
assert j["sections"] == ["pesto"], j
assert j["headlines"] and j["headlines"][0].startswith("Pesto:"), j
PY
cmp -s "$TMP/r2/index.html" <("$FRUGAL" report "$D"/place.json --out "$TMP/r3" >/dev/null && cat "$TMP/r3/index.html") \
  || fail "same input, different report"
"$FRUGAL" report --help | grep -q "share-simulate" || fail "--help does not list the input kinds"

printf '{"configs": [1, ' >"$TMP/truncated.json"
echo '{"hello": "world"}' >"$TMP/foreign.json"
echo '{"configs": 5, "recommended": null, "plans_priced": 1}' >"$TMP/mistyped.json"
echo x >"$TMP/file"
expect_error 1 "$TMP/missing.json" report "$TMP/missing.json" --out "$TMP/x"
expect_error 1 "$TMP/truncated.json" report "$D"/place.json "$TMP/truncated.json" --out "$TMP/x"
expect_error 1 "not a result frugal report reads" report "$TMP/foreign.json" --out "$TMP/x"
expect_error 1 "not a valid advise result" report "$TMP/mistyped.json" --out "$TMP/x"
expect_error 1 "$TMP" report "$TMP" --out "$TMP/x"
expect_error 1 "/dev/zero" report /dev/zero --out "$TMP/x"
expect_error 1 "cannot create the report directory" report "$D"/place.json --out "$TMP/file"
expect_error 2 "RESULTS" report --out "$TMP/x"
[ ! -e "$TMP/x" ] || fail "a failed report left a directory behind"

expect_error 1 "cannot create the output directory" demo --out "$TMP/file/sub"
expect_error 1 "--jobs" demo --jobs 0 --out "$TMP/d"
expect_error 2 "extra" demo extra --out "$TMP/d"
echo "cli_report_test: ok"
