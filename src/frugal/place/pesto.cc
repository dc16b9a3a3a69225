#include "frugal/place/pesto.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "frugal/place/coarsen.h"
#include "frugal/place/ilp.h"
#include "frugal/place/refine.h"
#include "frugal/place/subproblems.h"

namespace frugal::place {
namespace {

// Coarse node count the MIP can handle within its budget with CBC.
int AutoCoarseNodes(int k) { return k <= 2 ? 72 : k <= 4 ? 56 : 40; }

}  // namespace

Result<PlaceOutcome> PlacePesto(const PlacementProblem& p, const PlaceOptions& o) {
  const Deadline& deadline = o.deadline;
  auto log = [&](const std::string& m) {
    if (o.log) o.log(m);
  };
  std::vector<std::pair<std::string, Placement>> starts = o.starts;
  if (starts.empty()) {
    for (const auto& row : Placers()) {
      if (std::string(row.name) == "pesto") continue;
      if (deadline.Passed() && !starts.empty()) break;
      FRUGAL_ASSIGN_OR_RETURN(PlaceOutcome b, RunPlacer(row.name, p, o));
      if (b.status != SolveStatus::kInfeasible) starts.push_back({row.name, b.placement});
    }
  }
  // The baselines on a sub-problem `q` whose placements are valid for p
  // start the search too, named "<baseline><suffix>".
  auto add_starts = [&](const PlacementProblem& q, const std::string& suffix) -> Status {
    for (const auto& row : Placers()) {
      std::string name = row.name;
      if (name == "pesto" || name == "single") continue;
      if (deadline.Passed()) break;
      FRUGAL_ASSIGN_OR_RETURN(PlaceOutcome b, RunPlacer(name, q, o));
      if (b.status == SolveStatus::kInfeasible) continue;
      b.placement.order.resize(p.num_devices);
      starts.push_back({name + suffix, std::move(b.placement)});
    }
    return Status::Ok();
  };
  // Fewer GPUs can be faster when transfers are dear: the baselines on K/2
  // and K/4 GPUs.
  for (int k = p.num_devices / 2; k >= 2 && !deadline.Passed(); k /= 2) {
    Result<PlacementProblem> q = FirstDevices(p, k);
    if (!q.ok()) break;  // does not fit on k GPUs
    FRUGAL_RETURN_IF_ERROR(add_starts(*q, fmt::format("@{}", k)));
  }
  // Memory-balanced baselines (see MemoryBalanced) diversify the starts.
  Result<PlacementProblem> tight =
      deadline.Passed() ? Result<PlacementProblem>(Internal("time limit")) : MemoryBalanced(p);
  if (tight.ok() && !deadline.Passed()) {
    FRUGAL_RETURN_IF_ERROR(add_starts(*tight, fmt::format("/bal{}", tight->num_devices)));
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
  if (deadline.Passed()) {  // the baselines took the whole budget
    out.placement = best;
    out.note = note + "; time limit before the MIP";
    return out;
  }
  // Coarsen.
  CoarsenOptions co;
  co.deadline = deadline;
  co.target_nodes = o.coarse_nodes > 0 ? o.coarse_nodes : AutoCoarseNodes(p.num_devices);
  FRUGAL_ASSIGN_OR_RETURN(Coarsening c, Coarsen(p, co));
  const PlacementProblem& q = c.coarse;
  bool exact = q.num_ops() == p.num_ops();
  note += fmt::format("; coarse {} nodes", q.num_ops());
  log(note);
  // MIP, warm-started from the best so far projected onto the coarse graph.
  // With a memory-balanced problem, its own MIP gets 40% of the MIP time.
  double mip_budget = 0.4 * deadline.LeftS();
  std::optional<Placement> balanced;
  if (tight.ok()) balanced = BalancedStart(*tight, starts, ranked, best);
  double balanced_budget = balanced ? 0.4 * mip_budget : 0;
  mip_budget -= balanced_budget;
  // Solves the coarse MIP; the better expansion goes to *produced (when
  // given) and, if it beats the best, to best.
  auto solve = [&](const Coarsening& cc, const PlacementProblem& qk, double secs,
                   const Placement& from, std::optional<Placement>* produced,
                   const char* name) -> Result<IlpResult> {
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
      double produced_ms = INFINITY;
      for (Placement cand : {ListSchedule(p, dev, prio), ScheduleByBottomLevel(p, dev)}) {
        cand.order.resize(p.num_devices);
        SimResult s = Simulate(p, cand);
        if (!s.feasible) continue;
        if (produced && s.makespan_ms < produced_ms) *produced = cand, produced_ms = s.makespan_ms;
        if (s.makespan_ms < best_ms - 1e-9) {
          best = cand, best_ms = s.makespan_ms;
          best_name = name;
        }
      }
    }
    return mip;
  };
  FRUGAL_ASSIGN_OR_RETURN(IlpResult mip, solve(c, q, mip_budget, best, nullptr, "mip"));
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
  // Balanced seeds: the balanced start and the balanced MIP's expansion.
  std::vector<Placement> balanced_seeds;
  if (balanced && deadline.Passed()) balanced.reset();
  if (balanced) {
    balanced_seeds.push_back(*balanced);
    note += fmt::format("; balanced on {} GPUs from {:.3f} ms", tight->num_devices,
                        Simulate(*tight, *balanced).makespan_ms);
    FRUGAL_ASSIGN_OR_RETURN(Coarsening cb, Coarsen(*tight, co));
    std::optional<Placement> produced;
    FRUGAL_ASSIGN_OR_RETURN(IlpResult bm, solve(cb, cb.coarse, balanced_budget, *balanced,
                                                &produced, "balanced mip"));
    if (bm.has_solution) note += fmt::format("; balanced MIP obj {:.3f}", bm.makespan_ms);
    if (produced) produced = OnDevices(*produced, tight->num_devices);
    if (produced && produced->device != balanced->device && Simulate(*tight, *produced).feasible) {
      balanced_seeds.push_back(*produced);
    }
  }
  // Refine on the original ops: the best so far, the balanced seeds under
  // the balanced memory (a diversification) and the next distinct start.
  std::vector<std::pair<const PlacementProblem*, Placement>> seeds{{&p, best}};
  for (const Placement& s : balanced_seeds) seeds.push_back({&*tight, s});
  const size_t max_seeds = std::max<size_t>(3, seeds.size() + 1);
  for (size_t i = 1; i < ranked.size() && seeds.size() < max_seeds; ++i) {
    const Placement& s = starts[ranked[i].second].second;
    bool dup = false;
    for (const auto& t : seeds) dup = dup || t.second.device == s.device;
    if (!dup) seeds.push_back({&p, s});
  }
  int evals = 0;
  for (size_t i = 0; i < seeds.size(); ++i) {
    double left = deadline.LeftS();
    RefineOptions ro;
    ro.time_limit_s = left / static_cast<double>(seeds.size() - i);
    ro.max_evaluations = i == 0 ? 60000 : 30000;
    ro.seed = o.seed + i;
    RefineResult rr = Refine(*seeds[i].first, seeds[i].second, ro);
    rr.placement.order.resize(p.num_devices);
    evals += rr.evaluations;
    if (rr.makespan_ms < best_ms - 1e-9 && Simulate(p, rr.placement).feasible) {
      best = rr.placement;
      best_ms = rr.makespan_ms;
      best_name = fmt::format("refining seed {}", i);
    }
  }
  note += fmt::format("; refined {} starts, {} evals -> {:.3f} ms (best from {})", seeds.size(),
                      evals, best_ms, best_name);
  log(note);
  out.placement = best;
  out.note = note;
  return out;
}

}  // namespace frugal::place
