#!/usr/bin/env bash
# CLI checks for `frugal catalog`. Usage: cli_catalog_test.sh FRUGAL_BINARY
# Runs from the repository root; exits 1 on the first failed check.
source "$(dirname "$0")/cli_test_lib.sh" "$1"
# The bundled catalog, whatever the caller's environment says.
unset FRUGAL_CATALOG FRUGAL_DATA_DIR

# run NAME ARGS... : runs frugal, keeping stdout, stderr and the exit code.
run() {
  local name="$1"
  shift
  "$FRUGAL" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  echo $? >"$TMP/$name.rc"
}
rc() { cat "$TMP/$1.rc"; }

expect_one_line_error() {
  local name="$1" needle="$2"
  [[ "$(rc "$name")" == 1 ]] || fail "$name: exit code $(rc "$name"), want 1"
  [[ "$(wc -l <"$TMP/$name.err")" == 1 ]] ||
    fail "$name: stderr is not one line: $(cat "$TMP/$name.err")"
  grep -q '^frugal: error: ' "$TMP/$name.err" ||
    fail "$name: stderr lacks 'frugal: error:': $(cat "$TMP/$name.err")"
  grep -qF -- "$needle" "$TMP/$name.err" ||
    fail "$name: stderr does not mention '$needle': $(cat "$TMP/$name.err")"
}

json_check() {  # json_check FILE PYTHON_EXPR_ON_d
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}

# 1. Tables by default, with GPUs and instances.
run table catalog list
[[ "$(rc table)" == 0 ]] || fail "catalog list: exit $(rc table): $(cat "$TMP/table.err")"
for name in A100-SXM4-80GB H100-SXM5-80GB K80 p3.2xlarge a2-highgpu-8g Standard_ND96asr_v4; do
  grep -q -- "$name" "$TMP/table.out" || fail "catalog list: table lacks $name"
done

# 2. --json parses and holds the expected names and fields.
run json catalog list --json
[[ "$(rc json)" == 0 ]] || fail "catalog list --json: exit $(rc json)"
if command -v python3 >/dev/null; then
  python3 -c 'import json,sys; json.load(sys.stdin)' <"$TMP/json.out" ||
    fail "catalog list --json: output is not JSON"
  json_check "$TMP/json.out" '{"K80","T4","L4","A10G","H200-SXM5-141GB"} <= {g["name"] for g in d["gpus"]}' ||
    fail "catalog list --json: GPUs missing"
  json_check "$TMP/json.out" '{"p4d.24xlarge","g5.48xlarge","a3-highgpu-8g","Standard_NC24ads_A100_v4"} <= {i["name"] for i in d["instances"]}' ||
    fail "catalog list --json: instances missing"
  json_check "$TMP/json.out" 'all(set(g) >= {"mem_gib","mem_bw_gbps","fp32_tflops","nvlink_gbps","sources"} for g in d["gpus"])' ||
    fail "catalog list --json: GPU records lack stable fields"
  json_check "$TMP/json.out" 'all(k in d["references"] for i in d["instances"] for k in i["sources"].values())' ||
    fail "catalog list --json: an instance source is not in references"
else
  grep -q '"A100-SXM4-80GB"' "$TMP/json.out" || fail "catalog list --json: lacks A100-SXM4-80GB"
  grep -q '"price_usd_per_hour"' "$TMP/json.out" || fail "catalog list --json: lacks price_usd_per_hour"
fi

# 3. The JSON output is itself a catalog: it loads back and prints the same.
cp "$TMP/json.out" "$TMP/roundtrip.json"
run again catalog list --json --catalog "$TMP/roundtrip.json"
[[ "$(rc again)" == 0 ]] || fail "--catalog of --json output: exit $(rc again): $(cat "$TMP/again.err")"
cmp -s "$TMP/json.out" "$TMP/again.out" || fail "--json output does not load back identically"

# 4. Filters.
run gcp catalog list --instances --provider gcp --json
[[ "$(rc gcp)" == 0 ]] || fail "--provider gcp: exit $(rc gcp)"
grep -q '"provider": "gcp"' "$TMP/gcp.out" || fail "--provider gcp: no gcp instance"
grep -q '"provider": "aws"' "$TMP/gcp.out" && fail "--provider gcp: printed an aws instance"
grep -q '"gpus"' "$TMP/gcp.out" && fail "--instances: printed GPUs"
run gpus catalog list --gpus
grep -q 'p3.2xlarge' "$TMP/gpus.out" && fail "--gpus: printed instances"

