#!/usr/bin/env bash
# Builds the importer fuzzers with clang (ASan + UBSan) in build-fuzz/ and
# runs each for SECONDS (default 20), seeded from bundled inputs. Exits 1 on
# the first crash, leak or timeout, leaving the reproducer in build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH="${1:-20}"
if ! command -v clang++ >/dev/null; then
  echo "fuzz: clang++ not found, skipping fuzzers" >&2
  exit 0
fi
B=build-fuzz
if [ ! -f "$B/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DFRUGAL_BUILD_FUZZERS=ON -DFRUGAL_BUILD_TESTS=OFF -DFRUGAL_BUILD_BENCH=OFF \
    -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer" >/dev/null
fi
cmake --build "$B" -j 2 --target fuzz_onnx fuzz_hf fuzz_dnn_partitioning fuzz_frugal

SHARED=../shared/data
seed() {  # seed DIR FILES...: copies existing small seed files into DIR
  local dir="$1"; shift
  mkdir -p "$dir"
  for f in "$@"; do
    if [ -f "$f" ]; then cp "$f" "$dir/"; fi
  done
}
seed "$B/corpus/onnx" models/mobilenet_v2.onnx testdata/onnx/*.onnx
seed "$B/corpus/hf" "$SHARED"/models/hf-configs/*.json
seed "$B/corpus/dnn_partitioning" "$SHARED"/graphs/dnn-partitioning/latency-inputs/LayerGraphs/*.json
seed "$B/corpus/frugal" testdata/graphs/*.json

for t in onnx hf dnn_partitioning frugal; do
  echo "fuzz: $t for ${SECONDS_EACH}s" >&2
  (cd "$B" && ASAN_OPTIONS=detect_leaks=1 "./fuzz/fuzz_$t" -max_total_time="$SECONDS_EACH" \
      -timeout=10 -rss_limit_mb=4096 -max_len=1048576 -print_final_stats=1 "corpus/$t" \
      2>"fuzz_$t.log") || { echo "fuzz: $t failed; see $B/fuzz_$t.log" >&2; tail -30 "$B/fuzz_$t.log" >&2; exit 1; }
  grep -E "stat::number_of_executed_units" "$B/fuzz_$t.log" >&2 || true
done
