#!/usr/bin/env bash
# Builds the fuzzers with clang (ASan + UBSan) in build-fuzz/ and runs each
# for SECONDS (default 20), seeded from bundled inputs: one per graph
# importer (onnx, hf, dnn_partitioning, frugal) and one per other reader
# (catalog, topology, trace — csv / frugal binary / oracleGeneral by the
# first byte —, timing CSV, G-Share JOBS.json, smartcache model, Kubernetes objects). Exits 1 on the first crash, leak or timeout,
# leaving the reproducer in build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH="${1:-20}"
if ! command -v clang++ >/dev/null; then
  echo "fuzz: clang++ not found, skipping fuzzers" >&2
  exit 0
fi
B=build-fuzz
TARGETS=(onnx hf dnn_partitioning frugal catalog topology trace timing perf_model share_jobs share_nodes share_pods
  colocation smartcache_model report share_k8s)
if [ ! -f "$B/build.ninja" ]; then
  LAUNCHER=()
  if command -v ccache >/dev/null; then LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  # -O1 with line tables only: symbolised reports at about half RelWithDebInfo's build time.
  CC=clang CXX=clang++ cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=None \
    -DFRUGAL_BUILD_FUZZERS=ON -DFRUGAL_BUILD_TESTS=OFF -DFRUGAL_BUILD_BENCH=OFF "${LAUNCHER[@]}" \
    -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only -DNDEBUG -fsanitize=address,undefined -fno-omit-frame-pointer" \
    >/dev/null
fi
cmake --build "$B" -j 2 --target "${TARGETS[@]/#/fuzz_}"

SHARED=../shared/data
seed() {  # seed DIR FILES...: copies existing small seed files into DIR
  local dir="$1"; shift
  mkdir -p "$dir"
  for f in "$@"; do
    if [ -f "$f" ]; then cp "$f" "$dir/"; fi
  done
}
seed_with_byte() {  # seed_with_byte DIR BYTE FILE: FILE's start behind one selector byte
  mkdir -p "$1"
  if [ -f "$3" ]; then
    { printf "\\$(printf '%03o' "$2")"; head -c 8192 "$3"; } > "$1/$2-$(basename "$3")"
  fi
}
seed "$B/corpus/onnx" models/mobilenet_v2.onnx testdata/onnx/*.onnx
seed "$B/corpus/hf" "$SHARED"/models/hf-configs/*.json
seed "$B/corpus/dnn_partitioning" "$SHARED"/graphs/dnn-partitioning/latency-inputs/LayerGraphs/*.json
seed "$B/corpus/frugal" testdata/graphs/*.json
seed "$B/corpus/catalog" data/catalog/*.json
seed "$B/corpus/topology" testdata/place/*.topology.json
seed "$B/corpus/share_jobs" testdata/share/*.json
seed "$B/corpus/smartcache_model" testdata/cache/smartcache_tiny.model.json
seed "$B/corpus/report" testdata/report/*.json
seed "$B/corpus/share_nodes" testdata/share/tiny_nodes.csv
seed "$B/corpus/share_pods" testdata/share/tiny_pods.csv
seed "$B/corpus/share_k8s" testdata/share/k8s_cluster.json
for f in testdata/cache/*.csv; do seed_with_byte "$B/corpus/trace" 0 "$f"; done
seed_with_byte "$B/corpus/trace" 2 testdata/cache/cloudphysics_head.oracleGeneral.bin
seed_with_byte "$B/corpus/trace" 2 testdata/cache/cloudphysics_head.oracleGeneral.zst
seed_with_byte "$B/corpus/colocation" 1 testdata/share/gavel_tiny.json
{ printf '\000'; cat testdata/share/lucid_tiny/colocate_info.csv; printf '\000'
  cat testdata/share/lucid_tiny/single_data.csv; } > "$B/corpus/colocation/0-lucid_tiny"
mkdir -p "$B/corpus/perf_model"
# Seeds: the bundled ceer model (UBJSON, small), tagged with an odd first byte.
if [ -f data/perf/ceer.ubj ]; then { printf '\x01'; cat data/perf/ceer.ubj; } > "$B/corpus/perf_model/ceer"; fi
mkdir -p "$B/corpus/timing"
for f in "$SHARED"/perf/neusight-op-timings/*/NVIDIA_A100-PCIE-40GB.csv; do
  if [ -f "$f" ]; then head -c 4096 "$f" > "$B/corpus/timing/$(basename "$(dirname "$f")").csv"; fi
done

run_one() {  # run_one TARGET: fuzzes it, leaving its exit status in $B/fuzz_TARGET.rc
  local t="$1" rc=0
  echo "fuzz: $t for ${SECONDS_EACH}s" >&2
  (cd "$B" && ASAN_OPTIONS=detect_leaks=1 "./fuzz/fuzz_$t" -max_total_time="$SECONDS_EACH" \
      -timeout=10 -rss_limit_mb=4096 -max_len=1048576 -print_final_stats=1 "corpus/$t" \
      2>"fuzz_$t.log") || rc=$?
  echo "$rc" > "$B/fuzz_$t.rc"
}
# Two fuzzers at a time (one per core of the build machines).
for t in "${TARGETS[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n || true; done
  run_one "$t" &
done
wait
for t in "${TARGETS[@]}"; do
  if [ "$(cat "$B/fuzz_$t.rc")" != 0 ]; then
    echo "fuzz: $t failed; see $B/fuzz_$t.log" >&2; tail -30 "$B/fuzz_$t.log" >&2; exit 1
  fi
  grep -E "stat::number_of_executed_units" "$B/fuzz_$t.log" >&2 || true
done
