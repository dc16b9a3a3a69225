#include "frugal/place/pesto.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "frugal/place/coarsen.h"
#include "frugal/place/ilp.h"
#include "frugal/place/refine.h"

namespace frugal::place {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Coarse node count the MIP can handle within its budget with CBC.
int AutoCoarseNodes(int k) { return k <= 2 ? 72 : k <= 4 ? 56 : 40; }

// The same problem on the first k devices only (a placement of it is one of
// the original that leaves the other devices idle).
Result<PlacementProblem> FirstDevices(const PlacementProblem& p, int k) {
  PlacementProblem q = p;
  q.num_devices = k;
  q.device_mem_bytes.resize(k);
  Topology t = p.topology;
  t.num_devices = k;
  t.routes.assign(static_cast<size_t>(k) * k, {});
  for (int a = 0; a < k; ++a) {
    for (int b = 0; b < k; ++b) t.routes[static_cast<size_t>(a) * k + b] = p.topology.Route(a, b);
  }
  q.topology = std::move(t);
  FRUGAL_RETURN_IF_ERROR(q.Finalize());
  return q;
}

// Moves the smallest groups off devices over capacity onto the device with
// the most free memory. Returns false when that does not make it fit.
bool RepairMemory(const PlacementProblem& q, std::vector<int>* device) {
  const int k = q.num_devices;
  std::vector<int> gdev(q.num_groups);
  std::vector<double> used(k, 0);
  for (int g = 0; g < q.num_groups; ++g) {
    gdev[g] = (*device)[q.group_ops[g][0]];
    used[gdev[g]] += static_cast<double>(q.group_mem_bytes[g]);
  }
  std::vector<int> by_size(q.num_groups);
  for (int g = 0; g < q.num_groups; ++g) by_size[g] = g;
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](int a, int b) { return q.group_mem_bytes[a] < q.group_mem_bytes[b]; });
  for (int d = 0; d < k; ++d) {
    for (int g : by_size) {
      if (used[d] <= q.device_mem_bytes[d]) break;
      if (gdev[g] != d) continue;
      int to = -1;
      for (int e = 0; e < k; ++e) {
        double free = q.device_mem_bytes[e] - used[e];
        if (e != d && free >= q.group_mem_bytes[g] &&
            (to < 0 || free > q.device_mem_bytes[to] - used[to])) {
          to = e;
        }
      }
      if (to < 0) continue;
      gdev[g] = to;
      used[d] -= static_cast<double>(q.group_mem_bytes[g]);
      used[to] += static_cast<double>(q.group_mem_bytes[g]);
    }
    if (used[d] > q.device_mem_bytes[d]) return false;
  }
  for (int i = 0; i < q.num_ops(); ++i) (*device)[i] = gdev[q.group[i]];
  return true;
}

}  // namespace

