#!/usr/bin/env bash
# The `browser` test: `frugal demo` writes its report, and headless Chromium
# renders each section of it (tools/frugal/browser_check.py: titles in the
# DOM, every chart with a size, a non-blank screenshot, no console errors).
# FRUGAL_KEEP_SCREENSHOTS=DIR copies the screenshots there (docs/img/).
# Usage: browser_report_test.sh FRUGAL_BINARY
source "$(dirname "$0")/cli_test_lib.sh"
PY=python3
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; fi  # Debian's, with python3-pil
"$PY" -c "import PIL" 2>/dev/null || fail "python3-pil is missing (scripts/install-deps.sh installs it)"

"$FRUGAL" demo --out "$TMP/demo" >"$TMP/demo.out" 2>"$TMP/demo.err" \
  || fail "frugal demo failed: $(tail -3 "$TMP/demo.err")"
grep -q "^\[9/9\]" "$TMP/demo.err" || fail "demo printed no progress: $(cat "$TMP/demo.err")"
grep -q "^report: $TMP/demo/index.html" "$TMP/demo.out" || fail "demo did not name its report: $(cat "$TMP/demo.out")"

keep=()
if [ -n "${FRUGAL_KEEP_SCREENSHOTS:-}" ]; then keep=(--keep-screenshots "$FRUGAL_KEEP_SCREENSHOTS"); fi
"$PY" "$(dirname "$0")/browser_check.py" "$TMP/demo/index.html" "$TMP/browser" "${keep[@]}" \
  || fail "the report did not render"
echo "browser_report_test: ok"
