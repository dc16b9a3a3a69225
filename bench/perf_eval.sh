#!/usr/bin/env bash
# Accuracy of the op-time models on the shared NeuSight op timings, written to
# bench/results/perf_eval.json:
#  1. `perf eval`: median and mean absolute percentage error per model, op
#     type and GPU, on a seeded random 20% hold-out and leave-one-GPU-out, and
#     leave-one-GPU-out after few-shot calibration on 30 measured rows per op
#     type of the held-out GPU (split "logo-cal");
#  2. bench/perf_unseen.py: models trained without each GPU, scored with
#     `perf score` on its transformer-shape timings and on its end-to-end
#     labels ("unseen_gpu").
# Usage: bench/perf_eval.sh [FRUGAL_BINARY] [extra `perf eval` flags]
# Takes about 10-15 minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
FRUGAL="${1:-build/tools/frugal/frugal}"
shift || true
mkdir -p bench/results
"$FRUGAL" perf eval --model all --by-gpu --calibrate 30 --out bench/results/perf_eval.json "$@"
python3 bench/perf_unseen.py "$(dirname "$(dirname "$(dirname "$FRUGAL")")")"
echo "wrote bench/results/perf_eval.json" >&2
