#include "frugal/graph/op_graph.h"

#include <cmath>
#include <queue>

#include "frugal/base/enum_names.h"

namespace frugal {
namespace {

constexpr const char* kPhaseNames[] = {"forward", "backward", "optimizer"};
constexpr const char* kGradNames[] = {"none", "data", "weight"};

std::string OpLabel(const OpGraph& g, int i) {
  return "op " + std::to_string(i) + " '" + g.ops[i].name + "'";
}

bool BadNumber(double v) { return std::isnan(v) || std::isinf(v); }

Status CheckTensor(const OpGraph& g, int i, const TensorInfo& t) {
  double bytes = static_cast<double>(DTypeBytes(t.dtype));
  for (int64_t d : t.shape) {
    if (d < 0) {
      return InvalidArgument(OpLabel(g, i) + ": tensor '" + t.name +
                             "' has negative dimension " + ShapeString(t.shape));
    }
    bytes *= static_cast<double>(d);
  }
  if (bytes > kMaxSaneBytes) {
    return InvalidArgument(OpLabel(g, i) + ": tensor '" + t.name +
                           "' is absurdly large " + ShapeString(t.shape));
  }
  return Status::Ok();
}

Status CheckOp(const OpGraph& g, int i) {
  const Op& op = g.ops[i];
  auto fail = [&](const std::string& what) {
    return InvalidArgument(OpLabel(g, i) + ": " + what);
  };
  if (BadNumber(op.flops) || op.flops < 0) return fail("negative or NaN FLOPs");
  if (op.flops > kMaxSaneFlops) return fail("absurd FLOP count");
  if (op.param_count < 0 || op.param_bytes < 0) return fail("negative parameter count");
  if (static_cast<double>(op.param_count) > kMaxSaneBytes) return fail("absurd parameter count (over 1e15)");
  if (op.bytes_read < 0 || op.bytes_written < 0) return fail("negative byte count");
  if (op.bytes_read > kMaxSaneBytes || op.bytes_written > kMaxSaneBytes ||
      op.param_bytes > kMaxSaneBytes) {
    return fail("absurd byte count");
  }
  if (BadNumber(op.measured_time_ms) || BadNumber(op.measured_cpu_time_ms)) {
    return fail("NaN or infinite time");
  }
  if (op.measured_time_ms < 0 && op.measured_time_ms != -1) return fail("negative time");
  if (op.measured_time_ms > kMaxSaneTimeMs || op.measured_cpu_time_ms > kMaxSaneTimeMs) {
    return fail("absurd time (over 1e9 ms)");
  }
  if (op.measured_cpu_time_ms < 0 && op.measured_cpu_time_ms != -1) {
    return fail("negative CPU time");
  }
  if (op.measured_mem_bytes < -1) return fail("negative memory size");
  if (static_cast<double>(op.measured_mem_bytes) > kMaxSaneBytes) {
    return fail("absurd memory size");
  }
  if (op.forward_op < -1 || op.forward_op >= g.num_ops()) {
    return fail("forward_op index out of range");
  }
  for (const auto& t : op.inputs) FRUGAL_RETURN_IF_ERROR(CheckTensor(g, i, t));
  for (const auto& t : op.outputs) FRUGAL_RETURN_IF_ERROR(CheckTensor(g, i, t));
  return Status::Ok();
}

}  // namespace

const char* PhaseName(Phase p) { return EnumName(kPhaseNames, p); }
bool ParsePhase(std::string_view name, Phase* out) {
  return ParseEnumName(name, kPhaseNames, out);
}
const char* GradRoleName(GradRole r) { return EnumName(kGradNames, r); }
bool ParseGradRole(std::string_view name, GradRole* out) {
  return ParseEnumName(name, kGradNames, out);
}

int64_t Attributes::GetInt(const std::string& name, int64_t def) const {
  auto it = ints.find(name);
  if (it == ints.end() || it->second.empty()) return def;
  return it->second[0];
}

std::vector<int64_t> Attributes::GetInts(const std::string& name) const {
  auto it = ints.find(name);
  return it == ints.end() ? std::vector<int64_t>{} : it->second;
}

int OpGraph::AddOp(Op op) {
  ops.push_back(std::move(op));
  return num_ops() - 1;
}

void OpGraph::AddEdge(int src, int dst, int64_t bytes, std::string tensor) {
  Edge e;
  e.src = src;
  e.dst = dst;
  e.bytes = bytes;
  e.tensor = std::move(tensor);
  edges.push_back(std::move(e));
}

std::vector<std::vector<int>> OpGraph::OutEdges() const {
  std::vector<std::vector<int>> out(ops.size());
  for (size_t e = 0; e < edges.size(); ++e) out[edges[e].src].push_back(static_cast<int>(e));
  return out;
}

std::vector<std::vector<int>> OpGraph::InEdges() const {
  std::vector<std::vector<int>> in(ops.size());
  for (size_t e = 0; e < edges.size(); ++e) in[edges[e].dst].push_back(static_cast<int>(e));
  return in;
}

Status OpGraph::Validate() const {
  if (BadNumber(device_mem_bytes) ||
      (device_mem_bytes < 0 && device_mem_bytes != -1)) {
    return InvalidArgument("negative or NaN device memory size");
  }
  if (batch < 0 || seq_len < 0) return InvalidArgument("negative batch or sequence length");
  // Totals stay far inside int64 (each op's figures are bounded above).
  double params = 0, bytes = 0;
  for (int i = 0; i < num_ops(); ++i) {
    FRUGAL_RETURN_IF_ERROR(CheckOp(*this, i));
    params += static_cast<double>(ops[i].param_count);
    bytes += static_cast<double>(ops[i].param_bytes) + static_cast<double>(ops[i].bytes_read) +
             static_cast<double>(ops[i].bytes_written);
  }
  if (params > kMaxSaneBytes || bytes > 1e18) return InvalidArgument("absurd parameter or byte totals over all ops");
  for (size_t e = 0; e < edges.size(); ++e) {
    const Edge& edge = edges[e];
    std::string label = "edge " + std::to_string(e) + " (" +
                        std::to_string(edge.src) + " -> " +
                        std::to_string(edge.dst) + ")";
    if (edge.src < 0 || edge.src >= num_ops() || edge.dst < 0 ||
        edge.dst >= num_ops()) {
      return InvalidArgument(label + ": dangling endpoint, graph has " +
                             std::to_string(num_ops()) + " ops");
    }
    if (edge.src == edge.dst) return InvalidArgument(label + ": self loop");
    if (edge.bytes < 0) return InvalidArgument(label + ": negative size");
    if (static_cast<double>(edge.bytes) > kMaxSaneBytes) {
      return InvalidArgument(label + ": absurd size");
    }
    if (BadNumber(edge.measured_cost_ms) ||
        (edge.measured_cost_ms < 0 && edge.measured_cost_ms != -1)) {
      return InvalidArgument(label + ": negative or NaN transfer cost");
    }
    if (edge.measured_cost_ms > kMaxSaneTimeMs) {
      return InvalidArgument(label + ": absurd transfer cost (over 1e9 ms)");
    }
  }
  return TopologicalOrder().status();
}

Result<std::vector<int>> OpGraph::TopologicalOrder() const {
  std::vector<int> indegree(ops.size(), 0);
  for (const Edge& e : edges) ++indegree[e.dst];
  auto out = OutEdges();
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < num_ops(); ++i) {
    if (indegree[i] == 0) ready.push(i);
  }
  std::vector<int> order;
  order.reserve(ops.size());
  while (!ready.empty()) {
    int u = ready.top();
    ready.pop();
    order.push_back(u);
    for (int e : out[u]) {
      if (--indegree[edges[e].dst] == 0) ready.push(edges[e].dst);
    }
  }
  if (order.size() != ops.size()) {
    // Walk backwards through ops Kahn could not order; after n steps the
    // walk is on a cycle, so the op named is really on one.
    auto in = InEdges();
    int u = 0;
    while (indegree[u] == 0) ++u;
    for (int step = 0; step < num_ops(); ++step) {
      for (int e : in[u]) {
        if (indegree[edges[e].src] > 0) {
          u = edges[e].src;
          break;
        }
      }
    }
    return InvalidArgument("graph has a cycle through " + OpLabel(*this, u));
  }
  return order;
}

bool OpGraph::IsTraining() const {
  for (const Op& op : ops) {
    if (op.phase != Phase::kForward) return true;
  }
  return false;
}

}  // namespace frugal
