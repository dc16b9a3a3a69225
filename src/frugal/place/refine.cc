#include "frugal/place/refine.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <set>

namespace frugal::place {
namespace {

constexpr double kInfMs = 1e300;
using Clock = std::chrono::steady_clock;

class Refiner {
 public:
  Refiner(const PlacementProblem& p, const RefineOptions& o, RefineResult* r)
      : p_(p), o_(o), r_(r), rng_(o.seed),
        deadline_(Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(std::max(0.0, o.time_limit_s)))) {}

  bool OutOfBudget() {
    if (r_->evaluations >= o_.max_evaluations) return true;
    if (Clock::now() > deadline_) {
      r_->time_limit = true;
      return true;
    }
    return false;
  }

  double Evaluate(const std::vector<int>& gd, Placement* out) {
    std::vector<int> dev(p_.num_ops());
    for (int i = 0; i < p_.num_ops(); ++i) dev[i] = gd[p_.group[i]];
    // List scheduling a fixed assignment of a DAG never deadlocks, and its
    // makespan is the simulator's (simulator.h): no second run needed.
    double ms = kInfMs;
    *out = ScheduleByBottomLevel(p_, dev, &ms);
    ++r_->evaluations;
    return ms;
  }

  std::vector<double> Used(const std::vector<int>& gd) const {
    std::vector<double> used(p_.num_devices, 0);
    for (int g = 0; g < p_.num_groups; ++g) used[gd[g]] += static_cast<double>(p_.group_mem_bytes[g]);
    return used;
  }

  // Moves (g -> d) worth trying: across cut edges, and off the busiest device.
  std::vector<std::pair<int, int>> Candidates(const std::vector<int>& gd) {
    std::set<std::pair<int, int>> moves;
    for (const PlaceEdge& e : p_.edges) {
      int a = p_.group[e.src], b = p_.group[e.dst];
      if (gd[a] == gd[b]) continue;
      moves.insert({a, gd[b]});
      moves.insert({b, gd[a]});
    }
    std::vector<double> load(p_.num_devices, 0);
    for (int g = 0; g < p_.num_groups; ++g) load[gd[g]] += p_.group_time_ms[g];
    int busiest = static_cast<int>(std::max_element(load.begin(), load.end()) - load.begin());
    int idlest = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    for (int g = 0; g < p_.num_groups; ++g) {
      if (gd[g] == busiest && p_.group_time_ms[g] > 0) moves.insert({g, idlest});
    }
    std::vector<std::pair<int, int>> out(moves.begin(), moves.end());
    std::shuffle(out.begin(), out.end(), rng_);
    return out;
  }

  // Applies move g -> d, or a swap with the group on d of least compute that
  // makes room. Returns the swapped group (-1 none) or -2 when impossible.
  int Apply(std::vector<int>& gd, std::vector<double>& used, int g, int d) {
    int from = gd[g];
    double gm = static_cast<double>(p_.group_mem_bytes[g]);
    int swap_with = -1;
    if (used[d] + gm > p_.device_mem_bytes[d]) {
      for (int h = 0; h < p_.num_groups; ++h) {
        if (gd[h] != d) continue;
        double hm = static_cast<double>(p_.group_mem_bytes[h]);
        if (used[d] - hm + gm > p_.device_mem_bytes[d]) continue;
        if (used[from] - gm + hm > p_.device_mem_bytes[from]) continue;
        if (swap_with < 0 || p_.group_time_ms[h] < p_.group_time_ms[swap_with]) swap_with = h;
      }
      if (swap_with < 0) return -2;
    }
    gd[g] = d;
    used[from] -= gm;
    used[d] += gm;
    if (swap_with >= 0) {
      double hm = static_cast<double>(p_.group_mem_bytes[swap_with]);
      gd[swap_with] = from;
      used[d] -= hm;
      used[from] += hm;
    }
    return swap_with;
  }

  // First-improvement descent from gd (whose makespan is *ms).
  void Descend(std::vector<int>& gd, double* ms, Placement* pl) {
    std::vector<double> used = Used(gd);
    bool improved = true;
    while (improved) {
      improved = false;
      for (auto [g, d] : Candidates(gd)) {
        if (OutOfBudget()) return;
        if (gd[g] == d) continue;
        std::vector<int> trial = gd;
        std::vector<double> trial_used = used;
        if (Apply(trial, trial_used, g, d) == -2) continue;
        Placement cand;
        double t = Evaluate(trial, &cand);
        if (t < *ms - 1e-9) {
          *ms = t;
          *pl = std::move(cand);
          gd = std::move(trial);
          used = std::move(trial_used);
          ++r_->improvements;
          improved = true;
          break;
        }
      }
    }
  }

  // Random moves across cut edges: escapes a local optimum.
  void Perturb(std::vector<int>& gd, int moves) {
    std::vector<double> used = Used(gd);
    for (int i = 0; i < moves; ++i) {
      auto cand = Candidates(gd);
      if (cand.empty()) return;
      auto [g, d] = cand[rng_() % cand.size()];
      Apply(gd, used, g, d);
    }
  }

 private:
  const PlacementProblem& p_;
  const RefineOptions& o_;
  RefineResult* r_;
  std::mt19937_64 rng_;
  Clock::time_point deadline_;
};

}  // namespace

RefineResult Refine(const PlacementProblem& p, const Placement& start, const RefineOptions& o) {
  RefineResult r;
  r.placement = start;
  r.makespan_ms = Simulate(p, start).makespan_ms;
  if (p.num_devices == 1) return r;
  Refiner f(p, o, &r);
  std::vector<int> best(p.num_groups);
  for (int g = 0; g < p.num_groups; ++g) best[g] = start.device[p.group_ops[g][0]];
  {
    Placement pl;
    double ms = f.Evaluate(best, &pl);
    if (ms < r.makespan_ms) r.makespan_ms = ms, r.placement = pl;
  }
  // Iterated local search: descend, then perturb the best and descend again.
  std::vector<int> cur = best;
  double cur_ms = r.makespan_ms;
  Placement cur_pl = r.placement;
  for (int round = 0; !f.OutOfBudget(); ++round) {
    f.Descend(cur, &cur_ms, &cur_pl);
    if (cur_ms < r.makespan_ms - 1e-9) {
      r.makespan_ms = cur_ms;
      r.placement = cur_pl;
      best = cur;
    }
    if (f.OutOfBudget()) break;
    cur = best;
    f.Perturb(cur, 2 + round % 4);
    cur_ms = f.Evaluate(cur, &cur_pl);
  }
  return r;
}

}  // namespace frugal::place
