// OpGraph: a DNN as a DAG of operators with tensor shapes, costs and phases.
// Ops are stored in a vector and referred to by index; edges carry the bytes
// of the tensor that flows along them. Importers build graphs, then call
// Validate(); every consumer (perf, place, share) may assume a validated
// graph. An OpGraph is a value type; thread-compatible.
#ifndef FRUGAL_GRAPH_OP_GRAPH_H_
#define FRUGAL_GRAPH_OP_GRAPH_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/graph/op_kind.h"
#include "frugal/graph/tensor.h"

namespace frugal {

enum class Phase { kForward, kBackward, kOptimizer };
const char* PhaseName(Phase p);
bool ParsePhase(std::string_view name, Phase* out);

// Which gradient a backward op computes.
enum class GradRole {
  kNone,    // forward or optimizer op, or a backward op with one output
  kData,    // gradient with respect to an activation input
  kWeight,  // gradient with respect to the op's parameters
};
const char* GradRoleName(GradRole r);
bool ParseGradRole(std::string_view name, GradRole* out);

// Op attributes as imported (ONNX attribute names: kernel_shape, strides,
// pads, dilations, group, axis, ...).
struct Attributes {
  std::map<std::string, std::vector<int64_t>> ints;
  std::map<std::string, double> floats;
  std::map<std::string, std::string> strings;

  int64_t GetInt(const std::string& name, int64_t def) const;
  std::vector<int64_t> GetInts(const std::string& name) const;
  bool operator==(const Attributes&) const = default;
};

struct Op {
  std::string name;
  OpKind kind = OpKind::kUnknown;
  std::string type;  // source op type ("Conv", "attn.qkv"); names unknown ops
  Phase phase = Phase::kForward;
  GradRole grad = GradRole::kNone;
  int forward_op = -1;  // backward / optimizer ops: the forward op's index
  Attributes attrs;
  std::vector<TensorInfo> inputs;   // activations first, then weights
  std::vector<TensorInfo> outputs;
  int64_t param_count = 0;  // trainable parameters owned by this op
  int64_t param_bytes = 0;
  double flops = 0;          // multiply-add = 2 FLOPs
  int64_t bytes_read = 0;    // inputs including weights
  int64_t bytes_written = 0;
  // Measured costs from profiled graphs; negative = not measured.
  double measured_time_ms = -1;
  double measured_cpu_time_ms = -1;
  int64_t measured_mem_bytes = -1;
  int64_t color_class = -1;  // same class => must share a device

  bool operator==(const Op&) const = default;
};

struct Edge {
  int src = -1;
  int dst = -1;
  int64_t bytes = 0;
  std::string tensor;              // name of the tensor carried, if known
  double measured_cost_ms = -1;    // measured transfer time; negative = none
  bool operator==(const Edge&) const = default;
};

class OpGraph {
 public:
  std::string name;
  std::string source_format;  // importer that built it: "onnx", "hf", ...
  int64_t batch = 0;          // 0 = not applicable
  int64_t seq_len = 0;
  // What turns op module paths into the framework's module names: an HF
  // task model's base-model attribute ("transformer." in GPT2LMHeadModel),
  // prepended to every module outside the task head (lm_head, score, cls,
  // classifier). "" = the names are the model's own.
  std::string module_prefix;
  double device_mem_bytes = -1;  // per-device memory given by the input
  std::vector<Op> ops;
  std::vector<Edge> edges;

  int AddOp(Op op);
  void AddEdge(int src, int dst, int64_t bytes, std::string tensor = "");

  int num_ops() const { return static_cast<int>(ops.size()); }

  // Checks edge endpoints, self loops, cycles, negative / NaN / absurd sizes,
  // times and FLOPs. Messages name the op or edge ("op 12 'conv1': negative
  // FLOPs"); callers prefix the file name.
  Status Validate() const;

  // Kahn's order, ties broken by op index (deterministic). InvalidArgument
  // naming an op on the cycle when there is one.
  Result<std::vector<int>> TopologicalOrder() const;

  // Adjacency as edge indices, built on demand. REQUIRES: valid endpoints.
  std::vector<std::vector<int>> OutEdges() const;
  std::vector<std::vector<int>> InEdges() const;

  bool IsTraining() const;  // has backward or optimizer ops

  bool operator==(const OpGraph&) const = default;
};

// Largest tensor / memory / FLOPs accepted before an input is deemed absurd.
inline constexpr double kMaxSaneBytes = 1e15;   // 1 PB
inline constexpr double kMaxSaneFlops = 1e21;
// Longest measured op or transfer time (ms, 11.6 days): anything above is
// an input error, and keeps LP / MIP coefficients well scaled.
inline constexpr double kMaxSaneTimeMs = 1e9;

}  // namespace frugal

#endif  // FRUGAL_GRAPH_OP_GRAPH_H_
