#include "frugal/place/chain_bound.h"

#include <algorithm>
#include <limits>
#include <map>

namespace frugal::place {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kMaxBlock = 48;  // path positions per NoCut block

struct Neighbor {
  int op;
  double c;  // cheapest transfer of the slowest edge between the two ops
};

std::vector<std::vector<Neighbor>> Neighbors(const PlacementProblem& p, bool preds) {
  std::vector<std::vector<Neighbor>> out(p.num_ops());
  for (int v = 0; v < p.num_ops(); ++v) {
    std::map<int, double> c;
    for (int e : preds ? p.in_edges[v] : p.out_edges[v]) {
      int u = preds ? p.edges[e].src : p.edges[e].dst;
      double t = p.MinEdgeTransferMs(e);
      auto [it, inserted] = c.emplace(u, t);
      if (!inserted) it->second = std::max(it->second, t);
    }
    for (auto [u, t] : c) out[v].push_back({u, t});
  }
  return out;
}

std::vector<int> CriticalPath(const PlacementProblem& p) {
  const int n = p.num_ops();
  std::vector<double> best(n, 0);
  std::vector<int> from(n, -1);
  int end = -1;
  for (int v : p.topo_order) {
    best[v] = p.time_ms[v];
    for (int u : p.preds[v]) {
      if (best[u] + p.time_ms[v] > best[v]) best[v] = best[u] + p.time_ms[v], from[v] = u;
    }
    if (end < 0 || best[v] > best[end]) end = v;
  }
  std::vector<int> path;
  for (int v = end; v >= 0; v = from[v]) path.push_back(v);
  std::reverse(path.begin(), path.end());
  return path;
}

// anchor[v]: path position of the last path ancestor (forward) or first path
// descendant (backward) of v, -1 when none; away[v]: b_in / b_out of the
// header (infinite when v cannot leave the anchor's device).
struct Anchors {
  std::vector<int> anchor;
  std::vector<double> away;
};

Anchors Anchor(const PlacementProblem& p, const std::vector<int>& path,
               const std::vector<int>& pos, bool forward) {
  const int n = p.num_ops();
  const auto nbs = Neighbors(p, forward);
  Anchors r{std::vector<int>(n, -1), std::vector<double>(n, 0)};
  std::vector<double> dist(n, 0);  // longest op-time path from the anchor (a0)
  // Backward anchors count positions from the end so that "last" is "max".
  auto key = [&](int k) { return forward ? k : static_cast<int>(path.size()) - 1 - k; };
  for (int idx = 0; idx < n; ++idx) {
    int v = p.topo_order[forward ? idx : n - 1 - idx];
    if (pos[v] >= 0) {
      r.anchor[v] = key(pos[v]);
      continue;
    }
    for (const Neighbor& nb : nbs[v]) r.anchor[v] = std::max(r.anchor[v], r.anchor[nb.op]);
    if (r.anchor[v] < 0) continue;
    const int pa = path[forward ? r.anchor[v] : path.size() - 1 - r.anchor[v]];
    double away = 0;
    for (const Neighbor& nb : nbs[v]) {
      int u = nb.op;
      if (u == pa) {
        away = std::max(away, nb.c);
      } else if (pos[u] < 0 && r.anchor[u] == r.anchor[v]) {
        dist[v] = std::max(dist[v], dist[u] + p.time_ms[u]);
        double on = p.group[u] == p.group[v] ? kInf : dist[u] + nb.c;
        double off = p.group[u] == p.group[pa] ? kInf : r.away[u];
        away = std::max(away, p.time_ms[u] + std::min(on, off));
      }
    }
    r.away[v] = (p.group[v] == p.group[pa] || p.num_devices == 1) ? kInf : away;
  }
  if (!forward) {
    for (int& a : r.anchor) {
      if (a >= 0) a = static_cast<int>(path.size()) - 1 - a;
    }
  }
  return r;
}

struct Side {
  int op;
  int d;     // window end (path position)
  double e;  // remote excess over the window's inner path time
};

}  // namespace

