#!/usr/bin/env bash
# bench/bmm_transfer_ceiling.py: bad timing files are one line naming the file
# (and row), exit 1; two small GPUs' files give each the other as its source.
set -uo pipefail
cd "$(dirname "$0")/.."
S=bench/bmm_transfer_ceiling.py
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
fail=0
H="OPName,Latency,Kernel Name,B,M,N,K"
expect() {  # expect SUBSTRING DIR: the script exits 1 with one line holding SUBSTRING
  local out rc
  out="$(python3 "$S" --data "$2" --out "$T/out.json" 2>&1)"; rc=$?
  if [ "$rc" != 1 ] || [ "$(printf '%s\n' "$out" | wc -l)" != 1 ] || [[ "$out" != *"$1"* ]]; then
    echo "FAIL: $2: rc $rc, output: $out"; fail=1
  fi
}
mkdir "$T/empty"; expect "fewer than two GPUs" "$T/empty"
mkdir "$T/garbage"; printf '%s\nbmm,fast,k,1,2,3,4\n' "$H" >"$T/garbage/a.csv"
cp "$T/garbage/a.csv" "$T/garbage/b.csv"; expect "a.csv:2: needs integer B, M, N, K" "$T/garbage"
mkdir "$T/zero"; printf '%s\nbmm,0,k,1,2,3,4\n' "$H" >"$T/zero/a.csv"
cp "$T/zero/a.csv" "$T/zero/b.csv"; expect "a.csv:2: Latency must be a positive number" "$T/zero"
mkdir "$T/nocol"; printf 'OPName,Latency\nbmm,1\n' >"$T/nocol/a.csv"
cp "$T/nocol/a.csv" "$T/nocol/b.csv"; expect "a.csv:2: needs integer" "$T/nocol"
mkdir "$T/binary"; head -c 300 /dev/urandom >"$T/binary/a.csv"; printf '\xff\xfe' >>"$T/binary/a.csv"
cp "$T/binary/a.csv" "$T/binary/b.csv"; expect "a.csv" "$T/binary"
# Two GPUs on the same three shapes; b is twice a's time on every shape.
mkdir "$T/ok"
printf '%s\nbmm,1,k,1,64,64,64\nbmm,2,k,1,128,64,64\nbmm,4,k,1,128,128,64\n' "$H" >"$T/ok/a.csv"
printf '%s\nbmm,2,k,1,64,64,64\nbmm,4,k,1,128,64,64\nbmm,8,k,1,128,128,64\n' "$H" >"$T/ok/b.csv"
if ! python3 "$S" --data "$T/ok" --out "$T/out.json" >/dev/null ||
   ! python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert d["best_source"] == {"a": "b", "b": "a"}, d["best_source"]
assert all(p["median_ape_pct"] == 0 and p["shapes"] == 3 for p in d["pairs"]), d["pairs"]
assert d["pooled_best_source_rows"] == 6' "$T/out.json"; then
  echo "FAIL: two proportional GPUs"; fail=1
fi
exit $fail
