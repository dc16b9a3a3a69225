#!/usr/bin/env bash
# bench/share_interference_ceer.py: a bad Gavel file is one line naming the
# file (and entry), exit 1, before anything is priced.
set -uo pipefail
cd "$(dirname "$0")/.."
S=bench/share_interference_ceer.py
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
fail=0
expect() {  # expect SUBSTRING FILE
  local out rc
  out="$(python3 "$S" "$T/nobuild" --gavel "$2" --out "$T/out.json" 2>&1)"; rc=$?
  if [ "$rc" != 1 ] || [ "$(printf '%s\n' "$out" | wc -l)" != 1 ] || [[ "$out" != *"$1"* ]]; then
    echo "FAIL: $2: rc $rc, output: $out"; fail=1
  fi
}
expect "missing.json" "$T/missing.json"
printf '{"k80": ' >"$T/truncated.json"; expect "truncated.json" "$T/truncated.json"
head -c 200 /dev/urandom >"$T/binary.json"; expect "binary.json" "$T/binary.json"
printf '[]' >"$T/array.json"; expect "array.json: not a JSON object" "$T/array.json"
printf '{"k80": {}, "p100": {}}' >"$T/nov100.json"; expect 'no "v100" object' "$T/nov100.json"
ok='"p100": {}, "v100": {}'
printf '{"k80": {"LM": {}}, %s}' "$ok" >"$T/key.json"; expect "is not ('Name', scale)" "$T/key.json"
printf '{"k80": {"(%s, 1)": {"null": 1}}, %s}' "'Mystery'" "$ok" >"$T/fam.json"
expect "no bundled graph" "$T/fam.json"
printf '{"k80": {"(%s, 1)": {"null": -2}}, %s}' "'A3C'" "$ok" >"$T/neg.json"
expect "no solo" "$T/neg.json"
printf '{"k80": {"(%s, 1)": {"null": 2, "(%s, 1)": [1]}}, %s}' "'A3C'" "'A3C'" "$ok" >"$T/pair.json"
expect "next to ('A3C', 1): expected two throughputs" "$T/pair.json"
# A good file reaches the build check.
printf '{"k80": {"(%s, 1)": {"null": 2}}, %s}' "'A3C'" "$ok" >"$T/good.json"
expect "nobuild/tools/frugal/frugal: not an executable" "$T/good.json"
exit $fail
