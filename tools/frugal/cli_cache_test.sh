#!/usr/bin/env bash
# CLI checks for `frugal cache`. Usage: cli_cache_test.sh FRUGAL_BINARY
# Runs from the repository root. Exits 1 on the first failed check.
source "$(dirname "$0")/cli_test_lib.sh" "$1"
py() { python3 -c "$@"; }

# Bad input: one line naming the file / record, exit 1.
expect_error 1 "nonexistent.bin: no such file" cache simulate nonexistent.bin
expect_error 1 "bad_truncated.bin: truncated oracleGeneral trace" cache simulate testdata/cache/bad_truncated.bin
expect_error 1 "bad_unsorted.csv: record 3: time 10 us is before" cache simulate testdata/cache/bad_unsorted.csv
expect_error 1 "bad_negative_size.csv: record 2: negative size -5" cache simulate testdata/cache/bad_negative_size.csv
expect_error 1 "cache size must be > 0" cache simulate testdata/cache/tiny.csv --size 0
expect_error 1 "bad cache size 'nan%': not a finite number" cache simulate testdata/cache/tiny.csv --size nan%
expect_error 2 "--no-stream applies to oracleGeneral traces" cache simulate testdata/cache/tiny.csv --no-stream
printf 'time_us,op,path,offset,length,size,pipeline,stage,worker,new_path\n' >"$TMP/header_only.csv"
expect_error 1 "header_only.csv: the trace touches no bytes" cache simulate "$TMP/header_only.csv"
# The same on a streamed oracleGeneral trace of zero-byte objects, at a
# percentage or an absolute size, one cell or several.
head -c 2400 /dev/zero >"$TMP/zeros.oracleGeneral.bin"
expect_error 1 "zeros.oracleGeneral.bin: the trace touches no bytes" cache simulate "$TMP/zeros.oracleGeneral.bin" --policy lru --size 100
expect_error 1 "zeros.oracleGeneral.bin: the trace touches no bytes" cache simulate "$TMP/zeros.oracleGeneral.bin" --policy lru,fifo --size 1%
expect_error 1 "zeros.oracleGeneral.bin: the trace touches no bytes" cache simulate "$TMP/zeros.oracleGeneral.bin" --policy lru --size 100 --no-stream
expect_error 1 "cache size must be > 0" cache simulate testdata/cache/tiny.csv --size 0%
expect_error 1 "bad cache size 'lots'" cache simulate testdata/cache/tiny.csv --size lots
expect_error 1 "unknown policy 'mru'" cache simulate testdata/cache/tiny.csv --policy mru
expect_error 1 "unknown trace format 'parquet'" cache simulate testdata/cache/tiny.csv --format parquet
expect_error 1 "--overlap: serial not in {full,none}" cache simulate testdata/cache/tiny.csv --overlap serial
expect_error 1 "unknown preset 'video'" cache gen --preset video -o "$TMP/x.frt"
expect_error 1 "--days must be in 1..365" cache gen --days 0 -o "$TMP/x.frt"
expect_error 1 "unknown breakdown key 'week'" cache simulate testdata/cache/tiny.csv --breakdown stage,week
expect_error 1 "unknown breakdown key ''" cache simulate testdata/cache/tiny.csv --breakdown ""
expect_error 1 "breakdown key 'day' given twice" cache simulate testdata/cache/tiny.csv --breakdown day,day
expect_error 1 "cloudphysics_head.oracleGeneral.bin: the trace has no file paths" \
  cache simulate testdata/cache/cloudphysics_head.oracleGeneral.bin --breakdown pattern
head -c 100 /dev/urandom > "$TMP/garbage.frt"
expect_error 1 "garbage.frt" cache simulate "$TMP/garbage.frt"

# zstd-compressed oracleGeneral (libCacheSim publishes its traces as .zst):
# the same results as the uncompressed file, loaded and streamed.
for extra in "" "--no-stream"; do
  "$FRUGAL" cache simulate testdata/cache/cloudphysics_head.oracleGeneral.bin --policy arc --size 10% --json \
    $extra >"$TMP/plain.json" || fail "simulate .bin $extra"
  "$FRUGAL" cache simulate testdata/cache/cloudphysics_head.oracleGeneral.zst --policy arc --size 10% --json \
    $extra >"$TMP/packed.json" || fail "simulate .zst $extra"
  py 'import json,sys; a,b=(json.load(open(p))["results"][0] for p in sys.argv[1:3]); assert (a["miss_ratio"],a["byte_miss_ratio"])==(b["miss_ratio"],b["byte_miss_ratio"]), (a,b)' \
    "$TMP/plain.json" "$TMP/packed.json" || fail "zst and bin differ $extra"
