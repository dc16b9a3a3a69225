#include "frugal/place/colocation.h"

#include <map>
#include <numeric>

#include "frugal/plan/layers.h"

namespace frugal::place {
namespace {

struct UnionFind {
  std::vector<int> parent;
  explicit UnionFind(int n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int Find(int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void Join(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

}  // namespace

const char* GranularityName(Granularity g) {
  switch (g) {
    case Granularity::kOp: return "op";
    case Granularity::kModule: return "module";
    case Granularity::kLayer: return "layer";
  }
  return "?";
}

Result<Granularity> ParseGranularity(std::string_view name) {
  for (Granularity g : {Granularity::kOp, Granularity::kModule, Granularity::kLayer}) {
    if (name == GranularityName(g)) return g;
  }
  return InvalidArgument("unknown granularity '" + std::string(name) +
                         "' (expected op, module or layer)");
}

Granularity DefaultGranularity(const OpGraph& graph) {
  return graph.source_format == "hf" || graph.source_format == "onnx" ? Granularity::kModule
                                                                      : Granularity::kOp;
}

Result<Colocation> Colocate(const OpGraph& graph, Granularity g) {
  const int n = graph.num_ops();
  Colocation c;
  c.modules = MapModules(graph);
  const ModuleMap& modules = c.modules;
  const std::vector<std::string>& module_of = modules.module_of_op;
  UnionFind uf(n);
  auto join = [&](int a, int b) { uf.Join(a, b); };
  // The graph's own classes hold at every granularity.
  std::map<int64_t, int> first_of_class;
  for (int i = 0; i < n; ++i) {
    if (graph.ops[i].color_class < 0) continue;
    auto [it, added] = first_of_class.emplace(graph.ops[i].color_class, i);
    if (!added) join(i, it->second);
  }
  if (g != Granularity::kOp) {
    if (!modules.has_modules()) {
      return InvalidArgument(graph.name + ": --granularity " + GranularityName(g) +
                             " needs module names, and this graph's op names are not module "
                             "paths (no op owns a parameter under one); use --granularity op");
    }
    const auto in_edges = graph.InEdges();
    const auto out_edges = graph.OutEdges();
    FRUGAL_ASSIGN_OR_RETURN(std::vector<int> order, graph.TopologicalOrder());
    std::vector<int> pos(n);
    for (int k = 0; k < n; ++k) pos[order[k]] = k;
    std::map<std::string, int> first_of_module, first_of_param, first_of_block;
    for (int i = 0; i < n; ++i) {
      const Op& op = graph.ops[i];
      if (op.phase != Phase::kForward) {
        if (op.forward_op >= 0 && op.forward_op < n) join(i, op.forward_op);
        continue;
      }
      for (const TensorInfo& t : op.inputs) {
        if (t.role != TensorRole::kParameter || t.name.empty()) continue;
        auto [it, added] = first_of_param.emplace(t.name, i);
        if (!added) join(i, it->second);
      }
      if (OwnsParameters(op) ||
          (!module_of[i].empty() && modules.param_modules.count(module_of[i]) != 0)) {
        // A module that owns parameters runs on one GPU, its parameter-free
        // ops too (nn.MultiheadAttention's input transpose, a decomposed
        // LayerNorm's mean): a device map places the whole module.
        auto [it, added] = first_of_module.emplace(module_of[i], i);
        if (!added) join(i, it->second);
      } else if (!in_edges[i].empty()) {
        // The producer of the input made last: a residual add follows its
        // branch, not the residual stream (which would chain every layer's
        // adds into one group).
        int last = graph.edges[in_edges[i].front()].src;
        for (int e : in_edges[i]) {
          if (pos[graph.edges[e].src] > pos[last]) last = graph.edges[e].src;
        }
        join(i, last);
      } else if (!out_edges[i].empty()) {
        // No input from another op (a Constant, a view of a weight): it runs
        // with the op it feeds.
        join(i, graph.edges[out_edges[i].front()].dst);
      }
      if (g == Granularity::kLayer) {
        const std::string block = BlockKey(module_of[i]);
        if (block.empty()) continue;
        auto [it, added] = first_of_block.emplace(block, i);
        if (!added) join(i, it->second);
      }
    }
  }
  // A group of one op constrains nothing: it stays free.
  std::vector<int> size(n, 0);
  for (int i = 0; i < n; ++i) ++size[uf.Find(i)];
  std::map<int, int64_t> color_of_root;
  c.color.assign(n, -1);
  for (int i = 0; i < n; ++i) {
    const int r = uf.Find(i);
    if (size[r] < 2) continue;
    auto [it, added] = color_of_root.emplace(r, static_cast<int64_t>(color_of_root.size()));
    c.color[i] = it->second;
  }
  c.groups = static_cast<int>(color_of_root.size());
  return c;
}

}  // namespace frugal::place
