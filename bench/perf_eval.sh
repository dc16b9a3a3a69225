#!/usr/bin/env bash
# Accuracy of the op-time models on the shared NeuSight op timings: median and
# mean absolute percentage error per model, op type and GPU, on a seeded
# random 20% hold-out and leave-one-GPU-out. Writes bench/results/perf_eval.json
# and prints the table. Leave-one-GPU-out is also scored after few-shot
# calibration on 30 measured rows per op type of the held-out GPU
# (split "logo-cal"; those rows leave both LOGO test sets).
# Usage: bench/perf_eval.sh [FRUGAL_BINARY] [extra `perf eval` flags]
# Takes about 5-10 minutes on two cores (the learned model is trained seven
# times: once for the random split, once per held-out GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
FRUGAL="${1:-build/tools/frugal/frugal}"
shift || true
mkdir -p bench/results
"$FRUGAL" perf eval --model all --by-gpu --calibrate 30 --out bench/results/perf_eval.json "$@"
echo "wrote bench/results/perf_eval.json" >&2
