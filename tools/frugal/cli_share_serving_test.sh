#!/usr/bin/env bash
# frugal share simulate|plan|workload: outputs, determinism and bad input.
source "$(dirname "$0")/cli_test_lib.sh" "$1"
D=testdata/share

# Policies.
"$FRUGAL" share simulate --list-policies > "$TMP/list" || fail "--list-policies"
for p in exclusive gandiva-pack mps-oblivious mig-static gshare; do
  grep -q "^  $p " "$TMP/list" || fail "--list-policies lacks $p"
done

# plan: per GPU the jobs, mechanism, shares, p99, speed; JSON fields.
"$FRUGAL" share plan $D/jobs_small.json --gpus 4 --json > "$TMP/plan.json" || fail "plan --json"
python3 - "$TMP/plan.json" <<'PY' || fail "plan JSON fields"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["policy"] == "gshare" and p["gpus_allowed"] == 4, p
assert 1 <= p["gpus_used"] <= 4
names = set()
for g in p["gpus"]:
    assert g["mechanism"] in ("exclusive", "time-slice", "mps", "mig"), g
    for j in g["jobs"]:
        names.add(j["name"])
        if j["kind"] == "service":
            assert j["predicted_p99_ms"] <= j["slo_p99_ms"], j
        else:
            assert 0 < j["training_speed"] <= 1, j
assert names | {u["name"] for u in p["unschedulable"]} == {"resnet", "mobilenet", "replay", "vgg", "mob"}
PY
"$FRUGAL" share plan $D/jobs_small.json --gpus 4 > "$TMP/plan.txt" || fail "plan"
grep -q "^GPU 0 " "$TMP/plan.txt" || fail "plan table lacks GPU 0"

# A job that fits no GPU is an unschedulable outcome, not an error.
"$FRUGAL" share plan $D/jobs_too_big.json --gpus 4 --gpu T4 --json > "$TMP/big.json" || fail "plan too big"
python3 - "$TMP/big.json" <<'PY' || fail "unschedulable outcome"
import json, sys
p = json.load(open(sys.argv[1]))
u = {x["name"]: x for x in p["unschedulable"]}
assert u["vgg"]["outcome"] == "unschedulable" and "GiB" in u["vgg"]["reason"], u
PY

# simulate: deterministic for a seed, JSON fields.
"$FRUGAL" share simulate $D/jobs_small.json --policy exclusive,gshare --seed 3 --json > "$TMP/s1.json" || fail "simulate"
"$FRUGAL" share simulate $D/jobs_small.json --policy exclusive,gshare --seed 3 --json > "$TMP/s2.json" || fail "simulate again"
cmp -s "$TMP/s1.json" "$TMP/s2.json" || fail "simulate is not deterministic"
python3 - "$TMP/s1.json" <<'PY' || fail "simulate JSON fields"
import json, sys
s = json.load(open(sys.argv[1]))
r = {x["policy"]: x for x in s["results"]}
assert set(r) == {"exclusive", "gshare"}
for x in r.values():
    for k in ("gpu_hours", "peak_gpus", "gpus_by_hour", "over_slo_pct", "requests",
              "mean_training_speed", "migrations", "services", "unschedulable"):
        assert k in x, k
assert r["gshare"]["gpu_hours"] <= r["exclusive"]["gpu_hours"] + 1e-9
assert abs(r["exclusive"]["mean_training_speed"] - 1) < 1e-9
assert len(r["exclusive"]["services"]) == 3
PY
"$FRUGAL" share simulate $D/jobs_small.json --policy gshare --gpus 2 > "$TMP/sim.txt" || fail "simulate --gpus"
grep -q "gshare" "$TMP/sim.txt" || fail "simulate table"

# workload: writes JOBS.json that plan reads back; same seed, same bytes.
if [ -f ../shared/data/traces/alibaba-gpu-v2023/openb_pod_list_default.csv ]; then
  "$FRUGAL" share workload --workload mixed --seed 5 --services 3 --training-per-hour 1 \
    --out "$TMP/w1.json" 2>/dev/null || fail "workload"
  "$FRUGAL" share workload --workload mixed --seed 5 --services 3 --training-per-hour 1 \
    > "$TMP/w2.json" || fail "workload to stdout"
  cmp -s "$TMP/w1.json" "$TMP/w2.json" || fail "workload is not deterministic"
  grep -q '"format": "frugal-share-jobs"' "$TMP/w1.json" || fail "workload format"
  "$FRUGAL" share plan "$TMP/w1.json" --gpus 8 > /dev/null || fail "plan of a generated workload"
