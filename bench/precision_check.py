#!/usr/bin/env python3
"""Mixed-precision check: ResNet-50 training throughput priced by
`frugal predict --precision` against NVIDIA's published table.

Source: NVIDIA DeepLearningExamples, PyTorch/Classification/ConvNets/resnet50v1.5/README.md,
"Training performance results" (pytorch-21.03 NGC container), 1-GPU rows:
  DGX-1 16GB (V100-SXM2-16GB): FP32 367 img/s, mixed precision 1200 img/s (3.26x)
  DGX A100 80GB (A100-SXM4-80GB): TF32 938 img/s, mixed precision 2470 img/s (2.63x)
Batch sizes from PyTorch/Classification/ConvNets/configs.yml (resnet50): DGX1V FP32 112,
AMP 256; DGXA100 TF32 256, AMP 256. SGD with momentum.

Writes bench/results/precision_check.json: per row the predicted and published
img/s and their APE, and per GPU the predicted and published speed-up.

Usage (from the repository root): bench/precision_check.py [BUILD_DIR] [PERF_MODEL]
"""
import statistics
import sys

from resnet50_dle import README, predictor, write_result

predict = predictor()
SOURCE = README + "#training-performance-results"

# (gpu, precision, batch, published img/s)
TABLE = [
    ("V100-SXM2-16GB", "fp32", 112, 367),
    ("V100-SXM2-16GB", "amp-fp16", 256, 1200),
    ("A100-SXM4-80GB", "tf32", 256, 938),
    ("A100-SXM4-80GB", "amp-fp16", 256, 2470),
]

rows = []
for gpu, precision, batch, published in TABLE:
    p = predict(gpu, batch, "--optimizer", "momentum", "--precision", precision)
    ips = batch * 1000.0 / p["iteration_ms"]
    rows.append({"model": "resnet50", "gpu": gpu, "precision": precision, "batch": batch,
                 "perf_model": p["perf_model"], "iteration_ms": p["iteration_ms"],
                 "memory_bytes": p["memory_bytes"], "fits": p["fits"],
                 "predicted_img_s": ips, "published_img_s": published,
                 "ape": abs(ips - published) / published})

speedups = []
for gpu in sorted({r["gpu"] for r in rows}):
    base, amp = [r for r in rows if r["gpu"] == gpu]
    pred = amp["predicted_img_s"] / base["predicted_img_s"]
    pub = amp["published_img_s"] / base["published_img_s"]
    speedups.append({"gpu": gpu, "from": base["precision"], "to": amp["precision"],
                     "predicted_speedup": pred, "published_speedup": pub,
                     "ape": abs(pred - pub) / pub})

out = {"source": SOURCE, "command": " ".join(["bench/precision_check.py"] + sys.argv[1:]),
       "rows": rows, "speedups": speedups,
       "median_throughput_ape": statistics.median(r["ape"] for r in rows),
       "median_speedup_ape": statistics.median(s["ape"] for s in speedups)}
write_result("precision_check", out)
for r in rows:
    print(f"{r['gpu']:<16} {r['precision']:<9} b{r['batch']:<4} predicted {r['predicted_img_s']:7.0f}"
          f" img/s  published {r['published_img_s']:5d}  APE {100 * r['ape']:5.1f} %")
for s in speedups:
    print(f"{s['gpu']:<16} {s['from']} -> {s['to']}: predicted {s['predicted_speedup']:.2f}x"
          f"  published {s['published_speedup']:.2f}x  APE {100 * s['ape']:.1f} %")