# 5. Usage errors exit 2; a value a check rejects exits 1.
run both catalog list --gpus --instances
[[ "$(rc both)" == 2 ]] || fail "--gpus --instances: exit $(rc both), want 2"
run badprov catalog list --provider oracle
[[ "$(rc badprov)" == 1 ]] || fail "--provider oracle: exit $(rc badprov), want 1 (a bad value)"

# 6. A missing catalog is one line on stderr and exit 1.
run missing catalog list --catalog /nonexistent
expect_one_line_error missing /nonexistent

# 7. Malformed catalogs: broken JSON, and a valid document with a bad figure.
printf '{"gpus": [' >"$TMP/broken.json"
run broken catalog list --catalog "$TMP/broken.json"
expect_one_line_error broken "$TMP/broken.json"
cat >"$TMP/negative.json" <<'EOF'
{"references": {"r": {"url": "u", "title": "t", "date": "2026-11-30", "date_kind": "read"}},
 "gpus": [{"name": "X1", "vendor": "nvidia", "architecture": "x",
           "mem_gib": -1, "mem_bw_gbps": 1, "source": "r"}]}
EOF
run negative catalog list --catalog "$TMP/negative.json"
expect_one_line_error negative "mem_gib must be a positive number"

# 8. FRUGAL_CATALOG overrides the default path.
FRUGAL_CATALOG="$TMP/broken.json" "$FRUGAL" catalog list >/dev/null 2>"$TMP/env.err"
[[ $? == 1 ]] || fail "FRUGAL_CATALOG=broken file: want exit 1"
grep -qF "$TMP/broken.json" "$TMP/env.err" || fail "FRUGAL_CATALOG was not used"

# 9. Family names are listed, and --gpu A100 resolves with a note on stderr.
run fam catalog list --gpus
grep -q '^A100 means A100-SXM4-40GB' "$TMP/fam.out" || fail "catalog list: no family-name line for A100"
grep -q 'SUSTAINED_FP32_TF' "$TMP/fam.out" || fail "catalog list: no sustained column"
run q perf query linear m=256 n=256 k=256 --gpu A100 --perf-model roofline --json
[[ "$(rc q)" == 0 ]] || fail "perf query --gpu A100: exit $(rc q): $(cat "$TMP/q.err")"
grep -q 'frugal: note: "A100" taken as A100-SXM4-40GB' "$TMP/q.err" ||
  fail "--gpu A100: no note on stderr: $(cat "$TMP/q.err")"
json_check "$TMP/q.out" 'd["gpu"] == "A100-SXM4-40GB"' || fail "--gpu A100: wrong GPU"
run pr predict models/resnet50.onnx --gpu H100 --batch 1 --perf-model roofline --json
json_check "$TMP/pr.out" 'any("taken as H100-SXM5-80GB" in n for n in d["notes"])' ||
  fail "predict --gpu H100: no note in the JSON"
run pl place models/resnet50.onnx --gpus 2 --gpu V100 --method m-etf --json
[[ "$(rc pl)" == 0 ]] || fail "place --gpu V100: exit $(rc pl): $(cat "$TMP/pl.err")"
json_check "$TMP/pl.out" 'd["methods"][0]["makespan_ms"] > 0' || fail "place --gpu V100: bad JSON"
run q4 perf query linear m=256 n=256 k=256 --gpu L4 --perf-model roofline
[[ ! -s "$TMP/q4.err" ]] || fail "--gpu L4: unexpected note: $(cat "$TMP/q4.err")"

# 10. An unknown name lists its closest neighbours, not the first GPUs.
run unk perf query linear m=8 n=8 k=8 --gpu H100-NVL --perf-model roofline
expect_one_line_error unk "closest: H100-"
grep -q "K80" "$TMP/unk.err" && fail "unknown GPU lists K80: $(cat "$TMP/unk.err")"

# --provider filters instances; with --gpus there are none to filter.
expect_error 2 "--gpus excludes --provider" catalog list --gpus --provider aws

echo "cli_catalog_test: all checks passed"
exit 0
