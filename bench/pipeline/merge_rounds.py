#!/usr/bin/env python3
"""Merges pipeline JSONs of the same job measured in separate sittings into one.

bench/pipeline/run.sh --repeat N measures N rounds in one sitting. A run at a
large corpus takes over an hour a round, so its rounds may be measured
separately (one `run.sh --out` each, same settings); this merges them:
a cell's measured speed-up is the median of the files' speed-ups (each file's
own, against its own "none" runs), its spread their lowest and highest, and
the best policy per size and those whose spread reaches the best one's lowest
are named as run.sh names them. Beside that spread rule, which a drift
between sittings (every policy faster in one round) can defeat, each policy
is compared with the best one round by round: `paired_lead_of_best_P` gives,
per policy, the best policy's speed-up minus its own in each file that
measured both (the same round's "none", machine and hour), and
`behind_best_in_every_round_P` the policies it trails in every such round
(at least two rounds). With --common, a round that measured only
some cells (run.sh --policies / --sizes) merges too: only the cells every
file has are merged, and the others are listed under
cells_not_in_every_file. With --union every cell is merged over the files
that have it (each cell says how many, `files`): rounds that measured
different policies of the same job side by side, every speed-up still
against its own round's "none"; the cells not in every file are listed too.

Usage: bench/pipeline/merge_rounds.py A.json B.json [...] [--common | --union] --out MERGED.json
"""
import argparse
import json
import statistics
import sys

CELL_KEYS = ("policy", "size_pct", "measured_speedup", "wall_s_runs", "bytes_from_remote")
NONE_KEYS = ("first", "last", "reference")
SAME = ("corpus_mb", "remote_mb_per_s", "remote_latency_ms", "days", "smartcache_warm_model_from")


def fail(msg):
    print("merge_rounds: " + msg, file=sys.stderr)
    sys.exit(1)


