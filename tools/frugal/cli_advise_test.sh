#!/usr/bin/env bash
# CLI checks for `frugal advise`. Usage: cli_advise_test.sh FRUGAL_BINARY
source "$(dirname "$0")/cli_test_lib.sh" "$1"
M=models/resnet50.onnx
P="--perf-model roofline"

"$FRUGAL" advise $M --batch 32 --samples 1281167 --epochs 90 $P --json >"$TMP/a.json" ||
  fail "advise"
python3 - "$TMP/a.json" <<'PY' || fail "advise --json"
import json, sys
a = json.load(open(sys.argv[1]))
cs = a["configs"]
assert len(cs) > 50, len(cs)
for k in ("instance", "gpu", "gpus", "hours", "cost_usd", "fits", "recommended"):
    assert k in cs[0], k
rec = [c for c in cs if c["recommended"]]
assert len(rec) == 1 and a["recommended"]["instance"] == rec[0]["instance"]
priced = [c for c in cs if c["cost_usd"] is not None and c["fits"]]
assert rec[0]["cost_usd"] == min(c["cost_usd"] for c in priced)
assert a["cheapest_instance_rule"] and a["newest_gpu_rule"]
assert any(c["pareto"] for c in cs)
PY
"$FRUGAL" advise $M --batch 32 --samples 1281167 --epochs 90 --deadline 24 $P --json >"$TMP/d.json" ||
  fail "advise --deadline"
python3 - "$TMP/d.json" <<'PY' || fail "deadline respected"
import json, sys
a = json.load(open(sys.argv[1]))
assert a["recommended"]["hours"] <= 24
PY
"$FRUGAL" advise $M --batch 32 --samples 1281167 --epochs 90 --providers gcp $P --json |
  python3 -c 'import json,sys; a=json.load(sys.stdin); assert all(c["provider"]=="gcp" for c in a["configs"])' ||
  fail "--providers gcp"
"$FRUGAL" advise $M --batch 32 --samples 100000 $P | grep -q "recommended:" || fail "text output"

# Impossible goals: the table still prints (so the user sees the options),
# then one error line and exit 1.
"$FRUGAL" advise $M --batch 32 --samples 1281167 --epochs 90 --deadline 0.001 --budget 0.01 $P \
  >"$TMP/out" 2>"$TMP/err"
[ $? -eq 1 ] || fail "impossible goals: want exit 1"
[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "no configuration meets" "$TMP/err" ||
  fail "impossible goals: stderr $(cat "$TMP/err")"
expect_error 1 "no plan fits: the closest is" advise models/hf/llama2_70b.json --batch 64 --seq 4096 --samples 1000 --max-instances 1 --precision amp-bf16 $P
expect_error 1 "batch" advise $M --batch 0 --samples 1000 $P
expect_error 1 "samples" advise $M --batch 8 --samples -5 $P
expect_error 1 "provider" advise $M --batch 8 --samples 1000 --providers ibm $P
# Families that cannot be priced are listed once, with the reason; the
# configurations counted are the priced ones.
python3 - "$TMP/a.json" <<'PY' || fail "advise: skipped families"
import json, sys
a = json.load(open(sys.argv[1]))
sk = {(s["provider"], s["family"]): s for s in a["skipped"]}
assert ("aws", "g5") in sk and "A10G" in sk[("aws", "g5")]["reason"], a["skipped"]
assert len(sk[("aws", "g5")]["instances"]) == 8
assert all(c["cost_usd"] is not None for c in a["configs"])
skipped = {i for s in a["skipped"] for i in s["instances"]}
assert not skipped & {c["instance"] for c in a["configs"]}
assert len(sk) == len(a["skipped"]), "a family is listed twice"
PY
"$FRUGAL" advise $M --batch 32 --samples 100000 $P >"$TMP/t.out" || fail "advise text"
grep -q "^skipped: aws g5 (8 instance types): A10G cannot be timed" "$TMP/t.out" ||
  fail "advise text: no skipped line for g5"
n=$(grep -c "^skipped: aws g5 " "$TMP/t.out"); [ "$n" -eq 1 ] || fail "g5 skipped $n times"

# A frugal JSON keeps its batch; a profiled graph cannot be re-priced on
# the GPUs advise compares.
"$FRUGAL" graph convert models/hf/bert.json "$TMP/b4.json" --batch 4 --seq 32 >/dev/null 2>&1 ||
  fail "convert bert"
"$FRUGAL" advise "$TMP/b4.json" --samples 100000 $P --json >"$TMP/j.json" || fail "advise frugal JSON"
"$FRUGAL" advise models/hf/bert.json --batch 4 --seq 32 --samples 100000 $P --json >"$TMP/h.json" ||
  fail "advise bert"
python3 - "$TMP" <<'PY' || fail "advise on a frugal JSON prices its own batch"
import json, sys
j, h = (json.load(open(f"{sys.argv[1]}/{n}.json")) for n in ("j", "h"))
assert j["batch_per_gpu"] == 4 and j["mode"] == "training"
assert j["recommended"]["cost_usd"] == h["recommended"]["cost_usd"], (j["recommended"], h["recommended"])
PY
expect_error 1 "built for batch 4; --batch 32 cannot rescale" advise "$TMP/b4.json" --batch 32 --samples 1000 $P
expect_error 1 "advise compares GPUs" advise models/graphs/gnmt_training.json --samples 1000
expect_error 2 "--batch is required" advise $M --samples 1000 $P

# Nonsensical numbers.
expect_error 1 "--deadline: must be > 0, got 0" advise $M --batch 8 --samples 1000 --deadline 0 $P
expect_error 1 "--budget: must be a finite number, got nan" advise $M --batch 8 --samples 1000 --budget nan $P
expect_error 1 "--epochs: must be a finite number, got inf" advise $M --batch 8 --samples 1000 --epochs inf $P
expect_error 1 "--global-batch 1099511627776 is more samples than the whole job trains on (1000000" advise $M --batch 32 --samples 1000000 --global-batch 1099511627776 $P
expect_error 1 "--samples: must be <= 1000000000000000, got 1e300" advise $M --batch 8 --samples 1e300 $P
expect_error 1 "--max-instances: must be >= 1, got 0" advise $M --batch 8 --samples 1000 --max-instances 0 $P
echo "cli_advise_test: all checks passed"