fi
expect_error 1 "no/such.csv" share workload --workload mixed --trace no/such.csv
expect_error 1 "leave the mixed workload without jobs" share workload --workload mixed --services 0 --training-per-hour 0 --out "$TMP/w0.json"
[ ! -e "$TMP/w0.json" ] || fail "an empty mixed workload was written"
# Flags of the generator cannot apply to a JOBS.json; a precision must be one.
expect_error 2 "--services applies to --workload mixed" share simulate $D/jobs_small.json --services 3
expect_error 2 "--trace applies to --workload mixed" share simulate $D/jobs_small.json --trace /dev/zero
expect_error 2 "unknown --precision 'bogus'" share plan $D/jobs_small.json --gpus 2 --precision bogus

# Bad input: one line naming the file and the problem.
expect_error 1 "jobs_malformed.json:4: malformed JSON" share plan $D/jobs_malformed.json --gpus 2
echo '{"horizon_s": 7777777777777777777e755}' > "$TMP/overflow.json"
expect_error 1 "overflow.json:1: malformed JSON" share plan "$TMP/overflow.json" --gpus 2
expect_error 1 "\$.services[0].arrivals.rate_rps" share plan $D/jobs_negative_rate.json --gpus 2
expect_error 1 "\$.training[0].duration_s" share simulate $D/jobs_negative_duration.json
expect_error 1 "unknown model 'resnet5000'" share plan $D/jobs_unknown_model.json --gpus 2
expect_error 1 "service mobilenet: SLO" share simulate $D/jobs_impossible_slo.json
expect_error 1 "unknown GPU" share plan $D/jobs_small.json --gpus 2 --gpu NOPE
# A target flag no chosen policy reads is a usage error, not ignored.
expect_error 2 "apply only to gshare and mig-static" share simulate $D/jobs_small.json \
  --policy exclusive,gandiva-pack --min-speed 0.5
expect_error 2 "apply only to gshare and mig-static" share plan $D/jobs_small.json --gpus 2 \
  --policy exclusive --slo-headroom 0.8
"$FRUGAL" share plan $D/jobs_small.json --gpus 2 --policy mig-static --min-speed 0.5 > /dev/null \
  || fail "--min-speed with mig-static"
expect_error 1 "unknown sharing policy 'nope'" share simulate $D/jobs_small.json --policy gshare,nope
expect_error 1 "no_such.json" share plan $TMP/no_such.json --gpus 2
expect_error 2 "JOBS.json or --workload" share simulate
expect_error 2 "not both" share simulate $D/jobs_small.json --workload mixed
expect_error 1 "unknown --workload" share simulate --workload nope
expect_error 2 "--gpus" share plan $D/jobs_small.json
# Bounded work: too many requests or too long a horizon is an error, not an OOM or a hang.
sed -e 's/"rate_rps": 20/"rate_rps": 99999/' -e "s|times_small.txt|$PWD/$D/times_small.txt|" $D/jobs_small.json > "$TMP/flood.json"
expect_error 1 "at most 100 M a service are simulated" share simulate "$TMP/flood.json"
# plan simulates no day: the same file plans (the service is unschedulable or placed).
"$FRUGAL" share plan "$TMP/flood.json" --gpus 2 >/dev/null || fail "plan of a busy service"
sed -e 's/"horizon_s": 7200/"horizon_s": 1e12/' -e "s|times_small.txt|$PWD/$D/times_small.txt|" $D/jobs_small.json > "$TMP/long.json"
expect_error 1 "\$.horizon_s: above a year" share plan "$TMP/long.json" --gpus 2
# A mechanism the GPU lacks: a named policy is an error, `all` leaves it out with a note.
expect_error 1 "policy mig-static cannot run: T4 has no MIG" share plan $D/jobs_small.json --gpus 2 --gpu T4 --policy mig-static
expect_error 1 "policy mps-oblivious cannot run: K80 (kepler) has no MPS SM limits" \
  share plan $D/jobs_small.json --gpus 2 --gpu K80 --policy mps-oblivious
"$FRUGAL" share plan $D/jobs_small.json --gpus 8 --gpu K80 --json >"$TMP/k80.json" || fail "gshare on K80"
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert all(g["mechanism"]!="mps" for g in p["gpus"]), p' "$TMP/k80.json" \
  || fail "gshare uses no MPS shares on a K80"
expect_error 2 "--interference prices co-located jobs" \
  share plan $D/jobs_small.json --gpus 2 --policy exclusive --interference analytic
echo "cli_share_serving_test: ok"
