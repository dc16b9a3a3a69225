// Test helpers: the simulator's optimum of a tiny problem by enumeration,
// and random tiny problems with colocation and memory pressure.
#ifndef FRUGAL_PLACE_BRUTE_FORCE_H_
#define FRUGAL_PLACE_BRUTE_FORCE_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "frugal/place/simulator.h"
#include "frugal/place/test_problems.h"

namespace frugal::place::testing {

// The simulator's optimum by enumeration: every device assignment and every
// per-device order (orders that contradict the dependencies are rejected by
// the simulator). Any schedule is such a pair, so this is the true optimum.
inline double BruteForceOptimum(const PlacementProblem& p) {
  const int n = p.num_ops(), k = p.num_devices;
  double best = INFINITY;
  std::vector<int> dev(n, 0);
  std::function<void(int)> assign = [&](int i) {
    if (i == n) {
      Placement pl;
      pl.device = dev;
      pl.order.assign(k, {});
      for (int v = 0; v < n; ++v) pl.order[dev[v]].push_back(v);
      std::function<void(int)> orders = [&](int d) {
        if (d == k) {
          SimResult s = Simulate(p, pl);
          if (s.feasible) best = std::min(best, s.makespan_ms);
          return;
        }
        std::sort(pl.order[d].begin(), pl.order[d].end());
        do {
          orders(d + 1);
        } while (std::next_permutation(pl.order[d].begin(), pl.order[d].end()));
      };
      orders(0);
      return;
    }
    for (int d = 0; d < k; ++d) {
      dev[i] = d;
      assign(i + 1);
    }
  };
  assign(0);
  return best;
}

// A random connected DAG of n ops; some colocation and memory pressure.
inline PlacementProblem RandomProblem(std::mt19937& rng, int n, int k, bool pcie) {
  std::uniform_real_distribution<double> time(0, 3), cost(0, 4), u01(0, 1);
  std::vector<double> times;
  std::vector<std::vector<double>> edges;
  std::vector<int64_t> mem, color;
  for (int j = 0; j < n; ++j) {
    times.push_back(u01(rng) < 0.15 ? 0 : time(rng));
    mem.push_back(1 + static_cast<int64_t>(rng() % 6));
    color.push_back(u01(rng) < 0.2 ? 100 : -1);  // a few share one group
    if (j == 0) continue;
    bool any = false;
    for (int i = 0; i < j; ++i) {
      if (u01(rng) < 0.35) edges.push_back({double(i), double(j), cost(rng)}), any = true;
    }
    if (!any) edges.push_back({double(rng() % j), double(j), cost(rng)});
  }
  int64_t total = 0;
  for (int64_t m : mem) total += m;
  double r = u01(rng);
  double cap = r < 0.34   ? INFINITY
               : r < 0.67 ? std::ceil(1.3 * total / k) + 6
                          : std::ceil(total / k * (1.0 + 0.4 * u01(rng)));  // often too small
  return MakeProblem(times, edges, k, cap, mem, pcie ? "pcie" : "nvlink", color);
}

// Calls fn(p, optimum, trial) for each of `trials` random tiny problems
// (3-6 ops, 2-3 devices, every third memory-constrained; at most 5 ops on
// 3 devices) that have a feasible placement; returns how many it called.
inline int ForEachTinyProblem(
    uint32_t seed, int trials,
    const std::function<void(const PlacementProblem&, double, int)>& fn) {
  std::mt19937 rng(seed);
  int called = 0;
  for (int trial = 0; trial < trials; ++trial) {
    int n = 3 + trial % 4, k = 2 + trial % 2;
    if (n == 6 && k == 3) n = 5;
    PlacementProblem p = RandomProblem(rng, n, k, trial % 3 == 0);
    if (p.name != "test") continue;  // memory too small for any placement
    double opt = BruteForceOptimum(p);
    if (!std::isfinite(opt)) continue;  // the groups cannot be packed
    fn(p, opt, trial);
    ++called;
  }
  return called;
}

}  // namespace frugal::place::testing

#endif  // FRUGAL_PLACE_BRUTE_FORCE_H_
