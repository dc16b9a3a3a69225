#!/usr/bin/env bash
# `frugal place --granularity` and its device_map, checked against real
# PyTorch module trees by tools/check_device_map.py (torchvision ResNet-50 and
# a GPT-2 rebuilt from an HF config). Usage: cli_device_map_test.sh FRUGAL_BINARY
# Runs from the repository root; exits 77 (skipped) without python3-torch.
source "$(dirname "$0")/cli_test_lib.sh" "$1"
CHECK=tools/check_device_map.py
GPT2=testdata/place/gpt2_tiny.json
py() { python3 -c "$@" || fail "check failed: $1"; }

# Bad input first: these need no torch.
expect_error 1 "--granularity: rows not in" place "$GPT2" --gpus 2 --gpu A100-SXM4-80GB --granularity rows
expect_error 1 "needs module names" place testdata/place/diamond.json --gpus 2 --granularity module
expect_error 1 "modules 'wte', 'lm_head' (op 0 'wte' and its colocated ops) need" place "$GPT2" --batch 2 --seq 64 --train --gpus 2 \
  --gpu A100-SXM4-80GB --mem-gb 0.0002

expect_error 1 "--microbatches 3 does not divide --batch 8" place "$GPT2" --batch 8 --seq 64 \
  --train --gpus 2 --gpu A100-SXM4-80GB --microbatches 3
expect_error 1 "--microbatches needs a training step" place "$GPT2" --batch 8 --seq 64 \
  --gpus 2 --gpu A100-SXM4-80GB --microbatches 2
expect_error 1 "--microbatches needs --batch" place testdata/place/diamond.json --gpus 2 \
  --microbatches 2
expect_error 1 "--microbatches: " place "$GPT2" --gpus 2 --microbatches 0
expect_error 2 "cannot apply to --method list" place --method list --granularity layer

# The layer pipeline over 4 micro-batches: 1F1B on contiguous stages, scored
# like every method; pesto starts from it, so it is never worse.
"$FRUGAL" place "$GPT2" --batch 8 --seq 64 --train --gpus 4 --gpu A100-SXM4-80GB \
  --microbatches 4 --time-limit 4 --json --out "$TMP/g2_mb.json" >"$TMP/mb.json" ||
  fail "place gpt2 micro-batched"
py '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["microbatches"] == 4 and d["batch"] == 8, (d["microbatches"], d["batch"])
ms = {m["name"]: m for m in d["methods"]}
assert ms["pipeline"]["status"] == "ok" and "1F1B" in ms["pipeline"]["note"], ms["pipeline"]
assert ms["pesto"]["makespan_ms"] <= ms["pipeline"]["makespan_ms"] + 1e-9, ms
p = json.load(open(sys.argv[2]))
assert any(n["name"].endswith("[mb 3]") for n in p["nodes"]), p["nodes"][:3]
' "$TMP/mb.json" "$TMP/g2_mb.json"

/usr/bin/python3 -c "import torch, torchvision" 2>/dev/null || {
  echo "cli_device_map_test: python3-torch / python3-torchvision missing; skipping" >&2; exit 77; }

# ResNet-50's training step at module granularity (the ONNX default): every
# device_map name is a torchvision module, every parameter covered once, the
# schedule respects the real module graph.
"$FRUGAL" place models/resnet50.onnx --batch 8 --train --gpus 4 --gpu A100-SXM4-80GB \
  --time-limit 4 --out "$TMP/r50.json" --trace "$TMP/r50_trace.json" >"$TMP/out" || fail "place resnet50"
grep -q "granularity module" "$TMP/out" || fail "resnet50 not placed by module: $(head -3 "$TMP/out")"
/usr/bin/python3 "$CHECK" "$TMP/g2_mb.json" --hf-config "$GPT2" >"$TMP/check" ||
  fail "micro-batched gpt2 device map: $(tail -5 "$TMP/check")"
/usr/bin/python3 "$CHECK" "$TMP/r50.json" --torchvision resnet50 >"$TMP/check" ||
  fail "resnet50 device map: $(tail -5 "$TMP/check")"
