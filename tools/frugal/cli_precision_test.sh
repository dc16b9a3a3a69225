#!/usr/bin/env bash
# CLI checks for --precision (graph show, predict, advise, place) and HF
# configs' torch_dtype default. Usage: cli_precision_test.sh FRUGAL_BINARY
source "$(dirname "$0")/cli_test_lib.sh" "$1"
R=models/resnet50.onnx
L=models/hf/llama2_7b.json  # torch_dtype float16
P="--perf-model roofline"

# Bad value: usage error; a GPU without bf16: one line naming flag and GPU.
expect_error 2 "unknown --precision 'fp8'" predict $R --batch 8 --gpu A100-SXM4-80GB --precision fp8
expect_error 2 "unknown --precision 'half'" graph show $R --precision half
expect_error 1 "--precision bf16: V100-SXM2-16GB has no bf16 tensor cores" \
  predict $R --batch 8 --gpu V100-SXM2-16GB --precision bf16 $P
expect_error 1 "--precision amp-bf16: V100-PCIE-32GB has no bf16 tensor cores" \
  place $R --batch 2 --gpus 2 --gpu V100-PCIE-32GB --precision amp-bf16 --train
# A profiled graph's times were measured at one precision.
expect_error 1 "--precision amp-fp16: the file holds a training graph" \
  graph show models/graphs/gnmt_training.json --precision amp-fp16
# A profiled graph's times were measured at one precision.
G=../shared/data/graphs/dnn-partitioning/latency-inputs/OperatorGraphs/bert_l-3_inference.json
if [ -f "$G" ]; then
  expect_error 1 "cannot re-price it" graph show "$G" --precision amp-fp16
fi

# graph show prints the precision; amp halves activations, keeps fp32 state.
"$FRUGAL" graph show $R --batch 8 --train --precision amp-fp16 --json >"$TMP/amp.json" ||
  fail "graph show amp"
"$FRUGAL" graph show $R --batch 8 --train --json >"$TMP/fp32.json" || fail "graph show fp32"
"$FRUGAL" graph show $R --batch 8 --precision bf16 | grep -Eq "precision +bf16" ||
  fail "graph show text precision"
python3 - "$TMP" <<'PY' || fail "graph show --precision fields"
import json, sys
d = sys.argv[1]
a, f = (json.load(open(f"{d}/{n}.json")) for n in ("amp", "fp32"))
assert a["precision"] == "amp-fp16" and f["precision"] == "fp32", (a["precision"], f["precision"])
PY

# torch_dtype float16: training defaults to amp-fp16 with a note; --precision overrides.
"$FRUGAL" graph show $L --seq 128 --batch 1 >"$TMP/l.txt" 2>"$TMP/l.err" || fail "graph show llama"
grep -q "precision fp16 from the config's torch_dtype float16" "$TMP/l.err" ||
  fail "torch_dtype note (inference): $(cat "$TMP/l.err")"
"$FRUGAL" predict $L --seq 128 --batch 1 --gpu A100-SXM4-80GB $P --json >"$TMP/lp.json" \
  2>"$TMP/lp.err" || fail "predict llama"
grep -q "amp-fp16 from the config's torch_dtype float16" "$TMP/lp.err" || fail "note on stderr"
"$FRUGAL" predict $L --seq 128 --batch 1 --gpu A100-SXM4-80GB $P --precision fp32 --json \
  >"$TMP/lf.json" 2>"$TMP/lf.err" || fail "predict llama fp32"
[ -s "$TMP/lf.err" ] && fail "a note with --precision given: $(cat "$TMP/lf.err")"
python3 - "$TMP" <<'PY' || fail "predict torch_dtype default"
import json, sys
d = sys.argv[1]
p, f = (json.load(open(f"{d}/{n}.json")) for n in ("lp", "lf"))
assert p["precision"] == "amp-fp16" and f["precision"] == "fp32"
assert any("torch_dtype" in n for n in p["notes"]), p["notes"]
assert p["iteration_ms"] < f["iteration_ms"] / 2, (p["iteration_ms"], f["iteration_ms"])
# amp: fp32 params, grads and Adam moments; activations in half.
assert p["memory_bytes"] < f["memory_bytes"]
PY

