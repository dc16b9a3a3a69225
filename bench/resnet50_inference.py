#!/usr/bin/env python3
"""ResNet-50 inference latency priced by `frugal predict --infer` against NVIDIA's published
table, from batch 1 (launch-bound) to batch 256 (compute-bound).
Source: NVIDIA DeepLearningExamples, PyTorch/Classification/ConvNets/resnet50v1.5/README.md,
"Inference performance results" (pytorch-21.03 NGC container), "FP32 Inference Latency",
Latency Avg: NVIDIA DGX-1 (1x V100 16GB = V100-SXM2-16GB) and NVIDIA T4.
Writes bench/results/resnet50_inference.json: per row the predicted and published latency and
their APE, and the median APE per GPU and over all rows.
Usage (from the repository root): bench/resnet50_inference.py [BUILD_DIR] [PERF_MODEL]
"""
import statistics
import sys

from resnet50_dle import README, predictor, write_result

predict = predictor()
SOURCE = README + "#inference-performance-results"
# gpu -> {batch: published average latency, ms}
TABLE = {
    "V100-SXM2-16GB": {1: 10.37, 2: 10.24, 4: 10.46, 8: 11.5, 16: 16.07, 32: 29.37, 64: 55.4,
                       128: 109.26, 256: 214.48},
    "T4": {1: 10.7, 2: 11.26, 4: 12.73, 8: 22.41, 16: 39.77, 32: 77.62, 64: 152.73,
           128: 309.26, 256: 635.98},
}
rows = []
for gpu, by_batch in TABLE.items():
    for batch, published in by_batch.items():
        p = predict(gpu, batch, "--infer", "--precision", "fp32")
        rows.append({"gpu": gpu, "batch": batch, "perf_model": p["perf_model"],
                     "predicted_ms": p["iteration_ms"], "published_ms": published,
                     "ape": abs(p["iteration_ms"] - published) / published})
out = {"source": SOURCE, "command": " ".join(["bench/resnet50_inference.py"] + sys.argv[1:]),
       "rows": rows, "median_ape": statistics.median(r["ape"] for r in rows),
       "median_ape_by_gpu": {g: statistics.median(r["ape"] for r in rows if r["gpu"] == g)
                             for g in TABLE}}
write_result("resnet50_inference", out)
for r in rows:
    print(f"{r['gpu']:<16} b{r['batch']:<4} predicted {r['predicted_ms']:8.2f} ms"
          f"  published {r['published_ms']:7.2f} ms  APE {100 * r['ape']:5.1f} %")
print(f"median APE {100 * out['median_ape']:.1f} %  " +
      "  ".join(f"{g} {100 * v:.1f} %" for g, v in out["median_ape_by_gpu"].items()))
