#include "frugal/place/comm_bound.h"

#include <algorithm>
#include <limits>
#include <map>

#include "frugal/place/lp_model.h"

namespace frugal::place {
namespace {



// One machine, jobs (release, processing): release order is optimal.
double OneMachine(std::vector<std::pair<double, double>> jobs) {
  std::sort(jobs.begin(), jobs.end());
  double t = 0;
  for (auto [r, d] : jobs) t = std::max(t, r) + d;
  return t;
}

// head (preds, topological order) or tail (succs, reverse order); see the
// header for the derivation.
std::vector<double> Levels(const PlacementProblem& p, bool heads) {
  const int n = p.num_ops();
  const auto nbs = Neighbors(p, heads);
  double cap = *std::max_element(p.device_mem_bytes.begin(), p.device_mem_bytes.end());
  std::vector<double> level(n, 0);
  std::vector<int> mark(p.num_groups, -1);
  for (int idx = 0; idx < n; ++idx) {
    int v = p.topo_order[heads ? idx : n - 1 - idx];
    if (nbs[v].empty()) continue;
    const int gv = p.group[v];
    double remote = -kInf;
    std::vector<std::pair<double, double>> local;
    std::vector<std::pair<double, int>> free;  // (a, op), by decreasing a
    double mem = static_cast<double>(p.group_mem_bytes[gv]);
    mark[gv] = v;
    for (const Neighbor& nb : nbs[v]) {
      int u = nb.op, gu = p.group[u];
      double a = level[u] + p.time_ms[u] + nb.c;
      if (gu == gv || p.num_devices == 1) {
        local.push_back({level[u], p.time_ms[u]});
        if (mark[gu] != v) mark[gu] = v, mem += static_cast<double>(p.group_mem_bytes[gu]);
      } else if (static_cast<double>(p.group_mem_bytes[gu] + p.group_mem_bytes[gv]) > cap) {
        remote = std::max(remote, a);
      } else {
        free.push_back({a, u});
      }
    }
    std::sort(free.begin(), free.end(), [](const auto& x, const auto& y) {
      return x.first != y.first ? x.first > y.first : x.second < y.second;
    });
    double best = kInf;
    for (size_t j = 0; j <= free.size(); ++j) {
      if (j > 0) {
        int u = free[j - 1].second, gu = p.group[u];
        if (mark[gu] != v) {
          mark[gu] = v;
          mem += static_cast<double>(p.group_mem_bytes[gu]);
          if (mem > cap) break;  // this and every longer prefix cannot share v's device
        }
        local.push_back({level[u], p.time_ms[u]});
      }
      double rest = j < free.size() ? free[j].first : -kInf;
      double val = std::max({remote, rest, local.empty() ? 0.0 : OneMachine(local)});
      best = std::min(best, val);
    }
    level[v] = std::max(0.0, best);
  }
  return level;
}

// Subsets of one colocation group {head >= h, tail >= q}: min head + work +
// min tail. Quadratic in the group's size; large groups use q = the
// subset's own minimum only.
double GroupBound(const PlacementProblem& p, const std::vector<int>& ops,
                  const std::vector<double>& head, const std::vector<double>& tail) {
  std::vector<int> by_head = ops;
  std::sort(by_head.begin(), by_head.end(), [&](int a, int b) {
    return head[a] != head[b] ? head[a] > head[b] : a < b;
  });
  double best = 0, work = 0, min_tail = kInf;
  const bool full = ops.size() <= 256;
  for (size_t i = 0; i < by_head.size(); ++i) {
    int v = by_head[i];
    work += p.time_ms[v];
    min_tail = std::min(min_tail, tail[v]);
    best = std::max(best, head[v] + work + min_tail);
    if (!full) continue;
    std::vector<int> pre(by_head.begin(), by_head.begin() + i + 1);
    std::sort(pre.begin(), pre.end(), [&](int a, int b) {
      return tail[a] != tail[b] ? tail[a] > tail[b] : a < b;
    });
    double w = 0;
    for (int u : pre) {
      w += p.time_ms[u];
      best = std::max(best, head[v] + w + tail[u]);
    }
  }
  return best;
}

}  // namespace

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

CommBound ComputeCommBound(const PlacementProblem& p) {
  CommBound b;
  b.head_ms = Levels(p, true);
  b.tail_ms = Levels(p, false);
  for (int v = 0; v < p.num_ops(); ++v) {
    b.bound_ms = std::max(b.bound_ms, b.head_ms[v] + p.time_ms[v] + b.tail_ms[v]);
  }
  for (const auto& ops : p.group_ops) {
    if (ops.size() > 1) b.bound_ms = std::max(b.bound_ms, GroupBound(p, ops, b.head_ms, b.tail_ms));
  }
  return b;
}

}  // namespace frugal::place