def load(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail("%s: %s" % (path, e))
    if not isinstance(doc, dict) or not isinstance(doc.get("cells"), list):
        fail("%s: not a bench/pipeline/run.sh result (no cells)" % path)
    none = doc.get("none_s")
    if not isinstance(none, dict) or any(not isinstance(none.get(k), (int, float)) for k in NONE_KEYS):
        fail("%s: none_s needs numbers %s" % (path, ", ".join(NONE_KEYS)))
    for i, c in enumerate(doc["cells"]):
        if not isinstance(c, dict) or any(k not in c for k in CELL_KEYS):
            fail("%s: cell %d lacks one of %s" % (path, i, ", ".join(CELL_KEYS)))
        if not isinstance(c["measured_speedup"], (int, float)) or not isinstance(c["wall_s_runs"], list):
            fail("%s: cell %d: measured_speedup must be a number and wall_s_runs a list" % (path, i))
    return doc


def merge(paths, docs, mode=None):
    """mode: None (every file has the same cells), "common" or "union"."""
    first = docs[0]
    for p, d in zip(paths[1:], docs[1:]):
        for k in SAME:
            if d.get(k) != first.get(k):
                fail("%s: %s is %r, %s has %r" % (p, k, d.get(k), paths[0], first.get(k)))
    key = lambda c: (c["policy"], c["size_pct"])
    cells = [{key(c): c for c in d["cells"]} for d in docs]
    shared = set.intersection(*(set(c) for c in cells))
    left_out = sorted(set.union(*(set(c) for c in cells)) - shared)
    if left_out and mode is None:
        fail("the files measure different policies or sizes (--common merges the cells every file has, "
             "--union every cell over the files that have it)")
    if not shared and mode != "union":
        fail("no policy and size is in every file")
    merged = shared | set(left_out) if mode == "union" else shared
    order = []  # first appearance over the files
    for d in docs:
        order += [key(c) for c in d["cells"] if key(c) in merged and key(c) not in order]
    out = {k: first.get(k) for k in SAME}
    # Shaped as run.sh writes it, so `frugal report` renders a merge as well.
    nones = [d["none_s"] for d in docs]
    out.update({"command": "bench/pipeline/merge_rounds.py " + " ".join(paths), "merged_from": paths,
                "machine": first.get("machine"), "rounds": sum(d.get("rounds", 1) for d in docs),
                "none_s": {"first": nones[0]["first"], "last": nones[-1]["last"],
                           "reference": [n["reference"] for n in nones], "per_file": nones},
                "cells": []})
    if left_out:
        out["cells_not_in_every_file"] = [{"policy": p, "size_pct": s} for p, s in left_out]
    for k in order:
        runs = [c[k] for c in cells if k in c]
        speedups = [r["measured_speedup"] for r in runs]
        out["cells"].append({
            "policy": k[0], "size_pct": k[1], "files": len(runs),
            "wall_s": statistics.median(w for r in runs for w in r["wall_s_runs"]),
            "wall_s_runs": [w for r in runs for w in r["wall_s_runs"]],
            "measured_speedup": statistics.median(speedups),
            "measured_speedup_runs": speedups,
            "measured_speedup_spread": [min(speedups), max(speedups)],
            "bytes_from_remote": statistics.median(r["bytes_from_remote"] for r in runs),
            "bytes_from_remote_runs": [r["bytes_from_remote"] for r in runs],
            "simulated_speedup": runs[0].get("simulated_speedup")})
    for pct in sorted({c["size_pct"] for c in out["cells"]}):
        at = [c for c in out["cells"] if c["size_pct"] == pct]
        best = max(at, key=lambda c: c["measured_speedup"])
        out["best_measured_%d" % pct] = best["policy"]
        out["not_told_apart_from_best_%d" % pct] = [
            c["policy"] for c in at
            if c is not best and c["measured_speedup_spread"][1] >= best["measured_speedup_spread"][0]]
        lead = {}
        b = (best["policy"], pct)
        for c in at:
            if c is best:
                continue
            k = (c["policy"], pct)
            lead[c["policy"]] = [f[b]["measured_speedup"] - f[k]["measured_speedup"]
                                 for f in cells if k in f and b in f]
        out["paired_lead_of_best_%d" % pct] = lead
        out["behind_best_in_every_round_%d" % pct] = [
            p for p, d in lead.items() if len(d) >= 2 and min(d) > 0]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out", required=True)
    how = ap.add_mutually_exclusive_group()
    how.add_argument("--common", action="store_true",
                     help="merge only the policies and sizes every file measured")
    how.add_argument("--union", action="store_true",
                     help="merge every policy and size over the files that measured it")
    a = ap.parse_args()
    if len(a.files) < 2:
        ap.error("give at least two result files")
    mode = "common" if a.common else ("union" if a.union else None)
    out = merge(a.files, [load(p) for p in a.files], mode)
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
    print("%-12s %4s %9s %15s %12s %6s" % ("policy", "size", "measured", "spread", "remote MB", "files"))
    for c in out["cells"]:
        print("%-12s %3d%% %8.3fx %6.3f-%.3fx %12.0f %6d" % (c["policy"], c["size_pct"], c["measured_speedup"],
              c["measured_speedup_spread"][0], c["measured_speedup_spread"][1], c["bytes_from_remote"] / 1e6,
              c["files"]))
    for k in sorted(out):
        if k.startswith("best_measured_"):
            pct = k.rsplit("_", 1)[1]
            print("best at %s%%: %s; not told apart from it: %s" % (
                pct, out[k], ", ".join(out["not_told_apart_from_best_" + pct]) or "none"))
            for p, d in out["paired_lead_of_best_" + pct].items():
                print("  lead over %-10s round by round: %s" % (p, " ".join("%+.3f" % x for x in d)))
            print("  behind it in every round (>= 2 rounds): %s" % (
                ", ".join(out["behind_best_in_every_round_" + pct]) or "none"))


if __name__ == "__main__":
    main()
