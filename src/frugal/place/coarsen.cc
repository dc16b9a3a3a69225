#include "frugal/place/coarsen.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

namespace frugal::place {
namespace {

constexpr double kHuge = 1e300;

int Find(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

class Merger {
 public:
  explicit Merger(const PlacementProblem& p)
      : p_(p), parent_(p.num_ops()), gparent_(p.num_groups),
        succ_(p.num_ops()), pred_(p.num_ops()), time_(p.time_ms),
        gmem_(p.group_mem_bytes.begin(), p.group_mem_bytes.end()) {
    std::iota(parent_.begin(), parent_.end(), 0);
    std::iota(gparent_.begin(), gparent_.end(), 0);
    for (int i = 0; i < p.num_ops(); ++i) {
      succ_[i] = std::set<int>(p.succs[i].begin(), p.succs[i].end());
      pred_[i] = std::set<int>(p.preds[i].begin(), p.preds[i].end());
    }
    count_ = p.num_ops();
  }

  int count() const { return count_; }
  int Root(int x) { return Find(parent_, x); }

  bool Eligible(int a, int b, bool simple_only, double max_time, double max_mem) {
    if (a == b) return false;
    if (time_[a] + time_[b] > max_time) return false;
    int ga = GroupOf(a), gb = GroupOf(b);
    if (ga != gb && gmem_[ga] + gmem_[gb] > max_mem) return false;
    if (!succ_[a].count(b)) return false;
    if (succ_[a].size() == 1 || pred_[b].size() == 1) return true;
    if (simple_only) return false;
    return !OtherPath(a, b);
  }

  // Contracts edge a->b into a.
  void Merge(int a, int b) {
    int ga = GroupOf(a), gb = GroupOf(b);
    if (ga != gb) {
      gparent_[gb] = ga;
      gmem_[ga] += gmem_[gb];
    }
    parent_[b] = a;
    time_[a] += time_[b];
    succ_[a].erase(b);
    pred_[b].erase(a);
    for (int s : succ_[b]) {
      pred_[s].erase(b);
      pred_[s].insert(a);
      succ_[a].insert(s);
    }
    for (int q : pred_[b]) {
      succ_[q].erase(b);
      succ_[q].insert(a);
      pred_[a].insert(q);
    }
    succ_[b].clear();
    pred_[b].clear();
    --count_;
  }

  int GroupOf(int cluster) {
    return Find(gparent_, p_.group[cluster]);
  }

 private:
  // Is there a path a -> ... -> b other than the edge? DFS from a's other
  // successors.
  bool OtherPath(int a, int b) {
    ++stamp_;
    if (mark_.size() != parent_.size()) mark_.assign(parent_.size(), 0);
    std::vector<int> stack;
    for (int s : succ_[a]) {
      if (s != b) stack.push_back(s);
    }
    while (!stack.empty()) {
      int x = stack.back();
      stack.pop_back();
      if (x == b) return true;
      if (mark_[x] == stamp_) continue;
      mark_[x] = stamp_;
      for (int s : succ_[x]) stack.push_back(s);
    }
    return false;
  }

  const PlacementProblem& p_;
  std::vector<int> parent_, gparent_;
  std::vector<std::set<int>> succ_, pred_;
  std::vector<double> time_;
  std::vector<double> gmem_;
  std::vector<int> mark_;
  int stamp_ = 0;
  int count_ = 0;
};

}  // namespace

Result<Coarsening> Coarsen(const PlacementProblem& p, const CoarsenOptions& o) {
  const int n = p.num_ops(), k = p.num_devices;
  double max_time = o.max_node_time_ms > 0 ? o.max_node_time_ms : p.total_time_ms() / k;
  double cap = *std::min_element(p.device_mem_bytes.begin(), p.device_mem_bytes.end());
  double max_mem = o.max_group_mem_bytes > 0
                       ? o.max_group_mem_bytes
                       : std::min(cap, static_cast<double>(p.total_mem_bytes()) / k) / 3;
  if (k == 1) max_time = max_mem = kHuge;
  // Largest transfer first; ties by edge index.
  std::vector<int> order(p.edges.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> cost(p.edges.size());
  for (size_t e = 0; e < p.edges.size(); ++e) {
    cost[e] = p.MinEdgeTransferMs(static_cast<int>(e));
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cost[a] > cost[b]; });
  Merger m(p);
  int64_t tried = 0;
  bool out_of_time = false;
  for (bool simple_only : {true, false}) {
    bool progress = true;
    while (progress && !out_of_time && m.count() > o.target_nodes) {
      progress = false;
      for (int e : order) {
        if (m.count() <= o.target_nodes) break;
        if (tried++ % 64 == 0 && o.deadline.Passed()) {
          out_of_time = true;
          break;
        }
        int a = m.Root(p.edges[e].src), b = m.Root(p.edges[e].dst);
        if (m.Eligible(a, b, simple_only, max_time, max_mem)) {
          m.Merge(a, b);
          progress = true;
        }
      }
    }
  }
  Coarsening c;
  c.coarse_of.assign(n, -1);
  std::map<int, int> index;
  PlacementProblem& q = c.coarse;
  // Coarse nodes in the fine topological order of their first op.
  for (int u : p.topo_order) {
    int r = m.Root(u);
    auto [it, inserted] = index.emplace(r, static_cast<int>(index.size()));
    if (inserted) {
      q.op_names.push_back(p.op_names[u]);
      q.op_ids.push_back(it->second);
      q.time_ms.push_back(0);
      q.mem_bytes.push_back(0);
      q.color.push_back(m.GroupOf(r));
    }
    c.coarse_of[u] = it->second;
    q.time_ms[it->second] += p.time_ms[u];
    q.mem_bytes[it->second] += p.mem_bytes[u];
  }
  // Transfers: per producing fine op and coarse consumer, its slowest edge;
  // summed per coarse pair.
  // A coarse pair is measured only when all its edges are.
  struct Agg {
    int64_t bytes = 0;
    double cost_ms = 0;
    bool measured = true;
  };
  std::map<std::pair<int, int>, Agg> agg, per_src;
  for (const PlaceEdge& e : p.edges) {
    int a = c.coarse_of[e.src], b = c.coarse_of[e.dst];
    if (a == b) continue;
    Agg& v = per_src[{e.src, b}];
    v.bytes = std::max(v.bytes, e.bytes);
    v.cost_ms = std::max(v.cost_ms, e.cost_ms);
    v.measured = v.measured && e.cost_ms >= 0;
  }
  for (const auto& [key, v] : per_src) {
    Agg& s = agg[{c.coarse_of[key.first], key.second}];
    s.bytes += v.bytes;
    s.cost_ms += v.cost_ms;
    s.measured = s.measured && v.measured;
  }
  for (const auto& [key, v] : agg) {
    q.edges.push_back({key.first, key.second, v.bytes, v.measured ? v.cost_ms : -1});
  }
  q.name = p.name + " (coarse)";
  q.num_devices = k;
  q.device_mem_bytes = p.device_mem_bytes;
  q.topology = p.topology;
  FRUGAL_RETURN_IF_ERROR(q.Finalize());
  return c;
}

std::vector<int> ExpandDevices(const Coarsening& c, const std::vector<int>& coarse_device) {
  std::vector<int> out(c.coarse_of.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = coarse_device[c.coarse_of[i]];
  return out;
}

std::vector<int> ProjectDevices(const PlacementProblem& fine, const Coarsening& c,
                                const std::vector<int>& fine_device) {
  const PlacementProblem& q = c.coarse;
  std::vector<std::vector<double>> w(q.num_groups, std::vector<double>(q.num_devices, 0));
  for (int i = 0; i < fine.num_ops(); ++i) {
    w[q.group[c.coarse_of[i]]][fine_device[i]] += fine.time_ms[i] + 1e-9;
  }
  std::vector<int> out(q.num_ops());
  for (int i = 0; i < q.num_ops(); ++i) {
    const auto& row = w[q.group[i]];
    out[i] = static_cast<int>(std::max_element(row.begin(), row.end()) - row.begin());
  }
  return out;
}

}  // namespace frugal::place
