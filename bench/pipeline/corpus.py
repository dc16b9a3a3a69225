#!/usr/bin/python3
"""Writes a deterministic text corpus: SHARDS files raw/shard-NNNN.txt of about
MB / SHARDS megabytes, one document per line ("doc-ID<TAB>text"), words drawn
from a Zipf-distributed synthetic vocabulary (numpy's PCG64 with --seed), so
the same flags give the same bytes on every machine.

Usage: corpus.py OUT_DIR [--mb 300] [--shards 24] [--seed 1]
"""
import argparse
import os

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--mb", type=float, default=300)
    ap.add_argument("--shards", type=int, default=24)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.mb <= 0 or a.shards <= 0:
        ap.error("--mb and --shards must be > 0")
    rng = np.random.Generator(np.random.PCG64(a.seed))
    letters = np.array(list("etaoinshrdlucmfwypvbgkjqxz"))
    vocab = ["".join(letters[rng.integers(0, 26, size=int(rng.integers(2, 10)))]) for _ in range(50000)]
    vocab = np.array(vocab + [w.capitalize() for w in vocab[:2000]] + ["THE", "And", "of,", "to."])
    os.makedirs(os.path.join(a.out, "raw"), exist_ok=True)
    per_shard = int(a.mb * 1e6 / a.shards)
    doc = 0
    for s in range(a.shards):
        path = os.path.join(a.out, "raw", "shard-%04d.txt" % s)
        written = 0
        with open(path, "w") as f:
            while written < per_shard:
                lens = rng.integers(20, 400, size=256)
                ids = np.minimum(rng.zipf(1.2, size=int(lens.sum())) - 1, len(vocab) - 1)
                words = vocab[ids]
                lines = []
                start = 0
                for n in lens:
                    lines.append("doc-%09d\t%s\n" % (doc, " ".join(words[start:start + n])))
                    start += n
                    doc += 1
                chunk = "".join(lines)
                f.write(chunk)
                written += len(chunk)
    print("corpus: %d shards, %d documents, %.1f MB in %s" % (a.shards, doc, a.shards * per_shard / 1e6, a.out))


if __name__ == "__main__":
    main()
