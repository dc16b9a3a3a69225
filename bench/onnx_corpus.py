#!/usr/bin/env python3
"""Imports the ONNX corpus with the built frugal and scores it.

    bench/onnx_corpus.py [--frugal build/tools/frugal/frugal]
                         [--out bench/results/onnx_corpus.json]
                         [--baseline OLD.json]

For each file of testdata/onnx/corpus/reference.json (written by
tools/export_onnx_corpus.py) it runs `frugal graph show --json FILE FLAGS`
and `... --train`, and records whether the import succeeded, whether the
parameter count equals the reference exactly, and whether the forward FLOPs
of frugal's compute-category ops (`flops_forward_compute`) are within 10 % of
the reference's independent count (2 x the multiply-adds of the convolution
and GEMM kernels PyTorch runs; see the export script). A file counts as
passing when all four hold: import, --train, parameters, FLOPs.

A frugal whose `graph show --json` lacks `flops_forward_compute` (older
builds) is scored on its `flops_forward`.

--baseline copies the summary of an earlier run (e.g. of the code before a
change) into the output under "baseline". Standard library only.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = os.path.join(ROOT, "testdata", "onnx", "corpus")
TOLERANCE = 0.10


def show(frugal, path, flags, train):
    cmd = [frugal, "graph", "show", "--json", path] + flags + (["--train"] if train else [])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return None, "timed out after 300 s"
    if p.returncode != 0:
        lines = (p.stderr or p.stdout).strip().splitlines()
        return None, "exit %d: %s" % (p.returncode, lines[-1] if lines else "")
    return json.loads(p.stdout), None


def score(frugal, name, ref):
    path = os.path.relpath(os.path.join(CORPUS, name + ".onnx"), ROOT)
    row = {"file": name + ".onnx", "flags": ref["flags"], "params_ref": ref["params"],
           "flops_ref": ref["flops_compute"]}
    fwd, err = show(frugal, path, ref["flags"], False)
    row["imported"] = fwd is not None
    if fwd is None:
        row["error"] = err
        row["pass"] = False
        return row
    flops = fwd.get("flops_forward_compute", fwd["flops_forward"])
    row["params"] = fwd["params"]
    row["flops"] = flops
    row["params_ok"] = fwd["params"] == ref["params"]
    rel = abs(flops - ref["flops_compute"]) / max(ref["flops_compute"], 1)
    row["flops_rel_err"] = round(rel, 4)
    row["flops_ok"] = rel <= TOLERANCE
    if fwd.get("unknown_ops"):
        row["unknown_ops"] = fwd["unknown_ops"]
    train, err = show(frugal, path, ref["flags"], True)
    row["train_ok"] = train is not None
    if train is None:
        row["train_error"] = err
    row["pass"] = row["params_ok"] and row["flops_ok"] and row["train_ok"]
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frugal", default=os.path.join(ROOT, "build", "tools", "frugal", "frugal"))
    parser.add_argument("--out", default=os.path.join(HERE, "results", "onnx_corpus.json"))
    parser.add_argument("--baseline", default=None)
    parser.add_argument("--baseline-note", default="",
                        help="what the baseline run was (stored with it)")
    args = parser.parse_args()
    args.frugal = os.path.abspath(args.frugal)
    with open(os.path.join(CORPUS, "reference.json")) as f:
        reference = json.load(f)
    rows = [score(args.frugal, name, reference[name]) for name in sorted(reference)]
    n = len(rows)

    def rate(key):
        return round(sum(1 for r in rows if r.get(key)) / n, 4) if n else 0

    summary = {
        "files": n,
        "import_rate": rate("imported"),
        "params_exact_rate": rate("params_ok"),
        "flops_within_10pct_rate": rate("flops_ok"),
        "train_rate": rate("train_ok"),
        "pass_rate": rate("pass"),
    }
    out = {
        "command": "bench/onnx_corpus.py",
        "corpus": "testdata/onnx/corpus (tools/export_onnx_corpus.py)",
        "summary": summary,
        "failures": [{"file": r["file"], "error": r.get("error") or r.get("train_error") or
                      ("params %s != %s" % (r.get("params"), r["params_ref"]) if not r.get("params_ok")
                       else "flops off by %.1f %%" % (100 * r.get("flops_rel_err", 0)))}
                     for r in rows if not r["pass"]],
        "rows": rows,
    }
    if args.baseline:
        with open(args.baseline) as f:
            base = json.load(f)
        out["baseline"] = {"note": args.baseline_note, "summary": base["summary"],
                           "failures": base["failures"]}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
