#!/usr/bin/env bash
# Bad input never crashes, hangs or exhausts memory: regression checks for
# each case found by hand (one-line error, exit 1; or the run honours its
# limit). Usage: cli_robust_test.sh FRUGAL_BINARY. Runs from the repository
# root. Exits 1 on the first failed check.
source "$(dirname "$0")/cli_test_lib.sh" "$1"
T=testdata/place

py() { python3 -c "$@" || fail "check failed: $1"; }
# Runs a command (stdout, stderr in $TMP/out, $TMP/err; exit code in
# $TMP/rc) and prints "WALL CPU": its wall and CPU seconds. CPU time does
# not grow when other jobs share the machine.
timed() {
  python3 - "$TMP" "$@" <<'PY'
import resource, subprocess, sys, time
tmp, cmd = sys.argv[1], sys.argv[2:]
t0 = time.monotonic()
with open(tmp + "/out", "wb") as out, open(tmp + "/err", "wb") as err:
    try:
        rc = subprocess.run(cmd, stdout=out, stderr=err, timeout=120).returncode
    except subprocess.TimeoutExpired:
        rc = 124
wall = time.monotonic() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
open(tmp + "/rc", "w").write(str(rc))
print(f"{wall:.2f} {ru.ru_utime + ru.ru_stime:.2f}")
PY
}

# cache gen --scale 1e6 was OOM-killed at 21 GB: refused up front, fast.
read -r wall cpu < <(timed "$FRUGAL" cache gen --scale 1e6 -o "$TMP/huge.frt")
[ "$(cat "$TMP/rc")" -eq 1 ] || fail "cache gen --scale 1e6: exit $(cat "$TMP/rc")"
grep -q "events, over the limit of 10000000" "$TMP/err" || fail "cache gen --scale 1e6: $(cat "$TMP/err")"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "cache gen --scale 1e6: not one line: $(cat "$TMP/err")"
py "assert $cpu < 10 and $wall < 60, 'cache gen --scale 1e6 took $wall s ($cpu s CPU) to refuse'"
[ ! -e "$TMP/huge.frt" ] || fail "cache gen --scale 1e6 left a file"
expect_error 1 "--scale must be in (0, 1e+06], got 1e+07" cache gen --scale 1e7 -o "$TMP/x.frt"

# Non-regular files are refused before a byte is read (graph show /dev/zero
# used to hang growing to 4 GB; a FIFO blocks on open).
expect_error 1 "/dev/zero: is a character device, expected a regular file" graph show /dev/zero
mkfifo "$TMP/pipe.onnx"
timeout 20 "$FRUGAL" graph show "$TMP/pipe.onnx" >"$TMP/out" 2>"$TMP/err"
[ $? -eq 1 ] || fail "graph show FIFO: exit code (124 = hung)"
grep -q "is a FIFO" "$TMP/err" || fail "graph show FIFO: $(cat "$TMP/err")"
expect_error 1 "is a directory" graph show "$TMP"
expect_error 1 "/dev/zero: is a character device" cache info /dev/zero --format csv
expect_error 1 "/dev/zero: is a character device" place "$T/diamond.json" --gpus 2 --topology /dev/zero
expect_error 1 "/dev/zero: is a character device" perf train --data /dev/zero --out "$TMP/m.json"

# A trace read as CSV whose "line" never ends: one bounded error.
{ echo "time_us,op,path,offset,length,size,pipeline,stage,worker,new_path"; head -c 200000 /dev/zero | tr '\0' 'a'; } >"$TMP/long.csv"
expect_error 1 "line longer than 65536 bytes" cache info "$TMP/long.csv"

# fpgaLatency 1e100 aborted CLP on an assertion: absurd times are refused
# like absurd sizes; large but sane ones are placed.
sed 's/"fpgaLatency": 4.0/"fpgaLatency": 1e100/' $T/diamond.json >"$TMP/absurd.json"
expect_error 1 "absurd fpgaLatency 1e+100 ms" place "$TMP/absurd.json" --gpus 2 --time-limit 2
sed 's/"cost": 0.5/"cost": 1e300/' $T/diamond.json >"$TMP/absurd_cost.json"
expect_error 1 "absurd cost" place "$TMP/absurd_cost.json" --gpus 2 --time-limit 2
sed 's/"fpgaLatency": 4.0/"fpgaLatency": 5e8/' $T/diamond.json >"$TMP/big.json"
"$FRUGAL" place "$TMP/big.json" --gpus 2 --time-limit 2 --json >"$TMP/big.out" 2>"$TMP/err" ||
  fail "place with 5e8 ms ops: $(cat "$TMP/err")"
py 'import json,sys; d=json.load(open(sys.argv[1])); assert d["best"], d' "$TMP/big.out"
python3 -c '
import json
print(json.dumps({"devices": 2, "links": [
  {"name": "slow", "bw_gbps": 1e-300, "pairs": [[0, 1], [1, 0]]}]}))' >"$TMP/slow.topology.json"
expect_error 1 "'bw_gbps' must be a finite number >= 1e-06" place "$T/diamond.json" --gpus 2 --topology "$TMP/slow.topology.json"
expect_error 1 "--gpus: must be <= 1024, got 5000" place "$T/diamond.json" --gpus 5000

# METIS printed its input errors on stdout and broke --json.
"$FRUGAL" place models/graphs/gnmt_training.json --method metis --gpus 64 --json \
  >"$TMP/metis.json" 2>"$TMP/err"
py 'import json,sys; d=json.load(open(sys.argv[1])); assert d["methods"][0]["name"] == "metis", d' \
  "$TMP/metis.json"

# --gpus 1000 --time-limit 2 ran for 35 s: the limit covers the bounds and
# every method.
read -r wall cpu < <(timed "$FRUGAL" place models/graphs/gnmt_training.json --gpus 1000 --time-limit 2 --json)
[ "$(cat "$TMP/rc")" -eq 0 ] || fail "place --gpus 1000: exit $(cat "$TMP/rc"): $(cat "$TMP/err")"
cp "$TMP/out" "$TMP/k1000.json"
py 'import json,sys; d=json.load(open(sys.argv[1])); assert d["gpus"] == 1000 and d["best"], d' \
  "$TMP/k1000.json"
py "assert $cpu < 10 and $wall < 60, 'place --gpus 1000 --time-limit 2 took $wall s ($cpu s CPU)'"

echo "cli_robust_test: ok"
