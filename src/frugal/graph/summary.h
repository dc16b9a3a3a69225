// A graph's headline numbers, as `frugal graph show` prints them: op counts
// by kind, unknown op types, parameters, FLOPs per phase, and memory.
// Stateless; thread-safe.
#ifndef FRUGAL_GRAPH_SUMMARY_H_
#define FRUGAL_GRAPH_SUMMARY_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "frugal/graph/op_graph.h"
#include "frugal/graph/training.h"

namespace frugal {

struct GraphSummary {
  std::string name;
  std::string format;
  int64_t batch = 0;
  int64_t seq_len = 0;
  int ops = 0;
  int edges = 0;
  std::map<std::string, int> ops_by_kind;   // forward ops
  std::map<std::string, int> ops_by_phase;
  std::map<std::string, int> unknown_types;  // ONNX op type -> count
  int64_t params = 0;
  double flops_forward = 0;
  double flops_forward_compute = 0;  // of the compute-category ops (GEMM, conv)
  double flops_backward = 0;
  double flops_optimizer = 0;
  double measured_time_ms = 0;  // sum over profiled ops, if any
  MemoryBreakdown memory;
  bool training = false;  // memory_bytes is the training step's
  int64_t memory_bytes = 0;
  std::vector<std::string> notes;  // caveats about how the file was read
};

// `graph` may be forward or training; `forward` is the forward graph it came
// from (the same graph when not training), used for memory.
GraphSummary Summarize(const OpGraph& graph, const OpGraph& forward,
                       const TrainingOptions& options, bool training);

nlohmann::json SummaryToJson(const GraphSummary& s);
std::string SummaryToText(const GraphSummary& s);

}  // namespace frugal

#endif  // FRUGAL_GRAPH_SUMMARY_H_
