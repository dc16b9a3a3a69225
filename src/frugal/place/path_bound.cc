#include "frugal/place/path_bound.h"

#include <algorithm>
#include <limits>

#include "frugal/place/lp_model.h"

namespace frugal::place {
namespace {


// Cheapest transfer of the slowest edge u -> v.
double PairCost(const PlacementProblem& p, int u, int v) {
  double c = 0;
  for (int e : p.out_edges[u]) {
    if (p.edges[e].dst == v) c = std::max(c, p.MinEdgeTransferMs(e));
  }
  return c;
}

// Longest path by w; returns it in path order.
std::vector<int> LongestPath(const PlacementProblem& p, const std::vector<double>& w) {
  const int n = p.num_ops();
  std::vector<double> best(n, 0);
  std::vector<int> from(n, -1);
  int end = -1;
  for (int v : p.topo_order) {
    best[v] = w[v];
    for (int u : p.preds[v]) {
      if (best[u] + w[v] > best[v]) best[v] = best[u] + w[v], from[v] = u;
    }
    if (end < 0 || best[v] > best[end]) end = v;
  }
  std::vector<int> path;
  for (int v = end; v >= 0; v = from[v]) path.push_back(v);
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace

double PathBoundMs(const PlacementProblem& p, const std::vector<int>& path,
                   const std::vector<double>& head, const std::vector<double>& tail) {
  const int m = static_cast<int>(path.size());
  if (m == 0) return 0;
  double cap = *std::max_element(p.device_mem_bytes.begin(), p.device_mem_bytes.end());
  double work = 0;
  for (int v : path) work += p.time_ms[v];
  // cut[i]: cost of cutting between path[i-1] and path[i] (inf: same group,
  // or one device only).
  std::vector<double> cut(m, kInf);
  for (int i = 1; i < m; ++i) {
    if (p.num_devices > 1 && p.group[path[i - 1]] != p.group[path[i]]) {
      cut[i] = PairCost(p, path[i - 1], path[i]);
    }
  }
  // f[b]: cheapest cuts for path[0..b-1] ending a run at b-1.
  std::vector<double> f(m + 1, kInf);
  f[0] = 0;
  std::vector<int> mark(p.num_groups, -1);
  for (int b = 1; b <= m; ++b) {
    double mem = 0;
    for (int a = b - 1; a >= 0; --a) {  // run path[a..b-1]
      int g = p.group[path[a]];
      if (mark[g] != b) {
        mark[g] = b;
        mem += static_cast<double>(p.group_mem_bytes[g]);
      }
      if (mem > cap) break;
      double enter = a == 0 ? 0 : cut[a];
      if (f[a] + enter < f[b]) f[b] = f[a] + enter;
    }
  }
  if (!(f[m] < kInf)) return 0;  // no segmentation (cannot happen once Finalize passed)
  return head[path.front()] + work + f[m] + tail[path.back()];
}

double MemoryPathBoundMs(const PlacementProblem& p, const std::vector<double>& head,
                         const std::vector<double>& tail) {
  const int n = p.num_ops();
  double total_mem = static_cast<double>(p.total_mem_bytes());
  if (n == 0 || total_mem <= 0) return 0;
  double best = 0;
  for (double scale : {0.0, 0.25, 1.0, 4.0, 16.0}) {
    double lambda = scale * p.total_time_ms() / total_mem;
    std::vector<double> w(n);
    for (int v = 0; v < n; ++v) {
      int g = p.group[v];
      w[v] = p.time_ms[v] + lambda * static_cast<double>(p.group_mem_bytes[g]) /
                                static_cast<double>(p.group_ops[g].size());
    }
    best = std::max(best, PathBoundMs(p, LongestPath(p, w), head, tail));
  }
  return best;
}

}  // namespace frugal::place