done
head -c 200 testdata/cache/cloudphysics_head.oracleGeneral.zst >"$TMP/cut.oracleGeneral.zst"
expect_error 1 "cut.oracleGeneral.zst: truncated zstd stream" cache simulate "$TMP/cut.oracleGeneral.zst"
cp testdata/cache/cloudphysics_head.oracleGeneral.zst "$TMP/packed.csv"
expect_error 1 "packed.csv: zstd-compressed; only oracleGeneral" cache info "$TMP/packed.csv"
# 20 KB that decompress to 10 M requests (240 MB): under a 400 MB address-space
# limit, loading them (44 bytes a request) is refused before allocating, and
# counting them stops as soon as they are known to be too many; streamed,
# they need about 80 MB.
(ulimit -v 400000
 expect_error 1 "repeat_10m.oracleGeneral.zst: over 83" \
   cache simulate testdata/cache/repeat_10m.oracleGeneral.zst --policy lru --size 1% --no-stream
 expect_error 1 "GiB this process may use (decompression stopped there)" \
   cache simulate testdata/cache/repeat_10m.oracleGeneral.zst --policy lru --size 1% --no-stream) || exit 1
(ulimit -v 800000
 "$FRUGAL" cache simulate testdata/cache/repeat_10m.oracleGeneral.zst --policy lru --size 1% --json >"$TMP/rep.json" ||
   fail "streamed 10 M requests under 800 MB"
 # cache info indexes an oracleGeneral trace as a streamed run does.
 "$FRUGAL" cache info testdata/cache/repeat_10m.oracleGeneral.zst --json >"$TMP/repinfo.json" ||
   fail "cache info on 10 M requests under 800 MB"
 # Several online policies and sizes stream too when loading lacks room.
 "$FRUGAL" cache simulate testdata/cache/repeat_10m.oracleGeneral.zst --policy lru,sieve --size 1%,50% --json \
   --threads 2 >"$TMP/repmulti.json" || fail "streamed cells under 800 MB") || exit 1
"$FRUGAL" cache simulate testdata/cache/repeat_10m.oracleGeneral.zst --policy lru,sieve --size 1%,50% --json \
  >"$TMP/repload.json" || fail "loaded cells"
py 'import json,sys; s,l=(json.load(open(p)) for p in sys.argv[1:3]); assert s["streamed"] and not l["streamed"] and s["results"]==l["results"] and len(s["results"])==4, (s, l)' \
  "$TMP/repmulti.json" "$TMP/repload.json" || fail "streamed cells differ from loaded"
py 'import json,sys; j=json.load(open(sys.argv[1])); assert j["records"]==10000000 and j["objects"]==1 and j["footprint_bytes"]==4096, j' \
  "$TMP/repinfo.json" || fail "cache info on the repeat trace"
py 'import json,sys; j=json.load(open(sys.argv[1])); assert j["streamed"] and j["reads"]==10000000 and j["objects"]==1, j' \
  "$TMP/rep.json" || fail "streamed repeat trace"

# Usage errors exit 2; --help exits 0.
"$FRUGAL" cache >/dev/null 2>&1; [ $? -eq 2 ] || fail "bare 'cache' should exit 2"
"$FRUGAL" cache simulate >/dev/null 2>&1; [ $? -eq 2 ] || fail "'cache simulate' without TRACE should exit 2"
"$FRUGAL" cache simulate --help >/dev/null 2>&1 || fail "--help should exit 0"

# Reads of unknown files are skipped and counted, not fatal.
"$FRUGAL" cache info testdata/cache/unknown_reads.csv --json >"$TMP/info.json" || fail "cache info"
py 'import json,sys; s=json.load(open(sys.argv[1]))["skipped"]; assert s=={"unknown_reads":2,"unknown_deletes":1,"unknown_renames":1}, s' "$TMP/info.json" ||
  fail "info skipped counts"

# list shows the one policy table.
"$FRUGAL" cache list >"$TMP/list.txt" || fail "cache list"
for p in fifo lru lfu arc s3fifo sieve gdsf wtinylfu lrb glcache belady smartcache image text join stage pattern day; do
  grep -q "^  $p " "$TMP/list.txt" || fail "cache list lacks $p"
done

