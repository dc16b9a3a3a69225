#!/usr/bin/env bash
# CLI checks for `frugal share extender` against a stand-in API server
# (fake_kube_api.py serving testdata/share/k8s_cluster.json): --check's
# cluster view, the extender protocol over HTTP (filter, prioritize, bind
# annotating and binding the pod), shutdown on SIGTERM, and bad input.
# Usage: cli_share_extender_test.sh FRUGAL_BINARY. Runs from the repository root.
source "$(dirname "$0")/cli_test_lib.sh" "$1"
W=testdata/share/tiny_pods.csv
CLUSTER=testdata/share/k8s_cluster.json
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null; rm -rf "$TMP"' EXIT

python3 "$(dirname "$0")/fake_kube_api.py" "$CLUSTER" "$TMP/state.json" >"$TMP/api.port" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$TMP/api.port" ] && break; sleep 0.1; done
API="http://127.0.0.1:$(head -1 "$TMP/api.port")"

# --check: the cluster as the extender sees it. bert-serve-0/1 hold 750
# milli of GPU 0 on gpu-v100-0, resnet-train GPUs 0-3 of gpu-v100-1; the
# finished pod on gpu-t4-1 holds nothing.
"$FRUGAL" share extender --check --json --api "$API" --workload $W >"$TMP/check.json" 2>"$TMP/err" ||
  fail "extender --check: $(cat "$TMP/err")"
python3 - "$TMP/check.json" <<'PY' || fail "extender --check --json"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["policy"] == "fgd" and j["filter"] == "best", j
assert j["gpus"] == 23 and len(j["nodes"]) == 6, j
n = {x["name"]: x for x in j["nodes"]}
assert n["gpu-v100-0"]["gpu_milli_free"] == [250] + [1000] * 7, n["gpu-v100-0"]
assert n["gpu-v100-0"]["cpu_milli_free"] == 96000 - 8000
assert n["gpu-v100-1"]["gpu_milli_free"] == [0] * 4 + [1000] * 4
assert n["gpu-t4-1"]["gpu_milli_free"] == [1000] * 4
assert n["gpu-a10-0"]["schedulable"] is False
assert n["cpu-0"]["cpu_milli_free"] == 64000 - 8000
assert abs(j["unallocated_gpu_pct"] - 100 * (23 - 4.75) / 23) < 1e-9, j["unallocated_gpu_pct"]
PY
"$FRUGAL" share extender --check --api "$API" --workload $W >"$TMP/check.txt" 2>"$TMP/err" ||
  fail "extender --check (text)"
grep -q "6 nodes, 23 GPUs; unallocated 79.35 %" "$TMP/check.txt" || fail "check text: $(cat "$TMP/check.txt")"
grep -q "^gpu-a10-0 .*cordoned" "$TMP/check.txt" || fail "check text lacks the cordoned node"

# The extender protocol over HTTP, as kube-scheduler calls it.
"$FRUGAL" share extender --api "$API" --workload $W --listen 127.0.0.1:0 2>"$TMP/log" &
EXT=$!
PIDS+=($EXT)
for _ in $(seq 100); do grep -q "serving http" "$TMP/log" && break; sleep 0.1; done
URL="$(grep -o 'serving http://[0-9.:]*' "$TMP/log" | head -1 | cut -d' ' -f2)"
[ -n "$URL" ] || fail "extender did not start: $(cat "$TMP/log")"
python3 - "$URL" "$CLUSTER" "$TMP/state.json" <<'PY' || fail "extender protocol"
import json, sys, urllib.request
url, cluster, state = sys.argv[1:]
def post(path, body):
    req = urllib.request.Request(url + path, json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req, timeout=10))
