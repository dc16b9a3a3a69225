#include "frugal/perf/iteration.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "frugal/perf/fusion.h"
#include "frugal/perf/precision_time.h"

namespace frugal {
namespace {

// Achieved fraction of a link's peak for large NCCL transfers.
constexpr double kLinkEfficiency = 0.8;
// PCIe x16 one-direction bandwidth by generation, GB/s.
double PcieGbps(int gen) {
  switch (gen) {
    case 3: return 15.75;
    case 4: return 31.5;
    case 5: return 63.0;
    default: return gen > 5 ? 63.0 * (1 << (gen - 5)) : 7.9;
  }
}
constexpr double kDefaultNetworkGbit = 25;

using ShapeKey = std::array<int64_t, 12>;
ShapeKey KeyOf(const OpShape& s) {
  return {static_cast<int64_t>(s.op), s.b, s.m, s.n, s.k, s.h, s.in_channels,
          s.out_channels, s.kernel, s.image, s.stride, s.padding};
}

}  // namespace

Result<std::vector<OpTimePrediction>> PredictOps(const OpTimeModel& model,
                                                 const OpGraph& graph,
                                                 const GpuSpec& gpu, bool fused) {
  std::vector<OpTimePrediction> out(graph.ops.size());
  // Transformer layers repeat: each distinct shape is predicted once.
  std::vector<OpShape> shapes;
  std::map<ShapeKey, size_t> shape_index;
  std::vector<std::tuple<size_t, int64_t, size_t>> slots;  // op, repeat, shape
  std::optional<GpuFeatures> features;
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    OpTimePrediction& p = out[i];
    if (op.measured_time_ms >= 0) {
      p.time_ms = op.measured_time_ms;
      p.basis = "measured";
      continue;
    }
    if (LaunchesNoKernel(op)) {
      p.basis = "view or shape op: no kernel";
      continue;
    }
    OpQuery q = QueryForOp(op);
    p.basis = q.basis;
    if (q.shape) {
      auto [it, added] = shape_index.emplace(KeyOf(*q.shape), shapes.size());
      if (added) shapes.push_back(*q.shape);
      slots.emplace_back(i, q.repeat, it->second);
      continue;
    }
    if (!features) {
      FRUGAL_ASSIGN_OR_RETURN(GpuFeatures g, GpuFeaturesOf(gpu));
      features = g;
    }
    p = RooflineFallback(op, *features, q.basis);
  }
  if (!shapes.empty()) {
    bool as_binary = false;
    FRUGAL_ASSIGN_OR_RETURN(std::vector<double> t,
                            PredictShapesMs(model, shapes, gpu, &as_binary));
    for (const auto& [op, repeat, shape] : slots) {
      out[op].time_ms = t[shape] * static_cast<double>(repeat);
      if (as_binary && IsScalarOperandPerfOp(shapes[shape].op)) out[op].basis += kScalarAsBinaryNote;
    }
  }
  // Half / TF32 ops from the fp32 predictions (precision_time.h).
  FRUGAL_RETURN_IF_ERROR(ApplyPrecisionTimes(graph, gpu, &out));
  if (fused) FRUGAL_RETURN_IF_ERROR(ApplyFusion(model, graph, gpu, &out));
  return out;
}

CommLinks LinksFor(const GpuSpec& gpu, const InstanceSpec* instance, int instances) {
  CommLinks l;
  Interconnect ic = gpu.nvlink_gbps ? Interconnect::kNvlink : Interconnect::kPcie;
  if (instance != nullptr && instance->interconnect) ic = *instance->interconnect;
  if ((ic == Interconnect::kNvlink || ic == Interconnect::kNvswitch) && gpu.nvlink_gbps) {
    // nvlink_gbps adds both directions; a ring uses one direction per hop.
    l.intra_gbps = kLinkEfficiency * *gpu.nvlink_gbps / 2;
    l.description = fmt::format("{} {:.0f} GB/s", InterconnectName(ic), l.intra_gbps);
  } else {
    const int gen = gpu.pcie_gen.value_or(3);
    l.intra_gbps = kLinkEfficiency * PcieGbps(gen);
    l.description = fmt::format("PCIe gen{} {:.1f} GB/s", gen, l.intra_gbps);
  }
  if (instances > 1) {
    double gbit = kDefaultNetworkGbit;
    std::string note = " (assumed)";
    if (instance != nullptr && instance->network_gbit_per_s) {
      gbit = *instance->network_gbit_per_s;
      note = "";
    }
    l.inter_gbps = kLinkEfficiency * gbit / 8;
    l.description += fmt::format(" + {:.0f} Gbit/s network{}", gbit, note);
  }
  return l;
}

