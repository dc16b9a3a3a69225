#include "frugal/place/chain_bound.h"

#include "frugal/place/comm_bound.h"
#include "frugal/place/lp_model.h"

#include <algorithm>
#include <limits>
#include <map>

namespace frugal::place {
namespace {

constexpr int kMaxBlock = 48;   // path positions per NoCut block
constexpr int kMaxWindow = 64;  // path positions per window item


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

// Everything the two gap bounds share about one path.
struct Chain {
  const PlacementProblem* p;
  int m = 0;
  std::vector<double> pre;  // pre[k]: time of path[0..k-1]
  std::vector<double> cut;  // cut[k]: cost of cutting path[k] -> path[k+1]
  std::vector<std::vector<Side>> by_a;
  std::vector<std::vector<int>> group_pos;  // path positions per group, increasing
  std::vector<std::vector<double>> nocut;   // nocut[a][len - 1] = NoCut(a, a + len)
  std::vector<int> far;  // far[a]: last b whose run [a, b] fits in one device's memory
  int max_block = kMaxBlock;

  double Inner(int a, int d) const { return pre[d] - pre[a + 1]; }
  // Whether op v's group has a path op at a position in [a, b].
  bool Forced(int v, int a, int b) const {
    const auto& gp = group_pos[p->group[v]];
    auto it = std::lower_bound(gp.begin(), gp.end(), a);
    return it != gp.end() && *it <= b;
  }
};

Chain BuildChain(const PlacementProblem& p, const std::vector<int>& path) {
  Chain ch;
  ch.p = &p;
  const int m = ch.m = static_cast<int>(path.size());
  const int n = p.num_ops();
  std::vector<int> pos(n, -1);
  for (int k = 0; k < m; ++k) pos[path[k]] = k;
  ch.pre.assign(m + 1, 0);
  for (int k = 0; k < m; ++k) ch.pre[k + 1] = ch.pre[k] + p.time_ms[path[k]];
  ch.cut.assign(std::max(0, m - 1), kInf);
  for (int k = 0; k + 1 < m; ++k) {
    if (p.num_devices == 1 || p.group[path[k]] == p.group[path[k + 1]]) continue;
    double c = 0;
    for (int e : p.out_edges[path[k]]) {
      if (p.edges[e].dst == path[k + 1]) c = std::max(c, p.MinEdgeTransferMs(e));
    }
    ch.cut[k] = c;
  }
  const Anchors in = Anchor(p, path, pos, true), out = Anchor(p, path, pos, false);
  ch.by_a.resize(m);
  for (int v = 0; v < n; ++v) {
    int a = in.anchor[v], d = out.anchor[v];
    if (pos[v] >= 0 || a < 0 || d < 0 || p.time_ms[v] <= 0) continue;
    double e = in.away[v] + p.time_ms[v] + out.away[v] - ch.Inner(a, d);
    ch.by_a[a].push_back({v, d, e});
  }
  ch.group_pos.resize(p.num_groups);
  for (int k = 0; k < m; ++k) ch.group_pos[p.group[path[k]]].push_back(k);
  // A run sits on one device, so its groups fit together (two pointers: a
  // run that does not fit stays unfit when it grows).
  const double cap = *std::max_element(p.device_mem_bytes.begin(), p.device_mem_bytes.end());
  ch.far.assign(m, m - 1);
  std::vector<int> count(p.num_groups, 0);
  double mem = 0;
  for (int a = 0, b = -1; a < m; ++a) {
    while (b + 1 < m) {
      int g = p.group[path[b + 1]];
      double add = count[g] > 0 ? 0.0 : static_cast<double>(p.group_mem_bytes[g]);
      if (mem + add > cap) break;
      mem += add, ++count[g], ++b;
    }
    ch.far[a] = b;
    int g = p.group[path[a]];
    if (--count[g] == 0) mem -= static_cast<double>(p.group_mem_bytes[g]);
  }
  // Keeps the cut DP near 2e7 steps on very long paths.
  ch.max_block = std::max(
      2, std::min(kMaxBlock, static_cast<int>(2e7 / (static_cast<double>(m) * m + 1))));
  ch.nocut.resize(m);
  std::vector<std::pair<double, double>> remote;  // (e, t)
  for (int a = 0; a < m; ++a) {
    for (int b = a + 1; b < m && b - a <= ch.max_block; ++b) {
      double local = 0;
      remote.clear();
      for (int x = a; x < b; ++x) {
        for (const Side& s : ch.by_a[x]) {
          if (s.d > b) continue;
          double t = p.time_ms[s.op];
          if (s.e == kInf || ch.Forced(s.op, a, b)) {
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
      ch.nocut[a].push_back(std::max(0.0, best));
    }
  }
  return ch;
}

// U over the runs starting at a: u[b] for b in [a, end], the best sum of
// NoCut over a partition of [a, b] into blocks.
void RunValues(const Chain& ch, int a, int end, std::vector<double>* u) {
  (*u)[a] = 0;
  for (int b = a + 1; b <= end; ++b) {
    double best = (*u)[b - 1];
    for (int l = std::max(a, b - ch.max_block); l < b; ++l) {
      best = std::max(best, (*u)[l] + ch.nocut[l][b - l - 1]);
    }
    (*u)[b] = best;
  }
}

// min over cut sets of sum of cuts + sum of U(run), over the whole path.
double CutDpGaps(const Chain& ch) {
  const int m = ch.m;
  std::vector<double> h(m, kInf), u(m);
  for (int a = 0; a < m; ++a) {
    double base = a == 0 ? 0.0 : h[a - 1] + ch.cut[a - 1];
    if (base == kInf) continue;
    RunValues(ch, a, ch.far[a], &u);
    for (int b = a; b <= ch.far[a]; ++b) h[b] = std::min(h[b], base + u[b]);
  }
  return h[m - 1];
}

// Lower bound on the gaps of the window [wa, wd] whatever the cuts inside it
// (see the header: min over cut patterns of max(cuts + U, max phi)).
double WindowItem(const Chain& ch, int wa, int wd) {
  const PlacementProblem& p = *ch.p;
  const int len = wd - wa;
  const double inner = ch.Inner(wa, wd);
  // Sides of the window colocated with a path op in it, by that position.
  std::vector<double> side_t;
  std::vector<std::vector<int>> at(len + 1);  // window position -> side indices
  for (int x = wa; x < wd; ++x) {
    for (const Side& s : ch.by_a[x]) {
      if (s.d > wd) continue;
      const auto& gp = ch.group_pos[p.group[s.op]];
      bool any = false;
      for (auto it = std::lower_bound(gp.begin(), gp.end(), wa); it != gp.end() && *it <= wd;
           ++it) {
        at[*it - wa].push_back(static_cast<int>(side_t.size()));
        any = true;
      }
      if (any) side_t.push_back(p.time_ms[s.op]);
    }
  }
  const int w = len + 1;
  std::vector<double> phi(w * w, 0), uw(w * w, 0), u(ch.m);
  std::vector<int> stamp(side_t.size(), -1);
  std::vector<double> taus;
  for (int x = 0; x <= len; ++x) {
    double path_t = 0, sides = 0;
    RunValues(ch, wa + x, wd, &u);
    for (int y = x; y <= len; ++y) {
      if (y > 0 && y < len) path_t += ch.pre[wa + y + 1] - ch.pre[wa + y];
      for (int i : at[y]) {
        if (stamp[i] != x) stamp[i] = x, sides += side_t[i];
      }
      phi[x * w + y] = path_t + sides - inner;
      uw[x * w + y] = u[wa + y];
      taus.push_back(phi[x * w + y]);
    }
  }
  std::sort(taus.begin(), taus.end());
  taus.erase(std::unique(taus.begin(), taus.end()), taus.end());
  std::vector<double> best(w);
  // Cheapest cuts + U over the patterns whose runs all have phi <= tau.
  auto cheapest = [&](double tau) {
    for (int y = 0; y <= len; ++y) {
      best[y] = kInf;
      for (int x = 0; x <= y; ++x) {
        if (phi[x * w + y] > tau || wa + y > ch.far[wa + x]) continue;
        double base = x == 0 ? 0.0 : best[x - 1] + ch.cut[wa + x - 1];
        best[y] = std::min(best[y], base + uw[x * w + y]);
      }
    }
    return best[len];
  };
  // cheapest() falls as tau grows: the minimum of max(cheapest, tau) is
  // where they cross.
  size_t lo = 0, hi = taus.size() - 1;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (cheapest(taus[mid]) <= taus[mid]) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  double val = std::max(cheapest(taus[lo]), taus[lo]);
  if (lo > 0) val = std::min(val, std::max(cheapest(taus[lo - 1]), taus[lo - 1]));
  return std::max(0.0, val);
}

// The best sum of window items over windows with disjoint gaps; the
// windows are the side ops' windows up to kMaxWindow positions.
double WindowDpGaps(const Chain& ch, const Deadline& deadline) {
  std::vector<std::vector<int>> starts(ch.m);  // by window end
  for (int a = 0; a < ch.m; ++a) {
    for (const Side& s : ch.by_a[a]) {
      if (s.d - a <= kMaxWindow) starts[s.d].push_back(a);
    }
  }
  std::vector<double> f(ch.m, 0);
  for (int d = 1; d < ch.m; ++d) {
    if (deadline.Passed()) return f[d - 1];
    f[d] = f[d - 1];
    std::sort(starts[d].begin(), starts[d].end());
    starts[d].erase(std::unique(starts[d].begin(), starts[d].end()), starts[d].end());
    for (int a : starts[d]) f[d] = std::max(f[d], f[a] + WindowItem(ch, a, d));
  }
  return f[ch.m - 1];
}

}  // namespace

double ChainBoundOfPathMs(const PlacementProblem& p, const std::vector<int>& path,
                          const std::vector<double>& head, const std::vector<double>& tail,
                          const Deadline& deadline) {
  if (path.empty()) return 0;
  Chain ch = BuildChain(p, path);
  double gaps = std::max(CutDpGaps(ch), WindowDpGaps(ch, deadline));
  return head[path.front()] + ch.pre[ch.m] + gaps + tail[path.back()];
}

double ChainBoundMs(const PlacementProblem& p, const std::vector<double>& head,
                    const std::vector<double>& tail, const Deadline& deadline) {
  return ChainBoundOfPathMs(p, CriticalPath(p), head, tail, deadline);
}

}  // namespace frugal::place
