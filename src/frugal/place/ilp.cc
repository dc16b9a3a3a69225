#include "frugal/place/ilp.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

#include "frugal/place/lp_model.h"

namespace frugal::place {
namespace {

// reach[i] bit j: a path leads from i to j.
std::vector<std::vector<uint64_t>> Reachability(const PlacementProblem& p) {
  const int n = p.num_ops(), words = (n + 63) / 64;
  std::vector<std::vector<uint64_t>> reach(n, std::vector<uint64_t>(words, 0));
  for (int t = n - 1; t >= 0; --t) {
    int u = p.topo_order[t];
    for (int v : p.succs[u]) {
      reach[u][v / 64] |= uint64_t{1} << (v % 64);
      for (int w = 0; w < words; ++w) reach[u][w] |= reach[v][w];
    }
  }
  return reach;
}

bool Reaches(const std::vector<std::vector<uint64_t>>& r, int a, int b) {
  return (r[a][b / 64] >> (b % 64)) & 1;
}

}  // namespace

Result<IlpResult> SolvePlacementIlp(const PlacementProblem& p, const IlpOptions& o) {
  const int n = p.num_ops(), ng = p.num_groups;
  int k = p.num_devices;
  // Device relabeling for symmetry breaking: groups in order of first
  // appearance in topological order may use devices 0..rank.
  std::vector<int> group_rank(ng, -1);
  int next_rank = 0;
  for (int u : p.topo_order) {
    if (group_rank[p.group[u]] < 0) group_rank[p.group[u]] = next_rank++;
  }
  bool equal_caps = std::all_of(p.device_mem_bytes.begin(), p.device_mem_bytes.end(),
                                [&](double c) { return c == p.device_mem_bytes[0]; });
  bool break_symmetry = p.topology.symmetric && equal_caps;
  // With symmetry broken, group g may only use devices 0..rank(g) < ng: the
  // devices from ng on would be columns fixed at 0 (1000 GPUs, 40 nodes).
  if (break_symmetry) k = std::min(k, ng);

  // Warm start: its schedule in the simulator satisfies every constraint.
  SimResult start_sim;
  std::vector<int> start_dev;
  if (o.start) {
    start_sim = Simulate(p, *o.start, {.keep_timeline = true});
    if (start_sim.feasible) {
      start_dev = o.start->device;
      if (break_symmetry) {
        std::vector<int> relabel(p.num_devices, -1);
        int used = 0;
        std::vector<int> by_rank(ng);
        for (int g = 0; g < ng; ++g) by_rank[group_rank[g]] = g;
        for (int g : by_rank) {
          int d = start_dev[p.group_ops[g][0]];
          if (relabel[d] < 0) relabel[d] = used++;
        }
        for (int& d : start_dev) d = relabel[d];
      }
    }
  }
  double big_m = p.total_time_ms();
  for (size_t e = 0; e < p.edges.size(); ++e) big_m += p.MinEdgeTransferMs(static_cast<int>(e));
  if (!start_dev.empty()) big_m = std::min(big_m, start_sim.makespan_ms);
  big_m = std::max(big_m, 1e-6) * 1.0001;

  LpModel m;
  std::vector<double> start;  // warm start values, filled alongside
  auto col = [&](double lb, double ub, double obj, bool integer, double init) {
    start.push_back(init);
    return m.AddColumn(lb, ub, obj, integer);
  };
  bool warm = !start_dev.empty();
  // x[g][k]
  std::vector<std::vector<int>> x(ng, std::vector<int>(k));
  for (int g = 0; g < ng; ++g) {
    std::vector<std::pair<int, double>> one;
    for (int d = 0; d < k; ++d) {
      double ub = break_symmetry && d > group_rank[g] ? 0 : 1;
      double init = warm && start_dev[p.group_ops[g][0]] == d ? 1 : 0;
      x[g][d] = col(0, ub, 0, true, init);
      one.push_back({x[g][d], 1});
    }
    m.AddRow(one, 1, 1);
  }
  for (int d = 0; d < k; ++d) {
    if (std::isinf(p.device_mem_bytes[d])) continue;
    std::vector<std::pair<int, double>> row;
    for (int g = 0; g < ng; ++g) {
      if (p.group_mem_bytes[g] > 0) {  // scaled by capacity: well conditioned
        row.push_back({x[g][d], p.group_mem_bytes[g] / p.device_mem_bytes[d]});
      }
    }
    if (!row.empty()) m.AddRow(row, -kInf, 1);
  }
  std::vector<int> c(n);
  for (int i = 0; i < n; ++i) {
    c[i] = col(p.time_ms[i], big_m, 0, false, warm ? start_sim.ops[i].end_ms : 0);
  }
  int cmax = col(0, big_m, 1, false, warm ? start_sim.makespan_ms : 0);
  for (int i = 0; i < n; ++i) {
    if (p.succs[i].empty()) m.AddRow({{cmax, 1}, {c[i], -1}}, 0, kInf);
  }
  // Precedence, one row per distinct pair; transfer only across devices.
  std::map<std::pair<int, int>, double> pair_cost;
  for (size_t e = 0; e < p.edges.size(); ++e) {
    double cost = p.MinEdgeTransferMs(static_cast<int>(e));
    auto [it, inserted] = pair_cost.emplace(std::make_pair(p.edges[e].src, p.edges[e].dst), cost);
    if (!inserted) it->second = std::max(it->second, cost);
  }
  for (const auto& [key, cost] : pair_cost) {
    auto [u, v] = key;
    int gu = p.group[u], gv = p.group[v];
    if (gu == gv || cost <= 0) {
      m.AddRow({{c[v], 1}, {c[u], -1}}, p.time_ms[v], kInf);
      continue;
    }
    double init = warm && start_dev[u] != start_dev[v] ? 1 : 0;
    int z = col(0, 1, 0, false, init);
    for (int d = 0; d < k; ++d) m.AddRow({{z, 1}, {x[gu][d], -1}, {x[gv][d], 1}}, 0, kInf);
    m.AddRow({{c[v], 1}, {c[u], -1}, {z, -cost}}, p.time_ms[v], kInf);
  }
  // Disjunctions for unordered pairs.
  auto reach = Reachability(p);
  for (int i = 0; i < n; ++i) {
    if (p.time_ms[i] <= 0) continue;
    for (int j = i + 1; j < n; ++j) {
      if (p.time_ms[j] <= 0 || Reaches(reach, i, j) || Reaches(reach, j, i)) continue;
      int gi = p.group[i], gj = p.group[j];
      bool before = warm && start_sim.ops[i].end_ms <= start_sim.ops[j].start_ms;
      int y = col(0, 1, 0, true, before ? 1 : 0);
      if (gi == gj) {
        // C_j >= C_i + p_j - M (1 - y);  C_i >= C_j + p_i - M y
        m.AddRow({{c[j], 1}, {c[i], -1}, {y, -big_m}}, p.time_ms[j] - big_m, kInf);
        m.AddRow({{c[i], 1}, {c[j], -1}, {y, big_m}}, p.time_ms[i], kInf);
        continue;
      }
      double same = warm && start_dev[i] == start_dev[j] ? 1 : 0;
      int s = col(0, 1, 0, false, same);
      for (int d = 0; d < k; ++d) m.AddRow({{s, 1}, {x[gi][d], -1}, {x[gj][d], -1}}, -1, kInf);
      m.AddRow({{c[j], 1}, {c[i], -1}, {y, -big_m}, {s, -big_m}}, p.time_ms[j] - 2 * big_m, kInf);
      m.AddRow({{c[i], 1}, {c[j], -1}, {y, big_m}, {s, -big_m}}, p.time_ms[i] - big_m, kInf);
    }
  }
  MipSolveOptions so;
  so.time_limit_s = o.time_limit_s;
  so.threads = o.threads;
  if (warm) {
    so.start = &start;
    so.start_objective = start_sim.makespan_ms;
  }
  FRUGAL_ASSIGN_OR_RETURN(MipResult r, m.SolveMip(so));
  IlpResult out;
  out.num_columns = m.num_columns();
  out.num_rows = m.num_rows();
  out.optimal = r.optimal;
  out.time_limit = r.time_limit;
  out.bound_ms = std::max(0.0, r.bound);
  if (!r.has_solution) return out;
  out.has_solution = true;
  out.makespan_ms = r.objective;
  out.device.assign(n, 0);
  out.start_ms.assign(n, 0);
  for (int i = 0; i < n; ++i) {
    int g = p.group[i], best = 0;
    for (int d = 1; d < k; ++d) {
      if (r.x[x[g][d]] > r.x[x[g][best]]) best = d;
    }
    out.device[i] = best;
    out.start_ms[i] = r.x[c[i]] - p.time_ms[i];
  }
  return out;
}

}  // namespace frugal::place