# JSON fields and the SVG.
"$FRUGAL" cache simulate testdata/cache/cloudphysics_head.oracleGeneral.bin --policy all \
  --size 1%,10% --json --svg "$TMP/curve.svg" --threads 2 >"$TMP/sim.json" || fail "simulate --json"
py '
import json,sys
j=json.load(open(sys.argv[1]))
r=j["results"]
assert len(r)==24, len(r)
for x in r:
  for k in ("policy","cache_bytes","miss_ratio","byte_miss_ratio","pipeline_speedup","bytes_written_to_cache"):
    assert k in x, k
  assert 0<=x["miss_ratio"]<=1 and 0<=x["byte_miss_ratio"]<=1
' "$TMP/sim.json" || fail "simulate --json fields"
grep -q "<svg" "$TMP/curve.svg" || fail "--svg wrote no SVG"
grep -q "smartcache" "$TMP/curve.svg" || fail "SVG lacks a policy line"

# --overlap none: a compute-bound trace gains from hits only when compute
# and I/O add up (the recorded Dask job at 20 %, compute 0.03 GB/s).
for ov in full none; do
  "$FRUGAL" cache simulate testdata/cache/recorded/dask_pipeline_100mb.frt --policy lru --size 20% \
    --remote-gbps 0.05 --compute-gbps 0.03 --overlap "$ov" --json >"$TMP/overlap_$ov.json" || fail "--overlap $ov"
done
py '
import json,sys
s=[json.load(open(f))["results"][0]["pipeline_speedup"] for f in sys.argv[1:]]
assert s[0]==1.0 and s[1]>1.05, s
' "$TMP/overlap_full.json" "$TMP/overlap_none.json" || fail "--overlap none does not add compute and I/O"

# Same input and seed: same output, byte for byte.
"$FRUGAL" cache simulate testdata/cache/cloudphysics_head.oracleGeneral.bin --policy all \
  --size 1%,10% --json --threads 1 >"$TMP/sim1.json" || fail "simulate threads 1"
# Timing fields (load_s, simulate_s, requests_per_s, simulate_requests_per_s)
# are the only ones that may differ.
py '
import json,sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
for j in (a,b):
  assert j["load_s"]>=0 and j["simulate_s"]>=0 and j["requests_per_s"]>0 and j["simulate_requests_per_s"]>=j["requests_per_s"], j
  for k in ("load_s","simulate_s","requests_per_s","simulate_requests_per_s"): del j[k]
assert json.dumps(a,sort_keys=True)==json.dumps(b,sort_keys=True)
' "$TMP/sim.json" "$TMP/sim1.json" || fail "results depend on --threads"

# gen writes a trace the simulator reads, deterministically, in both formats.
"$FRUGAL" cache gen --preset text --pipelines 1 --days 2 --scale 0.01 -o "$TMP/a.frt" 2>/dev/null || fail "gen"
"$FRUGAL" cache gen --preset text --pipelines 1 --days 2 --scale 0.01 -o "$TMP/b.frt" 2>/dev/null || fail "gen 2"
cmp -s "$TMP/a.frt" "$TMP/b.frt" || fail "gen is not deterministic"
"$FRUGAL" cache gen --preset text --pipelines 1 --days 2 --scale 0.01 -o "$TMP/a.csv" 2>/dev/null || fail "gen csv"
"$FRUGAL" cache simulate "$TMP/a.frt" --policy lru,belady --size 5% --json >"$TMP/g1.json" || fail "simulate frt"
"$FRUGAL" cache simulate "$TMP/a.csv" --policy lru,belady --size 5% --json >"$TMP/g2.json" || fail "simulate csv"
py '
import json,sys
a=json.load(open(sys.argv[1]))["results"]; b=json.load(open(sys.argv[2]))["results"]
assert [x["byte_miss_ratio"] for x in a]==[x["byte_miss_ratio"] for x in b]
assert a[1]["byte_miss_ratio"]<=a[0]["byte_miss_ratio"]+1e-9, "belady worse than lru"
' "$TMP/g1.json" "$TMP/g2.json" || fail "frt and csv disagree"