double ChainBoundOfPathMs(const PlacementProblem& p, const std::vector<int>& path,
                          const std::vector<double>& head, const std::vector<double>& tail) {
  const int m = static_cast<int>(path.size());
  if (m == 0) return 0;
  const int n = p.num_ops();
  std::vector<int> pos(n, -1);
  for (int k = 0; k < m; ++k) pos[path[k]] = k;
  std::vector<double> pre(m + 1, 0);  // pre[k]: time of path[0..k-1]
  for (int k = 0; k < m; ++k) pre[k + 1] = pre[k] + p.time_ms[path[k]];
  // cut[k]: cost of cutting path[k] -> path[k+1].
  std::vector<double> cut(std::max(0, m - 1), kInf);
  for (int k = 0; k + 1 < m; ++k) {
    if (p.num_devices == 1 || p.group[path[k]] == p.group[path[k + 1]]) continue;
    double c = 0;
    for (int e : p.out_edges[path[k]]) {
      if (p.edges[e].dst == path[k + 1]) c = std::max(c, p.MinEdgeTransferMs(e));
    }
    cut[k] = c;
  }
  const Anchors in = Anchor(p, path, pos, true), out = Anchor(p, path, pos, false);
  std::vector<std::vector<Side>> by_a(m);
  for (int v = 0; v < n; ++v) {
    int a = in.anchor[v], d = out.anchor[v];
    if (pos[v] >= 0 || a < 0 || d < 0 || p.time_ms[v] <= 0) continue;
    double e = in.away[v] + p.time_ms[v] + out.away[v] - (pre[d] - pre[a + 1]);
    by_a[a].push_back({v, d, e});
  }
  std::vector<std::vector<int>> group_pos(p.num_groups);  // path positions, increasing
  for (int k = 0; k < m; ++k) group_pos[p.group[path[k]]].push_back(k);
  auto forced = [&](int v, int a, int b) {
    const auto& gp = group_pos[p.group[v]];
    auto it = std::lower_bound(gp.begin(), gp.end(), a);
    return it != gp.end() && *it <= b;
  };
  // Keeps the DP near 2e7 steps on very long paths.
  const int max_block = std::max(
      2, std::min(kMaxBlock, static_cast<int>(2e7 / (static_cast<double>(m) * m + 1))));
  // nocut[a][len - 1] = NoCut(a, a + len).
  std::vector<std::vector<double>> nocut(m);
  std::vector<std::pair<double, double>> remote;  // (e, t)
  for (int a = 0; a < m; ++a) {
    for (int b = a + 1; b < m && b - a <= max_block; ++b) {
      double local = 0;
      remote.clear();
      for (int x = a; x < b; ++x) {
        for (const Side& s : by_a[x]) {
          if (s.d > b) continue;
          double t = p.time_ms[s.op];
          if (s.e == kInf || forced(s.op, a, b)) {
            local += t;
          } else {
            remote.push_back({s.e, t});
          }
        }
      }
      std::sort(remote.begin(), remote.end(), std::greater<>());
      double best = kInf;
      for (size_t j = 0; j <= remote.size(); ++j) {
        double rest = j < remote.size() ? remote[j].first : 0.0;
        best = std::min(best, std::max(local, rest));
        if (j < remote.size()) local += remote[j].second;
      }
      nocut[a].push_back(std::max(0.0, best));
    }
  }
  // h[b]: min over cut sets of the gaps of path[0..b] with a run ending at b.
  std::vector<double> h(m, kInf), u(m);
  for (int a = 0; a < m; ++a) {
    double base = a == 0 ? 0.0 : h[a - 1] + cut[a - 1];
    if (base == kInf) continue;
    u[a] = 0;
    h[a] = std::min(h[a], base);
    for (int b = a + 1; b < m; ++b) {
      double best = u[b - 1];
      for (int l = std::max(a, b - max_block); l < b; ++l) {
        best = std::max(best, u[l] + nocut[l][b - l - 1]);
      }
      u[b] = best;
      h[b] = std::min(h[b], base + best);
    }
  }
  return head[path.front()] + pre[m] + h[m - 1] + tail[path.back()];
}

double ChainBoundMs(const PlacementProblem& p, const std::vector<double>& head,
                    const std::vector<double>& tail) {
  return ChainBoundOfPathMs(p, CriticalPath(p), head, tail);
}

}  // namespace frugal::place
