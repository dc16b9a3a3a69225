#!/usr/bin/env bash
# Flag checks across every verb: a nonsensical number is one error line and
# exit 1; a usage error (unknown flag, missing argument, no number at all)
# is one line and exit 2. Usage: cli_flags_test.sh FRUGAL_BINARY
source "$(dirname "$0")/cli_test_lib.sh" "$1"
C=testdata/cache/tiny.csv
M=models/hf/gpt2_med.json
P="--perf-model roofline"

# cache simulate / speed: bandwidths, threads, repeats.
expect_error 1 "--remote-gbps: must be > 0, got 0" cache simulate $C --remote-gbps 0
expect_error 1 "--cache-gbps: must be > 0, got -1" cache simulate $C --cache-gbps -1
expect_error 1 "--compute-gbps: must be a finite number, got inf" cache simulate $C --compute-gbps inf
expect_error 1 "--threads: must be >= 0, got -1" cache simulate $C --threads -1
expect_error 1 "--repeat: must be >= 1, got 0" cache speed $C --repeat 0
# Every --seed is unsigned: -1 is an error, not 2^64 - 1.
expect_error 1 "--seed: must be an integer >= 0, got -1" cache simulate $C --seed -1
expect_error 1 "--seed: must be an integer >= 0, got -1" share plan testdata/share/jobs_small.json --gpus 2 --seed -1
expect_error 1 "--seed: must be an integer >= 0, got -7" place $M --batch 1 --gpus 2 --seed -7

# perf: training knobs and query dims.
expect_error 1 "--eta: must be > 0, got 0" perf train --out "$TMP/m.ubj" --eta 0
expect_error 1 "--rounds: must be >= 1, got 0" perf train --out "$TMP/m.ubj" --rounds 0
expect_error 1 "--max-depth: must be <= 64" perf eval --max-depth 1000
expect_error 1 "--threads: must be >= 1, got 0" perf eval --threads 0
expect_error 1 "--calibrate: must be >= 0, got -2" perf eval --calibrate -2
expect_error 1 "dimension 'm' does not apply to add (its dims: b h)" perf query add b=4 h=1000 m=3 --gpu T4
expect_error 1 "dimension 'h' does not apply to conv" \
  perf query conv b=1 cin=3 cout=8 kernel=3 image=32 stride=1 padding=1 h=2 --gpu T4
# A linear layer has no batch dim: b=4 is four launches of the op.
"$FRUGAL" perf query linear b=1 m=512 n=1024 k=1024 --gpu T4 $P --json >"$TMP/l1.json" || fail "linear b=1"
"$FRUGAL" perf query linear b=4 m=512 n=1024 k=1024 --gpu T4 --json >"$TMP/l4.json" || fail "linear b=4"
"$FRUGAL" perf query linear b=1 m=512 n=1024 k=1024 --gpu T4 --json >"$TMP/l1l.json" || fail "linear b=1 learned"
python3 - "$TMP" <<'PY' || fail "linear b=4 is 4 x the op"
import json, sys
d = sys.argv[1]
one, four = (json.load(open(f"{d}/{n}.json")) for n in ("l1l", "l4"))
assert four["launches"] == 4 and one["launches"] == 1
assert abs(four["time_ms"] - 4 * one["time_ms"]) < 1e-9 * four["time_ms"], (one, four)
assert four["flops"] == 4 * one["flops"] and four["shape"] == one["shape"]
PY
"$FRUGAL" perf query linear b=4 m=512 n=1024 k=1024 --gpu T4 $P | grep -q "^4 x \[linear b=1 m=512" ||
  fail "linear b=4 text"

# profile.
expect_error 1 "--warmup: must be >= 0, got -1" profile --warmup -1
expect_error 1 "--limit: must be >= 0, got -5" profile --limit -5

# Usage errors: exit 2, one line, in every verb.
expect_error 2 "--no-such-flag" graph show models/resnet50.onnx --no-such-flag
expect_error 2 "--no-such-flag" catalog list --no-such-flag
expect_error 2 "--no-such-flag" perf list --no-such-flag
expect_error 2 "--no-such-flag" predict $M --gpu T4 --batch 1 --no-such-flag
expect_error 2 "--no-such-flag" advise $M --batch 1 --samples 10 --no-such-flag
expect_error 2 "--no-such-flag" profile --no-such-flag
expect_error 2 "--no-such-flag" place testdata/place/diamond.json --gpus 2 --no-such-flag
expect_error 2 "--no-such-flag" cache list --no-such-flag
expect_error 2 "MODEL is required" predict --gpu T4 --batch 1
expect_error 2 "give --samples N or --tokens N" advise $M --batch 1
expect_error 2 "TRACE is required" cache simulate
expect_error 2 "--gpu is required" perf query linear m=1 n=1 k=1
expect_error 2 "--gpus" predict $M --gpu T4 --batch 1 --gpus two
expect_error 2 "excludes" predict $M --gpu T4 --batch 1 --train --infer
expect_error 2 "A subcommand is required" cache

# A word that is no command names itself and the commands there are.
expect_error 2 "frugal: unknown command 'bogus' (commands: graph, catalog," bogus
expect_error 2 "frugal graph: unknown command 'info' (commands: show, convert, formats)" graph info x.onnx
expect_error 2 "frugal share interference: unknown command 'bogus' (commands: fit, eval)" \
  share interference bogus
expect_error 2 "A subcommand is required" graph
echo "cli_flags_test: ok"
