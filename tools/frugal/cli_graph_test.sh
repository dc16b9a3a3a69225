#!/usr/bin/env bash
# CLI checks for `frugal graph`. Usage: cli_graph_test.sh FRUGAL_BINARY
# Runs from the repository root. Exits 1 on the first failed check.
source "$(dirname "$0")/cli_test_lib.sh" "$1"
json_get() {  # json_get FILE KEY: prints a top-level field
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

# Errors: one line naming the file and the problem, exit 1.
expect_error 1 "nonexistent.onnx: no such file" graph show nonexistent.onnx
head -c 20000 models/resnet50.onnx > "$TMP/truncated.onnx"
expect_error 1 "truncated.onnx" graph show "$TMP/truncated.onnx"
head -c 4096 /dev/urandom > "$TMP/garbage.onnx"
expect_error 1 "garbage.onnx" graph show "$TMP/garbage.onnx"
expect_error 1 "cycle" graph show testdata/graphs/bad_cycle.json
expect_error 1 "negative size" graph show testdata/graphs/bad_negative_size.json
expect_error 1 "missing field 'fpgaLatency'" graph show testdata/graphs/bad_missing_field.json
expect_error 1 "bad_truncated.json: malformed JSON" graph show testdata/graphs/bad_truncated.json
expect_error 1 "--batch must be >= 1" graph show models/resnet50.onnx --batch 0
expect_error 1 "--batch must be >= 1, got -1" graph show models/resnet50.onnx --batch -1
# A flag that cannot apply to the model is an error, as for predict.
expect_error 1 "models/resnet50.onnx: --seq applies to HF configs" graph show models/resnet50.onnx --seq 5
expect_error 1 "models/resnet50.onnx: --head applies to HF configs" graph convert models/resnet50.onnx "$TMP/x.json" --head lm
expect_error 1 "models/hf/bert.json: --dim applies to ONNX models' symbolic dims" graph show models/hf/bert.json --dim seq=4
expect_error 1 "tiny.frugal.json: the graph does not record its batch, so --batch 4 cannot rescale it" \
  graph show testdata/graphs/tiny.frugal.json --batch 4
expect_error 1 "unknown optimizer" graph show models/resnet50.onnx --train --optimizer lion
expect_error 2 "--optimizer requires --train" graph show models/resnet50.onnx --optimizer sgd
expect_error 1 "unknown graph format" graph show models/resnet50.onnx --format tflite
echo "not a model" > "$TMP/notes.txt"
expect_error 1 "unrecognised model format" graph show "$TMP/notes.txt"

# Usage errors exit 2.
"$FRUGAL" graph >/dev/null 2>&1; [ $? -eq 2 ] || fail "bare 'graph' should exit 2"
"$FRUGAL" graph show >/dev/null 2>&1; [ $? -eq 2 ] || fail "'graph show' without MODEL should exit 2"
"$FRUGAL" graph show --help >/dev/null 2>&1 || fail "--help should exit 0"

# JSON output has the documented fields.
"$FRUGAL" graph show models/resnet50.onnx --batch 2 --train --json >"$TMP/r.json" ||
  fail "graph show resnet50 --json"
for k in ops params flops_forward flops_backward memory_bytes; do
  json_get "$TMP/r.json" "$k" >/dev/null || fail "graph show --json lacks '$k'"
done
[ "$(json_get "$TMP/r.json" params)" = "25557032" ] || fail "resnet50 params"

# Human output mentions the headline numbers.
"$FRUGAL" graph show models/resnet50.onnx >"$TMP/r.txt" || fail "graph show text"
grep -q "parameters *25557032" "$TMP/r.txt" || fail "text output lacks parameters"

# convert then show gives the same numbers.
"$FRUGAL" graph convert models/resnet50.onnx "$TMP/r50.json" --batch 2 --train 2>/dev/null ||
  fail "graph convert"
"$FRUGAL" graph show "$TMP/r50.json" --json >"$TMP/r2.json" || fail "show converted"
for k in ops params flops_forward flops_backward; do
  [ "$(json_get "$TMP/r.json" "$k")" = "$(json_get "$TMP/r2.json" "$k")" ] ||
    fail "convert changed $k"
done

# Profiled graphs keep measured numbers.
"$FRUGAL" graph show testdata/graphs/tiny_profiled.json --json >"$TMP/t.json" || fail "tiny"
[ "$(json_get "$TMP/t.json" measured_time_ms)" = "4.0" ] || fail "tiny measured time"
[ "$(json_get "$TMP/t.json" memory_bytes)" = "350" ] || fail "tiny memory"

# Named symbolic dims: --dim NAME=VALUE (repeatable); an unset one names the flag.
expect_error 1 "input 'x' dim 1 is the symbolic 'seq' with no value; set it with --dim seq=VALUE" \
  graph show testdata/onnx/dynamic_seq.onnx
"$FRUGAL" graph show testdata/onnx/dynamic_seq.onnx --dim seq=7 --batch 3 --json >"$TMP/d.json" ||
  fail "graph show --dim seq=7"
[ "$(json_get "$TMP/d.json" batch)" = "3" ] || fail "--dim: batch"
expect_error 1 "no symbolic dim 'len'" graph show testdata/onnx/dynamic_seq.onnx --dim seq=7 --dim len=2
expect_error 1 "--dim seq is given twice" graph show testdata/onnx/dynamic_seq.onnx --dim seq=7 --dim seq=8
expect_error 1 "--batch 3 cannot apply" graph show testdata/onnx/static_batch.onnx --batch 3
for bad in seq seq= =4 seq=0 seq=-1 seq=x; do
  "$FRUGAL" graph show testdata/onnx/dynamic_seq.onnx --dim "$bad" >/dev/null 2>&1
  [ $? -eq 1 ] || fail "--dim $bad should be rejected (exit 1, as for every verb)"
done
"$FRUGAL" graph convert testdata/onnx/dynamic_seq.onnx "$TMP/d2.json" --dim seq=7 2>/dev/null ||
  fail "graph convert --dim"
# Weights exported as inputs are parameters; --batch leaves them alone.
"$FRUGAL" graph show testdata/onnx/corpus/resnet18_noparams_op13_dynbatch.onnx --batch 1 --json \
  >"$TMP/np.json" || fail "export_params=False file"
[ "$(json_get "$TMP/np.json" params)" = "11680872" ] || fail "export_params=False params"
# Eval exports with BatchNorm folded say so.
"$FRUGAL" graph show testdata/onnx/corpus/resnet18_eval_op11_static.onnx >"$TMP/f.txt" ||
  fail "folded resnet18"
grep -q "note: .*BatchNorm folded" "$TMP/f.txt" || fail "no BN-folded note"
"$FRUGAL" graph show models/resnet50.onnx | grep -q "note:" && fail "BN-folded note on a training export"

"$FRUGAL" graph formats | grep -q "dnn-partitioning" || fail "graph formats"
echo "cli_graph_test: all checks passed"
