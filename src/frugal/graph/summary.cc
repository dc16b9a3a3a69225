#include "frugal/graph/summary.h"

#include <fmt/format.h>

#include "frugal/base/units.h"
#include "frugal/graph/op_cost.h"

namespace frugal {
namespace {

// An eval export folds BatchNorm into the preceding Conv (which gains a
// bias). A training-mode export keeps both BatchNorm and Dropout, so a
// Dropout op says the missing BatchNorm was never there (AlexNet,
// SqueezeNet, VGG without BN).
bool LooksBatchNormFolded(const OpGraph& forward) {
  if (forward.source_format != "onnx") return false;
  int convs = 0;
  for (const Op& op : forward.ops) {
    if (op.kind == OpKind::kBatchNorm || op.kind == OpKind::kDropout) return false;
    if (op.kind != OpKind::kConv) continue;
    ++convs;
    if (op.inputs.size() < 3) return false;
  }
  return convs > 0;
}

}  // namespace

GraphSummary Summarize(const OpGraph& graph, const OpGraph& forward,
                       const TrainingOptions& options, bool training) {
  GraphSummary s;
  s.name = graph.name;
  s.format = graph.source_format;
  s.batch = graph.batch;
  s.seq_len = graph.seq_len;
  s.ops = graph.num_ops();
  s.edges = static_cast<int>(graph.edges.size());
  s.params = TotalParameters(graph);
  for (const Op& op : graph.ops) {
    if (op.phase == Phase::kForward) {
      ++s.ops_by_kind[OpKindName(op.kind)];
      if (op.kind == OpKind::kUnknown) ++s.unknown_types[op.type];
    }
    ++s.ops_by_phase[PhaseName(op.phase)];
    switch (op.phase) {
      case Phase::kForward:
        s.flops_forward += op.flops;
        if (CategoryOf(op.kind) == OpCategory::kCompute) s.flops_forward_compute += op.flops;
        break;
      case Phase::kBackward: s.flops_backward += op.flops; break;
      case Phase::kOptimizer: s.flops_optimizer += op.flops; break;
    }
    if (op.measured_time_ms > 0) s.measured_time_ms += op.measured_time_ms;
  }
  s.memory = EstimateMemory(forward, options);
  s.training = training || graph.IsTraining();
  s.memory_bytes = s.training ? s.memory.training_bytes : s.memory.inference_bytes;
  if (LooksBatchNormFolded(forward)) {
    s.notes.push_back(
        "no BatchNormalization and a bias on every Conv: an eval export with BatchNorm "
        "folded into the Convs, or a model without BatchNorm; parameters are the file's "
        "(export in training mode to keep BatchNorm)");
  }
  return s;
}

nlohmann::json SummaryToJson(const GraphSummary& s) {
  const MemoryBreakdown& m = s.memory;
  return nlohmann::json{
      {"name", s.name},
      {"format", s.format},
      {"batch", s.batch},
      {"seq_len", s.seq_len},
      {"ops", s.ops},
      {"edges", s.edges},
      {"ops_by_kind", s.ops_by_kind},
      {"ops_by_phase", s.ops_by_phase},
      {"unknown_ops", s.unknown_types},
      {"params", s.params},
      {"flops_forward", s.flops_forward},
      {"flops_forward_compute", s.flops_forward_compute},
      {"flops_backward", s.flops_backward},
      {"flops_optimizer", s.flops_optimizer},
      {"measured_time_ms", s.measured_time_ms},
      {"training", s.training},
      {"memory_bytes", s.memory_bytes},
      {"memory",
       {{"param_bytes", m.param_bytes},
        {"buffer_bytes", m.buffer_bytes},
        {"grad_bytes", m.grad_bytes},
        {"optimizer_state_bytes", m.optimizer_state_bytes},
        {"activation_bytes", m.activation_bytes},
        {"inference_peak_activation_bytes", m.inference_peak_activation_bytes},
        {"training_bytes", m.training_bytes},
        {"inference_bytes", m.inference_bytes}}},
      {"notes", s.notes},
  };
}

std::string SummaryToText(const GraphSummary& s) {
  std::string out;
  auto line = [&](const std::string& k, const std::string& v) {
    out += fmt::format("  {:<28} {}\n", k, v);
  };
  out += fmt::format("{} ({})", s.name, s.format);
  if (s.batch > 0) out += fmt::format("  batch {}", s.batch);
  if (s.seq_len > 0) out += fmt::format("  seq {}", s.seq_len);
  out += "\n";
  std::string phases;
  for (const auto& [phase, count] : s.ops_by_phase) {
    phases += fmt::format("{}{} {}", phases.empty() ? "" : ", ", count, phase);
  }
  line("ops", fmt::format("{} ({}; {} edges)", s.ops, phases, s.edges));
  line("parameters", fmt::format("{} ({})", s.params, HumanCount(static_cast<double>(s.params))));
  line("forward FLOPs", HumanFlops(s.flops_forward));
  if (s.training) {
    line("backward FLOPs", HumanFlops(s.flops_backward));
    line("optimizer FLOPs", HumanFlops(s.flops_optimizer));
  }
  if (s.measured_time_ms > 0) line("measured time", fmt::format("{:.3f} ms", s.measured_time_ms));
  const MemoryBreakdown& m = s.memory;
  if (m.param_bytes > 0 || m.activation_bytes > 0) {
    line("parameter memory", HumanBytes(static_cast<double>(m.param_bytes)));
    if (m.buffer_bytes > 0) line("buffers", HumanBytes(static_cast<double>(m.buffer_bytes)));
    line("inference peak activations", HumanBytes(static_cast<double>(m.inference_peak_activation_bytes)));
    if (s.training) {
      line("gradients", HumanBytes(static_cast<double>(m.grad_bytes)));
      line("optimizer state", HumanBytes(static_cast<double>(m.optimizer_state_bytes)));
      line("activations for backward", HumanBytes(static_cast<double>(m.activation_bytes)));
    }
  }
  line(s.training ? "training step memory" : "inference memory",
       HumanBytes(static_cast<double>(s.memory_bytes)));
  out += "  ops by kind:\n";
  for (const auto& [kind, count] : s.ops_by_kind) {
    out += fmt::format("    {:<20} {:>6}\n", kind, count);
  }
  if (!s.unknown_types.empty()) {
    out += "  unknown ops (bytes-only cost):\n";
    for (const auto& [type, count] : s.unknown_types) {
      out += fmt::format("    {:<20} {:>6}\n", type, count);
    }
  }
  for (const std::string& note : s.notes) out += "  note: " + note + "\n";
  return out;
}

}  // namespace frugal
