// Iteration time of a training (or inference) step on N data-parallel GPUs:
// the sum of predicted per-op times for forward, backward and optimizer, plus
// PyTorch-DDP-style ring all-reduce of the gradients in buckets, overlapped
// with the backward pass. Also the memory fit of the step on the GPU.
//
// Communication model: gradients become ready as the backward pass produces
// each weight gradient; they fill buckets of `bucket_bytes` (reverse order,
// as DDP); a full bucket is all-reduced on one communication stream, one
// bucket at a time, taking 2(N-1)/N * bytes / bw + 2(N-1) * step latency
// (ring all-reduce); whatever communication outlasts the backward pass is
// exposed. The optimizer runs after the last bucket. Stateless; thread-safe.
#ifndef FRUGAL_PERF_ITERATION_H_
#define FRUGAL_PERF_ITERATION_H_

#include <optional>
#include <string>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/graph/op_graph.h"
#include "frugal/graph/training.h"
#include "frugal/hw/catalog.h"
#include "frugal/perf/op_time_model.h"

namespace frugal {

// Per-op times of every op of `graph` on `gpu`, batched per call to the
// model. Ops with measured times (profiled graphs) keep them; shape / view
// ops (attrs "view" = 1, kind shape / constant) cost nothing; ops no measured
// op type covers fall back to the roofline of their FLOPs and bytes. With
// `fused`, chains of elementwise / normalisation / copy ops between GEMMs
// are priced as the kernels torch.compile generates (fusion.h).
Result<std::vector<OpTimePrediction>> PredictOps(const OpTimeModel& model,
                                                 const OpGraph& graph,
                                                 const GpuSpec& gpu, bool fused = false);

// Links used by the gradient all-reduce.
struct CommLinks {
  double intra_gbps = 0;    // per-GPU one-direction bandwidth inside an instance, GB/s
  double inter_gbps = 0;    // per-instance network bandwidth, GB/s (0: one instance)
  double step_latency_us = 10;  // per ring step
  std::string description;  // "NVLink 300 GB/s", "PCIe gen3 12.6 GB/s + 25 Gbit/s network"
};

// The links of `instances` instances of `instance` (or, without an
// instance, of one machine with `gpus` GPUs of type `gpu`: NVLink when the
// GPU has it, else PCIe of its generation). Efficiency factors and defaults
// are documented in docs/perf.md.
CommLinks LinksFor(const GpuSpec& gpu, const InstanceSpec* instance, int instances);

struct IterationOptions {
  int gpus = 1;           // data-parallel GPUs in all. REQUIRES: >= 1
  bool fused = false;     // price torch.compile-style kernel fusion
  CommLinks links;        // used when gpus > 1
  int64_t bucket_bytes = 25 * 1024 * 1024;  // DDP's default bucket cap
  // Memory the framework and CUDA context keep on each GPU, bytes.
  double reserved_bytes = 1.0 * 1024 * 1024 * 1024;
};

struct IterationPrediction {
  double forward_ms = 0;
  double backward_ms = 0;
  double optimizer_ms = 0;
  double comm_total_ms = 0;  // all-reduce time, overlapped or not
  double comm_ms = 0;        // exposed (not hidden behind backward)
  double iteration_ms = 0;
  int64_t memory_bytes = 0;
  double gpu_memory_bytes = 0;
  bool fits = false;
  int fallback_ops = 0;
  std::vector<OpTimePrediction> ops;  // per op of the graph, same order
};

// `graph`: a training graph (with backward / optimizer ops) or a forward
// graph for inference; `memory_bytes`: the step's memory per GPU.
Result<IterationPrediction> PredictIteration(const OpTimeModel& model,
                                             const OpGraph& graph,
                                             int64_t memory_bytes,
                                             const GpuSpec& gpu,
                                             const IterationOptions& options);

// As PredictIteration, from per-op times already predicted for `gpu`
// (PredictOps), so callers pricing many GPU counts predict each GPU once.
Result<IterationPrediction> IterationFromOpTimes(const OpGraph& graph,
                                                 std::vector<OpTimePrediction> ops,
                                                 int64_t memory_bytes, const GpuSpec& gpu,
                                                 const IterationOptions& options);

// Time of one ring all-reduce of `bytes` over `gpus` GPUs, ms.
double RingAllReduceMs(double bytes, int gpus, const CommLinks& links);

}  // namespace frugal

#endif  // FRUGAL_PERF_ITERATION_H_