Result<PlaceOutcome> PlacePesto(const PlacementProblem& p, const PlaceOptions& o) {
  auto t0 = Clock::now();
  auto log = [&](const std::string& m) {
    if (o.log) o.log(m);
  };
  std::vector<std::pair<std::string, Placement>> starts = o.starts;
  if (starts.empty()) {
    for (const auto& row : Placers()) {
      if (std::string(row.name) == "pesto") continue;
      FRUGAL_ASSIGN_OR_RETURN(PlaceOutcome b, RunPlacer(row.name, p, o));
      if (b.status != SolveStatus::kInfeasible) starts.push_back({row.name, b.placement});
    }
  }
  // Fewer GPUs can be faster when transfers are dear: the baselines on K/2
  // and K/4 GPUs start the search too.
  for (int k = p.num_devices / 2; k >= 2; k /= 2) {
    Result<PlacementProblem> q = FirstDevices(p, k);
    if (!q.ok()) break;  // does not fit on k GPUs
    for (const auto& row : Placers()) {
      std::string name = row.name;
      if (name == "pesto" || name == "single") continue;
      FRUGAL_ASSIGN_OR_RETURN(PlaceOutcome b, RunPlacer(name, *q, o));
      if (b.status == SolveStatus::kInfeasible) continue;
      b.placement.order.resize(p.num_devices);
      starts.push_back({fmt::format("{}@{}", name, k), std::move(b.placement)});
    }
  }
  // Ranked starts: the best is the MIP's warm start, the runners-up seed
  // further refinement.
  std::vector<std::pair<double, int>> ranked;
  for (size_t i = 0; i < starts.size(); ++i) {
    SimResult s = Simulate(p, starts[i].second);
    if (s.feasible) ranked.push_back({s.makespan_ms, static_cast<int>(i)});
  }
  std::stable_sort(ranked.begin(), ranked.end());
  std::string best_name;
  Placement best;
  double best_ms = 0;
  if (!ranked.empty()) {
    best_name = starts[ranked[0].second].first;
    best = starts[ranked[0].second].second;
    best_ms = ranked[0].first;
  }
  PlaceOutcome out;
  if (best_name.empty()) {
    out.status = SolveStatus::kInfeasible;
    out.note = "no baseline found a placement that fits in memory to start from";
    return out;
  }
  std::string note = fmt::format("start {} {:.3f} ms", best_name, best_ms);
  log(note);
  if (p.num_devices == 1) {
    out.status = SolveStatus::kOptimal;  // one device: any topological order
    out.placement = best;
    out.bound_ms = best_ms;
    out.gap = 0;
    out.note = note;
    return out;
  }
  out.status = SolveStatus::kTimeLimit;
  // Coarsen.
  CoarsenOptions co;
  co.target_nodes = o.coarse_nodes > 0 ? o.coarse_nodes : AutoCoarseNodes(p.num_devices);
  FRUGAL_ASSIGN_OR_RETURN(Coarsening c, Coarsen(p, co));
  const PlacementProblem& q = c.coarse;
  bool exact = q.num_ops() == p.num_ops();
  note += fmt::format("; coarse {} nodes", q.num_ops());
  log(note);
  // MIP, warm-started from the best so far projected onto the coarse graph.
  double mip_budget = 0.4 * (o.time_limit_s - Since(t0));
  auto solve = [&](const Coarsening& cc, const PlacementProblem& qk, double secs,
                   const Placement& from) -> Result<IlpResult> {
    std::vector<int> coarse_dev = ProjectDevices(p, cc, from.device);
    bool in_range = std::all_of(coarse_dev.begin(), coarse_dev.end(),
                                [&](int d) { return d < qk.num_devices; });
    bool have_start = in_range && RepairMemory(qk, &coarse_dev);
    Placement coarse_start;
    if (have_start) {
      coarse_start = ScheduleByBottomLevel(qk, coarse_dev);
      have_start = Simulate(qk, coarse_start).feasible;
    }
    IlpOptions io;
    io.time_limit_s = std::max(0.05, secs);
    io.threads = o.threads;
    io.start = have_start ? &coarse_start : nullptr;
    FRUGAL_ASSIGN_OR_RETURN(IlpResult mip, SolvePlacementIlp(qk, io));
    if (mip.has_solution) {
      std::vector<int> dev = ExpandDevices(cc, mip.device);
      std::vector<double> prio(p.num_ops());
      for (int i = 0; i < p.num_ops(); ++i) prio[i] = -mip.start_ms[cc.coarse_of[i]];
      for (Placement cand : {ListSchedule(p, dev, prio), ScheduleByBottomLevel(p, dev)}) {
        cand.order.resize(p.num_devices);
        SimResult s = Simulate(p, cand);
        if (s.feasible && s.makespan_ms < best_ms - 1e-9) {
          best = cand, best_ms = s.makespan_ms;
          best_name = "mip";
        }
      }
    }
    return mip;
  };
  FRUGAL_ASSIGN_OR_RETURN(IlpResult mip, solve(c, q, mip_budget, best));
  note += fmt::format("; MIP {}x{}", mip.num_columns, mip.num_rows);
  out.bound_ms = mip.bound_ms;
  out.bound_is_global = exact;
  if (mip.has_solution) {
    out.status = mip.optimal ? SolveStatus::kOptimal : SolveStatus::kTimeLimit;
    out.gap = mip.makespan_ms > 0
                  ? std::max(0.0, (mip.makespan_ms - mip.bound_ms) / mip.makespan_ms)
                  : 0;
    note += fmt::format(" {} obj {:.3f} bound {:.3f} -> {:.3f} ms",
                        mip.optimal ? "optimal" : "time limit", mip.makespan_ms,
                        mip.bound_ms, best_ms);
  } else {
    note += " no solution";
  }
  log(note);
  // Refine on the original ops: half the rest from the best so far, the
  // other half split between the next two distinct starts.
  std::vector<Placement> seeds{best};
  for (size_t i = 1; i < ranked.size() && seeds.size() < 3; ++i) {
    const Placement& s = starts[ranked[i].second].second;
    bool dup = false;
    for (const Placement& t : seeds) dup = dup || t.device == s.device;
    if (!dup) seeds.push_back(s);
  }
  int evals = 0;
  for (size_t i = 0; i < seeds.size(); ++i) {
    double left = std::max(0.0, o.time_limit_s - Since(t0));
    RefineOptions ro;
    ro.time_limit_s = i + 1 == seeds.size() ? left : left / 2;
    ro.max_evaluations = i == 0 ? 30000 : 10000;
    ro.seed = o.seed + i;
    RefineResult rr = Refine(p, seeds[i], ro);
    evals += rr.evaluations;
    if (rr.makespan_ms < best_ms - 1e-9) {
      best = rr.placement;
      best_ms = rr.makespan_ms;
    }
  }
  note += fmt::format("; refined {} starts, {} evals -> {:.3f} ms", seeds.size(), evals, best_ms);
  log(note);
  out.placement = best;
  out.note = note;
  return out;
}

}  // namespace frugal::place