# predict: half precision is faster and smaller; tf32 keeps memory.
for p in fp32 tf32 amp-fp16; do
  "$FRUGAL" predict $R --batch 32 --gpu A100-SXM4-80GB --precision $p --json >"$TMP/r_$p.json" ||
    fail "predict $p"
done
python3 - "$TMP" <<'PY' || fail "predict precision ordering"
import json, sys
d = sys.argv[1]
r = {p: json.load(open(f"{d}/r_{p}.json")) for p in ("fp32", "tf32", "amp-fp16")}
assert r["amp-fp16"]["iteration_ms"] < r["tf32"]["iteration_ms"] < r["fp32"]["iteration_ms"]
assert r["tf32"]["memory_bytes"] == r["fp32"]["memory_bytes"]
assert r["amp-fp16"]["memory_bytes"] < r["fp32"]["memory_bytes"]
conv = [o for o in r["amp-fp16"]["ops"] if o["kind"] == "conv"]
assert any("tensor cores" in o["basis"] for o in conv), conv[0]["basis"]
PY

# advise skips the GPUs that cannot run bf16, naming why.
"$FRUGAL" advise $R --batch 32 --samples 100000 --precision amp-bf16 $P --json >"$TMP/adv.json" ||
  fail "advise amp-bf16"
python3 - "$TMP" <<'PY' || fail "advise skipped"
import json, sys
a = json.load(open(f"{sys.argv[1]}/adv.json"))
assert a["precision"] == "amp-bf16"
assert any("has no bf16 tensor cores" in s["reason"] for s in a["skipped"]), a["skipped"]
assert all(not c["gpu"].startswith(("V100", "T4", "K80")) for c in a["configs"])
PY
# share prices its jobs in fp32 and says so.
expect_error 1 "--precision amp-fp16: share prices every job's model in fp32" \
  share plan testdata/share/jobs_small.json --gpus 4 --precision amp-fp16
# A graph whose dtypes are half already (converted here; an ONNX model exported in half
# alike) keeps its precision: priced and labelled fp16, MFU against the fp16 peak; another
# --precision would need converting its tensors and is an error.
"$FRUGAL" graph convert $R "$TMP/r16.json" --batch 8 --precision fp16 2>/dev/null || fail "convert fp16"
"$FRUGAL" predict "$TMP/r16.json" --gpu A100-SXM4-80GB --infer $P --json >"$TMP/p16.json" 2>"$TMP/p16.err" ||
  fail "predict a half graph"
grep -qF "precision fp16 from the model's own dtypes" "$TMP/p16.err" || fail "no note: $(cat "$TMP/p16.err")"
"$FRUGAL" predict $R --batch 8 --precision fp16 --gpu A100-SXM4-80GB --infer $P --json >"$TMP/q16.json" ||
  fail "predict --precision fp16"
python3 - "$TMP" <<'PY' || fail "a half graph prices as --precision fp16"
import json, sys
a, b = (json.load(open(f"{sys.argv[1]}/{n}.json")) for n in ("p16", "q16"))
assert a["precision"] == b["precision"] == "fp16", (a["precision"], b["precision"])
assert abs(a["iteration_ms"] - b["iteration_ms"]) < 1e-6 * b["iteration_ms"], (a["iteration_ms"], b["iteration_ms"])
assert abs(a["mfu"] - b["mfu"]) < 1e-6, (a["mfu"], b["mfu"])
PY
expect_error 1 "--precision fp32: the model's tensors are fp16 already" \
  predict "$TMP/r16.json" --gpu A100-SXM4-80GB --infer --precision fp32
echo "cli_precision_test: ok"