py '
import json, sys
p = json.load(open(sys.argv[1]))
assert p["granularity"] == "module", p["granularity"]
nodes = p["nodes"]
# Autograd: a backward op and an update run where their module ran.
dev = {}
for n in nodes:
    dev.setdefault(n["module"], set()).add(n["device"])
split = [m for m, d in dev.items() if m and len(d) > 1 and m in p["device_map"]]
assert not split, split[:5]
t = json.load(open(sys.argv[2]))
names = [e["name"] for e in t["traceEvents"] if e.get("cat") == "op"]
assert any(n.startswith("layer1.0.conv1 ") for n in names), names[:5]
' "$TMP/r50.json" "$TMP/r50_trace.json"

# GPT-2 (tied lm_head / wte) at module and layer granularity, HF names.
for g in module layer; do
  "$FRUGAL" place "$GPT2" --batch 2 --seq 64 --train --gpus 4 --gpu A100-SXM4-80GB \
    --granularity $g --time-limit 3 --out "$TMP/g2_$g.json" >/dev/null || fail "place gpt2 $g"
  /usr/bin/python3 "$CHECK" "$TMP/g2_$g.json" --hf-config "$GPT2" >"$TMP/check" ||
    fail "gpt2 $g device map: $(tail -5 "$TMP/check")"
done
py '
import json, sys
m = json.load(open(sys.argv[1]))["device_map"]
assert all(k == "lm_head" or k == "" or k.startswith("transformer.") for k in m), m
l = json.load(open(sys.argv[2]))["device_map"]
# Layer granularity keeps blocks whole: no key below transformer.h.N.
assert not [k for k in l if k.startswith("transformer.h.") and k.count(".") > 2], l
' "$TMP/g2_module.json" "$TMP/g2_layer.json"

# The checker fails what it should: an uncovered parameter, a module that
# is not one, a schedule that runs a module before its input.
py '
import json, sys
p = json.load(open(sys.argv[1]))
a = dict(p); a["device_map"] = {k: v for k, v in p["device_map"].items() if k != "lm_head"}
json.dump(a, open(sys.argv[2] + "/no_head.json", "w"))
b = dict(p); b["device_map"] = dict(p["device_map"], **{"transformer.h.9": 0})
json.dump(b, open(sys.argv[2] + "/ghost.json", "w"))
c = dict(p); c["modules"] = [dict(s, start_ms=0.0) if s["name"] == "lm_head" else s for s in p["modules"]]
json.dump(c, open(sys.argv[2] + "/early.json", "w"))
' "$TMP/g2_module.json" "$TMP"
for bad in no_head:"is covered by 0" ghost:"not a module" early:"before its input"; do
  f="${bad%%:*}"; needle="${bad#*:}"
  /usr/bin/python3 "$CHECK" "$TMP/$f.json" --hf-config "$GPT2" >"$TMP/check" &&
    fail "checker accepted $f"
  grep -q "$needle" "$TMP/check" || fail "checker on $f lacks '$needle': $(cat "$TMP/check")"
done

# The checker's own bad input: a missing file, garbage, a placement without a map.
printf 'not json' >"$TMP/garbage.json"
echo '{"nodes": []}' >"$TMP/nomap.json"
for bad in "$TMP/missing.json" "$TMP/garbage.json" "$TMP/nomap.json"; do
  /usr/bin/python3 "$CHECK" "$bad" --hf-config "$GPT2" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  [ "$rc" -eq 1 ] || fail "checker on $bad: exit $rc, want 1"
  [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -qF "$bad" "$TMP/err" ||
    fail "checker on $bad: want one line naming the file: $(cat "$TMP/err")"
done

# Op granularity may split a module from its backward: no device map, and a note why.
"$FRUGAL" place "$GPT2" --batch 2 --seq 64 --train --gpus 4 --gpu A100-SXM4-80GB \
  --granularity op --time-limit 3 --out "$TMP/g2_op.json" >/dev/null || fail "place gpt2 op"
py '
import json, sys
p = json.load(open(sys.argv[1]))
assert "device_map" in p or "runs on GPUs" in p["device_map_note"], p.get("device_map_note")
' "$TMP/g2_op.json"
echo "cli_device_map_test: ok"