assert urllib.request.urlopen(url + "/healthz", timeout=10).read() == b"ok"
c = json.load(open(cluster))
pods = {p["metadata"]["name"]: p for p in c["pods"]["items"]}
names = [n["metadata"]["name"] for n in c["nodes"]["items"]]
# whisper (300 milli) goes where FGD says; llm-ft (2 whole V100s) only on V100 nodes.
f = post("/scheduler/filter", {"Pod": pods["whisper"], "NodeNames": names})
assert f["nodenames"], f
u = f["failedAndUnresolvableNodes"]
assert u["gpu-a10-0"] == "node is cordoned (spec.unschedulable)", f
assert u["cpu-0"] == "node has no GPUs", f
pr = post("/scheduler/prioritize", {"Pod": pods["whisper"], "NodeNames": names})
assert len(pr) == 6 and max(h["score"] for h in pr) == 10, pr
b = post("/scheduler/bind", {"PodName": "whisper", "PodNamespace": "ml",
                             "PodUID": pods["whisper"]["metadata"]["uid"], "Node": f["nodenames"][0]})
assert b == {}, b
f2 = post("/scheduler/filter", {"Pod": pods["llm-ft"], "NodeNames": names})
assert set(f2["nodenames"]) <= {"gpu-v100-0", "gpu-v100-1"} and f2["nodenames"], f2
assert "not one the pod accepts" in f2["failedAndUnresolvableNodes"]["gpu-t4-0"], f2
b2 = post("/scheduler/bind", {"PodName": "llm-ft", "PodNamespace": "ml",
                              "PodUID": pods["llm-ft"]["metadata"]["uid"], "Node": f2["nodenames"][0]})
assert b2 == {}, b2
# Binding an already bound pod is the API server's conflict, passed on.
b3 = post("/scheduler/bind", {"PodName": "llm-ft", "PodNamespace": "ml", "Node": f2["nodenames"][0]})
assert "error" in b3, b3
s = {p["metadata"]["name"]: p for p in json.load(open(state))["pods"]}
w = s["whisper"]
assert w["spec"]["nodeName"] == f["nodenames"][0], w
assert len(w["metadata"]["annotations"]["alibabacloud.com/gpu-index"].split("-")) == 1, w
l = s["llm-ft"]
assert len(l["metadata"]["annotations"]["alibabacloud.com/gpu-index"].split("-")) == 2, l
st = json.load(urllib.request.urlopen(url + "/state", timeout=10))
assert st["binds"] == 2 and st["filters"] == 2, st
PY
kill -TERM $EXT
wait $EXT || fail "extender exit on SIGTERM: $?"
grep -q "bind ml/whisper -> " "$TMP/log" || fail "log lacks the bind: $(cat "$TMP/log")"
grep -q "frugal share extender: stopped" "$TMP/log" || fail "log lacks the stop"

# --watch: one list, then the API server's events. Another client ends
# resnet-train (its 4 GPUs on gpu-v100-1 come free); the extender sees it
# at its next filter call without listing again.
"$FRUGAL" share extender --watch --api "$API" --workload $W --listen 127.0.0.1:0 2>"$TMP/wlog" &
EXT=$!
PIDS+=($EXT)
for _ in $(seq 100); do grep -q "serving http" "$TMP/wlog" && break; sleep 0.1; done
URL="$(grep -o 'serving http://[0-9.:]*' "$TMP/wlog" | head -1 | cut -d' ' -f2)"
[ -n "$URL" ] || fail "extender --watch did not start: $(cat "$TMP/wlog")"
grep -q "(watched)" "$TMP/wlog" || fail "extender --watch log: $(cat "$TMP/wlog")"
python3 - "$URL" "$API" "$CLUSTER" <<'PY' || fail "extender --watch: $(cat "$TMP/wlog")"
import json, sys, time, urllib.request
url, api, cluster = sys.argv[1:]
def call(u, body=None, method=None, ctype="application/json"):
    req = urllib.request.Request(u, json.dumps(body).encode() if body is not None else None,
                                 {"Content-Type": ctype}, method=method)
    return json.load(urllib.request.urlopen(req, timeout=10))
