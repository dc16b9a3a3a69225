#!/usr/bin/env bash
# Runs frugal's benchmarks from the repository root and writes
# bench/results/<name>.json (Google Benchmark JSON, with machine context).
# Usage: bench/run.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
mkdir -p bench/results
"$BUILD/bench/graph_bench" --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true \
  --benchmark_out=bench/results/graph.json --benchmark_out_format=json
"$BUILD/bench/perf_bench" --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true \
  --benchmark_out=bench/results/perf.json --benchmark_out_format=json
