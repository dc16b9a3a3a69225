# Shared by the cli_<verb>_test.sh scripts: source it with the frugal binary
# as its argument. Provides FRUGAL, a scratch folder TMP removed on exit,
# fail MESSAGE, and expect_error RC NEEDLE ARGS... (exit code RC, exactly one
# stderr line containing NEEDLE, nothing on stdout).
set -u
FRUGAL="$1"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

expect_error() {
  local rc="$1" needle="$2"; shift 2
  "$FRUGAL" "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  [ "$got" -eq "$rc" ] || fail "frugal $*: exit $got, want $rc ($(cat "$TMP/err"))"
  [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "frugal $*: want one stderr line, got: $(cat "$TMP/err")"
  grep -qF -- "$needle" "$TMP/err" || fail "frugal $*: stderr lacks '$needle': $(cat "$TMP/err")"
  [ ! -s "$TMP/out" ] || fail "frugal $*: unexpected stdout"
}