c = json.load(open(cluster))
probe = next(p for p in c["pods"]["items"] if p["metadata"]["name"] == "whisper")
probe["metadata"]["name"], probe["metadata"]["uid"] = "probe", "uid-probe"
names = [n["metadata"]["name"] for n in c["nodes"]["items"]]
call(url + "/scheduler/filter", {"Pod": probe, "NodeNames": names})
before = call(url + "/state")
assert before["watch"]["lists"] == 2, before["watch"]
call(api + "/api/v1/namespaces/ml/pods/resnet-train", {"status": {"phase": "Succeeded"}},
     "PATCH", "application/merge-patch+json")
for _ in range(100):
    call(url + "/scheduler/filter", {"Pod": probe, "NodeNames": names})
    after = call(url + "/state")
    if after["unallocated_gpu_pct"] > before["unallocated_gpu_pct"] + 1:
        break
    time.sleep(0.05)
assert abs(after["unallocated_gpu_pct"] - before["unallocated_gpu_pct"] - 100 * 4 / 23) < 1e-9, (before, after)
assert after["watch"]["lists"] == 2 and after["watch"]["events"] >= 1, after["watch"]
PY
kill -TERM $EXT
wait $EXT || fail "extender --watch exit on SIGTERM: $?"
grep -q "frugal share extender: stopped" "$TMP/wlog" || fail "--watch log lacks the stop"

# Bad input: one line, exit 1; usage errors exit 2.
expect_error 2 "--json needs --check" share extender --json --api "$API" --workload $W
expect_error 2 "--listen does not apply with --check" share extender --check --listen :9000 --api "$API" --workload $W
expect_error 2 "--seed applies to --policy random only" share extender --check --seed 7 --api "$API" --workload $W
expect_error 2 "--policy takes one placement policy" share extender --policy all --check --api "$API" --workload $W
expect_error 1 "unknown policy 'nope'" share extender --policy nope --check --api "$API" --workload $W
expect_error 1 "--filter: filter mode 'most'" share extender --filter most --check --api "$API" --workload $W
expect_error 1 "API server URL 'ftp://x'" share extender --check --api ftp://x --workload $W
expect_error 1 "--listen 'localhost:http'" share extender --listen localhost:http --api "$API" --workload $W
expect_error 1 "missing.csv" share extender --check --api "$API" --workload "$TMP/missing.csv"
expect_error 1 "empty_pods.csv" share extender --check --api "$API" --workload testdata/share/empty_pods.csv
expect_error 1 "token: " share extender --check --api "$API" --workload $W --token-file "$TMP/no-token"
expect_error 1 "--timeout" share extender --check --api "$API" --workload $W --timeout 0
expect_error 1 "--resync" share extender --check --api "$API" --workload $W --resync -1
expect_error 2 "--resync does not apply with --watch" share extender --watch --resync 5 --api "$API" --workload $W
expect_error 2 "--watch does not apply with --check" share extender --watch --check --api "$API" --workload $W
expect_error 1 "--watch: GET http://127.0.0.1:1/api/v1/nodes: cannot reach the API server" \
  share extender --watch --api http://127.0.0.1:1 --workload $W --timeout 2 --listen 127.0.0.1:0
# Nothing listens on port 1: unreachable, one line.
expect_error 1 "GET http://127.0.0.1:1/api/v1/nodes: cannot reach the API server" \
  share extender --check --api http://127.0.0.1:1 --workload $W --timeout 2
# A port already in use.
PORT_USED="$(head -1 "$TMP/api.port")"
expect_error 1 "cannot listen on 127.0.0.1:$PORT_USED" share extender --api "$API" --workload $W --listen "127.0.0.1:$PORT_USED"
# An API server that answers something that is not a NodeList.
echo '{"nodes": {"kind": "Status", "status": "Failure"}, "pods": {"items": []}}' >"$TMP/bad_cluster.json"
python3 "$(dirname "$0")/fake_kube_api.py" "$TMP/bad_cluster.json" >"$TMP/bad.port" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$TMP/bad.port" ] && break; sleep 0.1; done
expect_error 1 "/api/v1/nodes: not a list (no items array)" \
  share extender --check --api "http://127.0.0.1:$(head -1 "$TMP/bad.port")" --workload $W
echo "cli_share_extender_test: ok"