double RingAllReduceMs(double bytes, int gpus, const CommLinks& links) {
  if (gpus <= 1 || bytes <= 0) return 0;
  double bw = links.intra_gbps;
  if (links.inter_gbps > 0) bw = std::min(bw, links.inter_gbps);
  const double n = gpus;
  const double transfer_s = 2.0 * (n - 1) / n * bytes / (bw * 1e9);
  const double latency_s = 2.0 * (n - 1) * links.step_latency_us * 1e-6;
  return 1e3 * (transfer_s + latency_s);
}

Result<IterationPrediction> PredictIteration(const OpTimeModel& model,
                                             const OpGraph& graph,
                                             int64_t memory_bytes,
                                             const GpuSpec& gpu,
                                             const IterationOptions& options) {
  FRUGAL_ASSIGN_OR_RETURN(std::vector<OpTimePrediction> ops,
                          PredictOps(model, graph, gpu, options.fused));
  return IterationFromOpTimes(graph, std::move(ops), memory_bytes, gpu, options);
}

Result<IterationPrediction> IterationFromOpTimes(const OpGraph& graph,
                                                 std::vector<OpTimePrediction> ops,
                                                 int64_t memory_bytes, const GpuSpec& gpu,
                                                 const IterationOptions& options) {
  if (options.gpus < 1) return InvalidArgument("GPU count must be >= 1");
  if (ops.size() != graph.ops.size()) return Internal("op times do not match the graph");
  IterationPrediction r;
  r.ops = std::move(ops);
  FRUGAL_ASSIGN_OR_RETURN(std::vector<int> order, graph.TopologicalOrder());
  // Ops run one at a time on one stream, in topological order; gradient
  // buckets fill as weight-gradient ops finish.
  double clock_ms = 0, comm_free_ms = 0, bucket = 0;
  auto flush = [&](double ready_ms) {
    if (bucket <= 0) return;
    const double t = RingAllReduceMs(bucket, options.gpus, options.links);
    comm_free_ms = std::max(comm_free_ms, ready_ms) + t;
    r.comm_total_ms += t;
    bucket = 0;
  };
  double backward_end_ms = 0;
  for (int i : order) {
    const Op& op = graph.ops[i];
    const double t = r.ops[i].time_ms;
    r.fallback_ops += r.ops[i].fallback ? 1 : 0;
    switch (op.phase) {
      case Phase::kForward: r.forward_ms += t; break;
      case Phase::kBackward: r.backward_ms += t; break;
      case Phase::kOptimizer: r.optimizer_ms += t; break;
    }
    if (op.phase == Phase::kOptimizer) continue;
    clock_ms += t;
    if (op.phase == Phase::kBackward) {
      backward_end_ms = clock_ms;
      if (options.gpus > 1 && op.grad == GradRole::kWeight) {
        for (const auto& out : op.outputs) bucket += static_cast<double>(out.Bytes());
        if (bucket >= static_cast<double>(options.bucket_bytes)) flush(clock_ms);
      }
    }
  }
  // Profiled graphs and single-op-per-gradient graphs: gradients of any
  // optimizer input that no weight-gradient op produced are reduced at the end.
  if (options.gpus > 1 && r.comm_total_ms == 0 && bucket == 0) {
    for (const Op& op : graph.ops) {
      if (op.phase == Phase::kForward) bucket += static_cast<double>(op.param_bytes);
    }
  }
  flush(backward_end_ms);
  r.comm_ms = std::max(0.0, comm_free_ms - backward_end_ms);
  if (!graph.IsTraining()) r.comm_ms = r.comm_total_ms = 0;
  r.iteration_ms = r.forward_ms + r.backward_ms + r.comm_ms + r.optimizer_ms;
  r.memory_bytes = memory_bytes;
  r.gpu_memory_bytes = gpu.mem_gib * 1024.0 * 1024 * 1024;
  r.fits = static_cast<double>(memory_bytes) + options.reserved_bytes <= r.gpu_memory_bytes;
  return r;
}

}  // namespace frugal
