#include "frugal/perf/fusion.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <utility>

namespace frugal {
namespace {

int Find(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

// External traffic of the ops in `members` (sorted).
FusedKernel Traffic(const OpGraph& g, std::vector<int> members,
                    const std::vector<std::vector<int>>& out_edges) {
  FusedKernel k;
  k.ops = std::move(members);
  auto inside = [&](int op) { return std::binary_search(k.ops.begin(), k.ops.end(), op); };
  std::set<std::string> produced;
  for (int u : k.ops) {
    for (const auto& t : g.ops[u].outputs) produced.insert(t.name);
  }
  std::set<std::string> read;
  int64_t biggest = -1;
  auto note = [&](const TensorInfo& t) {
    if (t.NumElements() > biggest) {
      biggest = t.NumElements();
      k.cols = t.shape.empty() ? 1 : std::max<int64_t>(1, t.shape.back());
    }
  };
  for (int u : k.ops) {
    const Op& op = g.ops[u];
    for (const auto& t : op.inputs) {
      note(t);
      if (produced.count(t.name) || !read.insert(t.name).second) continue;
      // A lookup reads the rows it gathers, not its whole table.
      const bool table = CategoryOf(op.kind) == OpCategory::kLookup &&
                         t.role == TensorRole::kParameter && !op.outputs.empty();
      k.bytes += table ? op.outputs[0].Bytes() : t.Bytes();
    }
    // An output is written when someone outside reads it, or nobody does.
    std::set<std::string> leaving;
    bool consumed = false;
    for (int e : out_edges[u]) {
      consumed = true;
      if (!inside(g.edges[e].dst)) leaving.insert(g.edges[e].tensor);
    }
    for (const auto& t : op.outputs) {
      note(t);
      if (!consumed || leaving.count(t.name) || leaving.count("")) {
        k.bytes += t.Bytes();
      }
    }
  }
  return k;
}

// The scores and context batched matmuls around `members` when they form
// an attention pattern (see fusion.h), else {-1, -1}.
std::pair<int, int> AttentionEnds(const OpGraph& g, const std::vector<int>& members,
                                  const std::vector<std::vector<int>>& in_edges,
                                  const std::vector<std::vector<int>>& out_edges) {
  const std::pair<int, int> none{-1, -1};
  auto inside = [&](int op) { return std::binary_search(members.begin(), members.end(), op); };
  bool softmax = false;
  for (int u : members) {
    if (g.ops[u].phase != Phase::kForward) return none;
    softmax = softmax || g.ops[u].kind == OpKind::kSoftmax;
  }
  if (!softmax) return none;
  int scores = -1, context = -1;
  for (int u : members) {
    for (int e : in_edges[u]) {
      const int src = g.edges[e].src;
      if (inside(src)) continue;
      if (g.ops[src].kind == OpKind::kBatchMatMul) {
        if (scores >= 0 && scores != src) return none;
        scores = src;
      } else if (!IsFusable(g.ops[src])) {
        return none;  // masks come from elementwise ops; a GEMM input is not attention
      }
    }
    for (int e : out_edges[u]) {
      const int dst = g.edges[e].dst;
      if (inside(dst)) continue;
      if (g.ops[dst].kind != OpKind::kBatchMatMul || (context >= 0 && context != dst)) {
        return none;
      }
      context = dst;
    }
  }
  if (scores < 0 || context < 0 || scores == context) return none;
  return {scores, context};
}

}  // namespace

bool LaunchesNoKernel(const Op& op) {
  return CategoryOf(op.kind) == OpCategory::kMeta || op.attrs.GetInt("view", 0) == 1;
}

bool IsFusable(const Op& op) {
  if (op.measured_time_ms >= 0) return false;
  switch (CategoryOf(op.kind)) {
    case OpCategory::kElementwise:
    case OpCategory::kNormalization:
    case OpCategory::kReduction:
    case OpCategory::kLookup:
    case OpCategory::kDataMovement:
    case OpCategory::kRegularization:
    case OpCategory::kMeta:
    case OpCategory::kLoss:
      return true;
    default:
      return false;
  }
}

std::vector<FusedKernel> FusedKernels(const OpGraph& graph) {
  const int n = static_cast<int>(graph.ops.size());
  Result<std::vector<int>> order = graph.TopologicalOrder();
  if (!order.ok()) return {};
  const auto in_edges = graph.InEdges();
  const auto out_edges = graph.OutEdges();
  std::vector<int> level(n, 0);
  std::vector<bool> fusable(n);
  for (int i = 0; i < n; ++i) fusable[i] = IsFusable(graph.ops[i]);
  for (int v : *order) {
    for (int e : in_edges[v]) {
      const int u = graph.edges[e].src;
      level[v] = std::max(level[v], level[u] + (fusable[u] ? 0 : 1));
    }
  }
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  for (const Edge& e : graph.edges) {
    // Forward and backward are compiled as separate programs.
    if (fusable[e.src] && fusable[e.dst] && level[e.src] == level[e.dst] &&
        graph.ops[e.src].phase == graph.ops[e.dst].phase) {
      parent[Find(parent, e.src)] = Find(parent, e.dst);
    }
  }
  std::map<int, std::vector<int>> groups;  // root -> members, ascending
  for (int i = 0; i < n; ++i) {
    if (fusable[i]) groups[Find(parent, i)].push_back(i);
  }
  std::vector<FusedKernel> kernels;
  for (auto& [root, members] : groups) {
    const auto [scores, context] = AttentionEnds(graph, members, in_edges, out_edges);
    if (scores >= 0) {
      FusedKernel k;
      k.ops = std::move(members);
      k.scores = scores;
      k.context = context;
      kernels.push_back(std::move(k));
      continue;
    }
    // Views alone launch nothing; a single real op keeps its own price.
    const auto real = std::count_if(members.begin(), members.end(),
                                    [&](int i) { return !LaunchesNoKernel(graph.ops[i]); });
    if (real < 2) continue;
    kernels.push_back(Traffic(graph, std::move(members), out_edges));
  }
  std::sort(kernels.begin(), kernels.end(),
            [](const FusedKernel& a, const FusedKernel& b) { return a.ops[0] < b.ops[0]; });
  return kernels;
}

Status ApplyFusion(const OpTimeModel& model, const OpGraph& graph, const GpuSpec& gpu,
                   std::vector<OpTimePrediction>* ops) {
  if (ops->size() != graph.ops.size()) return Internal("op times do not match the graph");
  std::vector<FusedKernel> kernels = FusedKernels(graph);
  if (kernels.empty()) return Status::Ok();
  // Every op of `k` costs 0 and says where its time went.
  auto absorb = [&](const FusedKernel& k, const std::string& basis) {
    for (int op : k.ops) {
      OpTimePrediction& p = (*ops)[op];
      p.fallback = false;
      p.time_ms = 0;
      p.basis = basis;
    }
  };
  // An add reads two elements and writes one: 12 bytes per output element.
  std::vector<OpShape> shapes;
  std::vector<const FusedKernel*> priced;
  for (const FusedKernel& k : kernels) {
    if (k.scores >= 0) {
      absorb(k, "inside the fused attention of " + graph.ops[k.scores].name + " and " +
                    graph.ops[k.context].name);
      continue;
    }
    priced.push_back(&k);
    OpShape s;
    s.op = PerfOp::kAdd;
    s.h = k.cols;
    s.b = std::max<int64_t>(1, k.bytes / (12 * k.cols));
    shapes.push_back(s);
  }
  if (shapes.empty()) return Status::Ok();
  FRUGAL_ASSIGN_OR_RETURN(std::vector<double> t, model.PredictMs(shapes, gpu));
  for (size_t i = 0; i < priced.size(); ++i) {
    const FusedKernel& k = *priced[i];
    absorb(k, "fused into " + graph.ops[k.ops[0]].name);
    OpTimePrediction& first = (*ops)[k.ops[0]];
    first.time_ms = t[i];
    first.basis = "fused kernel of " + std::to_string(k.ops.size()) + " ops as " +
                  shapes[i].ToString() + " (" + std::to_string(k.bytes) + " bytes)";
  }
  return Status::Ok();
}

}  // namespace frugal
