#include "frugal/perf/precision_time.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "frugal/graph/op_cost.h"
#include "frugal/perf/features.h"

namespace frugal {
namespace {

// Bytes of the op's tensors as it moves them, and as fp32 would.
void TensorBytes(const Op& op, double* fp32, double* now) {
  *fp32 = *now = 0;
  for (const auto* ts : {&op.inputs, &op.outputs}) {
    for (const auto& t : *ts) {
      *now += static_cast<double>(TensorBytesMoved(op, t));
      const double elems = static_cast<double>(t.NumElements());
      *fp32 += IsFloatDType(t.dtype) && t.dtype != DType::kFloat64 ? 4 * elems
                                                              : static_cast<double>(t.Bytes());
    }
  }
}

}  // namespace

std::string ReducedMathOf(const Op& op) {
  if (!RunsOnTensorCores(op.kind)) return "";
  auto m = op.attrs.strings.find("math");
  if (m != op.attrs.strings.end()) return m->second;
  // A graph imported in half precision: its GEMMs' inputs say so.
  for (const auto& t : op.inputs) {
    if (t.role != TensorRole::kActivation) continue;
    if (t.dtype == DType::kFloat16) return "fp16";
    if (t.dtype == DType::kBFloat16) return "bf16";
  }
  return "";
}

double ScaleOpTimeMs(double t_fp32_ms, double flops, double bytes_fp32, double bytes_new,
                     double peak_fp32, double peak_new, double bw_bps) {
  const double before = std::max(flops / peak_fp32, bytes_fp32 / bw_bps);
  const double after = std::max(flops / peak_new, bytes_new / bw_bps);
  if (before <= 0 || t_fp32_ms <= 0) return t_fp32_ms;
  const double t = t_fp32_ms * after / before;
  return std::max(t, std::min(t_fp32_ms, kLaunchOverheadMs));
}

Status ApplyPrecisionTimes(const OpGraph& graph, const GpuSpec& gpu,
                           std::vector<OpTimePrediction>* ops) {
  if (ops->size() != graph.ops.size()) return Internal("op times do not match the graph");
  std::optional<GpuFeatures> f;
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    OpTimePrediction& p = (*ops)[i];
    if (op.measured_time_ms >= 0 || p.time_ms <= 0) continue;
    const std::string math = ReducedMathOf(op);
    double bytes32 = 0, bytes_now = 0;
    TensorBytes(op, &bytes32, &bytes_now);
    if (math.empty() && bytes_now == bytes32) continue;
    if (!f) {
      FRUGAL_ASSIGN_OR_RETURN(GpuFeatures g, GpuFeaturesOf(gpu));
      f = g;
    }
    std::optional<double> tc;
    if (math == "fp16") tc = gpu.fp16_tensor_tflops;
    if (math == "bf16") tc = gpu.bf16_tensor_tflops;
    if (math == "tf32") tc = gpu.tf32_tensor_tflops;
    const double peak_new = tc ? *tc * 1e12 : f->peak_flops;
    // A roofline fallback was priced at the op's own (already reduced) bytes.
    if (p.fallback) bytes32 = bytes_now;
    const double t = ScaleOpTimeMs(p.time_ms, op.flops, bytes32, bytes_now, f->peak_flops,
                                   peak_new, f->mem_bw_bps);
    std::string how;
    if (!math.empty() && tc) {
      how = fmt::format("{} tensor cores ({:.0f} TFLOPS)", math, *tc);
    } else if (!math.empty() && math != "tf32") {
      how = fmt::format("{} without tensor cores: FP32 rate, {} bytes", math, math);
    } else if (!math.empty()) {
      how = "tf32 without tensor cores: fp32";
    } else {
      how = "reduced-precision bytes";
    }
    p.basis += fmt::format("; {} x{:.2f} of the fp32 time", how, t / p.time_ms);
    p.time_ms = t;
  }
  return Status::Ok();
}

}  // namespace frugal
