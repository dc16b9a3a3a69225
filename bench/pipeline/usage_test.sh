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
exit $fail