# cache train writes a model file smartcache warm-starts from; bad model
# files are one error line naming the file, exit 1.
"$FRUGAL" cache gen --preset join --pipelines 1 --days 2 --scale 0.01 -o "$TMP/j.frt" 2>/dev/null || fail "gen join"
"$FRUGAL" cache train "$TMP/j.frt" -o "$TMP/m.json" --size 5% >"$TMP/train.txt" || fail "cache train"
grep -q "^wrote $TMP/m.json: smartcache models trained on" "$TMP/train.txt" || fail "train output: $(cat "$TMP/train.txt")"
"$FRUGAL" cache train "$TMP/j.frt" -o "$TMP/m2.json" --size 5% >/dev/null || fail "cache train again"
cmp -s "$TMP/m.json" "$TMP/m2.json" || fail "cache train is not deterministic"
"$FRUGAL" cache simulate "$TMP/a.frt" --policy smartcache --size 5% --model "$TMP/m.json" --json >"$TMP/warm.json" ||
  fail "simulate --model"
py 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; assert len(r)==1 and r[0]["policy"]=="smartcache", r' \
  "$TMP/warm.json" || fail "simulate --model results"
expect_error 1 "nomodel.json: no such file" cache simulate "$TMP/a.frt" --policy smartcache --model "$TMP/nomodel.json"
head -c 300 "$TMP/m.json" > "$TMP/trunc.json"
expect_error 1 "trunc.json: malformed JSON" cache simulate "$TMP/a.frt" --policy smartcache --model "$TMP/trunc.json"
head -c 200 /dev/urandom > "$TMP/garbage.json"
expect_error 1 "garbage.json" cache simulate "$TMP/a.frt" --policy smartcache --model "$TMP/garbage.json"
echo '{"format": "frugal-perf-model"}' > "$TMP/kind.json"
expect_error 1 "kind.json: not a smartcache model" cache simulate "$TMP/a.frt" --policy smartcache --model "$TMP/kind.json"
expect_error 1 "policy 'lru' takes no model file" cache simulate "$TMP/a.frt" --policy lru --model "$TMP/m.json"
expect_error 1 "policy 'fifo' takes no model file" cache simulate "$TMP/a.frt" --policy all --model "$TMP/m.json"
expect_error 1 "cache train takes one --size" cache train "$TMP/a.frt" -o "$TMP/x.json" --size 1%,5%
"$FRUGAL" cache train >/dev/null 2>&1; [ $? -eq 2 ] || fail "'cache train' without TRACE should exit 2"

# Human table.
"$FRUGAL" cache simulate testdata/cache/tiny.csv --policy lru --size 100% >"$TMP/t.txt" || fail "table"
grep -q "^lru .* 0.2857 " "$TMP/t.txt" || fail "tiny.csv lru miss ratio: $(cat "$TMP/t.txt")"
grep -q "M requests/s whole run (load .* s), .* M requests/s simulation alone" "$TMP/t.txt" ||
  fail "table lacks requests/s: $(cat "$TMP/t.txt")"

# --breakdown on the recorded Dask trace (both runs on one day): per path
# pattern and day, rows that add up to each policy's byte miss ratio, and
# the table lists the worst.
REC=testdata/cache/recorded/dask_pipeline_100mb.frt
"$FRUGAL" cache simulate "$REC" --policy lru,belady --size 20% --breakdown pattern,day --json >"$TMP/bd.json" ||
  fail "simulate --breakdown"
py 'import json,sys
for r in json.load(open(sys.argv[1]))["results"]:
    b = r["breakdown"]; assert b["by"] == "pattern,day", b["by"]
    keys = [x["key"] for x in b["rows"]]
    assert "/raw/shard-#.txt · day 0" in keys and "/shards/day#/part-#.csv · day 0" in keys, keys
    assert abs(sum(x["byte_miss_contribution"] for x in b["rows"]) - r["byte_miss_ratio"]) < 1e-9
    assert sum(x["read_bytes"] for x in b["rows"]) == r["read_bytes"]' "$TMP/bd.json" || fail "breakdown rows"
"$FRUGAL" cache simulate "$REC" --policy lru --size 20% --breakdown stage >"$TMP/bd.txt" || fail "breakdown table"
grep -q "read, byte miss .* of all reads: " "$TMP/bd.txt" || fail "breakdown table lacks rows: $(cat "$TMP/bd.txt")"

# The libCacheSim reference on cloudphysics (when the shared data is there).
CP=../shared/data/traces/cloudphysics/cloudPhysicsIO.oracleGeneral.bin
if [ -f "$CP" ]; then
  "$FRUGAL" cache simulate "$CP" --policy lru --size 10% --json >"$TMP/cp.json" || fail "cloudphysics"
  py 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; assert round(r["miss_ratio"],4)==0.8097 and round(r["byte_miss_ratio"],4)==0.9518, r' \
    "$TMP/cp.json" || fail "cloudphysics lru 10% does not match the reference"
fi
exit 0
