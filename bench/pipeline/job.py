#!/usr/bin/python3
"""One day of the preprocessing job, on a Dask LocalCluster (2 worker
processes), entirely through ROOT (the cache mount):

  1. read raw/shard-*.txt (one partition per shard);
  2. tokenise and normalise each document (lower case, strip punctuation),
     key it by a hash of its first token;
  3. a disk-based shuffle (shuffle="disk": partd's files in ROOT/tmp) that
     groups documents by key;
  4. write the training shards ROOT/shards/dayD/part-N.csv (sorted by key);
  5. a "training" reader that reads every shard of the day for --epochs
     epochs, each in its own seeded order, 1 MiB at a time.

The previous day's shards are deleted first (a daily re-run replaces them).
Prints one JSON line: seconds per phase.

Usage: job.py ROOT --day D [--epochs 3] [--partitions 16] [--seed 1]
"""
import argparse
import glob
import json
import os
import random
import re
import shutil
import time
import zlib

import dask
import dask.bag as db
import pandas as pd
from dask.distributed import Client, LocalCluster

PUNCT = re.compile(r"[^\w\s]")


def parse(line):
    doc, _, text = line.rstrip("\n").partition("\t")
    tokens = PUNCT.sub("", text.lower()).split()
    key = zlib.crc32(tokens[0].encode()) % 997 if tokens else 0
    return {"key": key, "doc": doc, "ntokens": len(tokens), "text": " ".join(tokens)}


def train(files, epochs, seed):
    lines = 0
    for e in range(epochs):
        order = sorted(files)
        random.Random(seed * 1000 + e).shuffle(order)
        for path in order:
            with open(path, "rb", buffering=0) as f:
                while True:
                    chunk = f.read(1 << 20)
                    if not chunk:
                        break
                    lines += chunk.count(b"\n")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root")
    ap.add_argument("--day", type=int, required=True)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--partitions", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    t = {"day": a.day}
    t0 = time.time()
    for old in glob.glob(os.path.join(a.root, "shards", "day*")):
        shutil.rmtree(old)
    tmp = os.path.join(a.root, "tmp")
    os.makedirs(tmp, exist_ok=True)
    out = os.path.join(a.root, "shards", "day%d" % a.day)
    dask.config.set({"temporary_directory": tmp})
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      local_directory=tmp) as cluster, Client(cluster):
        t1 = time.time()
        b = db.read_text(os.path.join(a.root, "raw", "shard-*.txt"), blocksize=None).map(parse)
        meta = pd.DataFrame({"key": pd.Series(dtype="int64"), "doc": pd.Series(dtype="object"),
                             "ntokens": pd.Series(dtype="int64"), "text": pd.Series(dtype="object")})
        df = b.to_dataframe(meta=meta)
        df = df.shuffle("key", shuffle="disk", npartitions=a.partitions)
        df = df.map_partitions(lambda p: p.sort_values(["key", "doc"]), meta=meta)
        df.to_csv(os.path.join(out, "part-*.csv"), index=False)
        t["preprocess_s"] = time.time() - t1
    t2 = time.time()
    files = glob.glob(os.path.join(out, "part-*.csv"))
    t["train_lines"] = train(files, a.epochs, a.seed)
    t["train_s"] = time.time() - t2
    t["total_s"] = time.time() - t0
    print(json.dumps(t))


if __name__ == "__main__":
    main()
