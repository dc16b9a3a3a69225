#include "frugal/place/chain_bound.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "frugal/place/bounds.h"
#include "frugal/place/brute_force.h"
#include "frugal/place/comm_bound.h"

namespace frugal::place {
namespace {

using testing::BruteForceOptimum;

TEST(ChainBound, SideBranchThatCannotLeaveSerializesWithThePath) {
  // a -> b -> c -> d (1 ms each, edges 3 ms) and a -> s -> d (s 1.5 ms, edges
  // 5 ms): s stays with the chain, so 5.5 ms; the per-op head of d only sees
  // c and s (comm 4.5), the critical path 4.
  PlacementProblem p = testing::MakeProblem(
      {1, 1, 1, 1, 1.5}, {{0, 1, 3}, {1, 2, 3}, {2, 3, 3}, {0, 4, 5}, {4, 3, 5}}, 2);
  ASSERT_EQ(p.name, "test");
  LowerBounds lb = ComputeLowerBounds(p);
  EXPECT_DOUBLE_EQ(lb.critical_path_ms, 4);
  EXPECT_DOUBLE_EQ(lb.comm_ms, 4.5);
  EXPECT_DOUBLE_EQ(lb.chain_ms, 5.5);
  EXPECT_DOUBLE_EQ(lb.best_ms(), 5.5);
  EXPECT_DOUBLE_EQ(BruteForceOptimum(p), 5.5);
}

TEST(ChainBound, CheapCutLetsTheSideRunBesideThePath) {
  // As above but a -> b and c -> d cost 0.5: b, c can move to the other GPU
  // and back while s runs. One cut already frees s (its window straddles
  // the cut), so the bound charges only that cut: 4 + 0.5.
  PlacementProblem p = testing::MakeProblem(
      {1, 1, 1, 1, 1.5}, {{0, 1, 0.5}, {1, 2, 3}, {2, 3, 0.5}, {0, 4, 5}, {4, 3, 5}}, 2);
  std::vector<double> zero(5, 0);
  EXPECT_DOUBLE_EQ(ChainBoundOfPathMs(p, {0, 1, 2, 3}, zero, zero), 4.5);
  EXPECT_LE(ComputeLowerBounds(p).best_ms(), BruteForceOptimum(p) + 1e-9);
}

TEST(ChainBound, ColocatedSideSerializesWhateverTheCheapCuts) {
  // p0 -> p1 -> p2 -> p3 (1 ms each; p0 -> p1 and p2 -> p3 cost 0.5, p1 -> p2
  // costs 5) and p0 -> s -> p3 with s (1.5 ms) colocated with p1. A cut at
  // p0 -> p1 frees s from the run-based accounting (comm sees 4.5), but s
  // shares p1's GPU and its window [p0, p3]: the window's gaps are at least
  // 1.5 whatever is cut inside it, so 5.5 = optimum.
  PlacementProblem p = testing::MakeProblem(
      {1, 1, 1, 1, 1.5}, {{0, 1, 0.5}, {1, 2, 5}, {2, 3, 0.5}, {0, 4, 3}, {4, 3, 3}}, 2,
      INFINITY, {}, "nvlink", {-1, 1, -1, -1, 1});
  ASSERT_EQ(p.name, "test");
  LowerBounds lb = ComputeLowerBounds(p);
  EXPECT_DOUBLE_EQ(lb.chain_ms, 5.5);
  EXPECT_LT(std::max({lb.critical_path_ms, lb.comm_ms, lb.memory_path_ms}), 5.5 - 0.5);
  EXPECT_DOUBLE_EQ(BruteForceOptimum(p), 5.5);
}

TEST(ChainBound, RunsMustFitInOneDevice) {
  // The path bound's case (path_bound_test.cc): any two of a, b, c fit on a
  // device but not all three, so the cheaper of a->b (5) and b->c (2) is cut.
  PlacementProblem p = testing::MakeProblem({1, 1, 1, 1}, {{0, 1, 5}, {1, 2, 2}, {2, 3, 5}}, 2,
                                            9, {4, 4, 4, 1});
  ASSERT_EQ(p.name, "test");
  std::vector<double> zero(4, 0);
  EXPECT_DOUBLE_EQ(ChainBoundMs(p, zero, zero), 6);
}

TEST(ChainBound, OneDeviceCountsEverySide) {
  PlacementProblem p =
      testing::MakeProblem({1, 2, 1, 3}, {{0, 1, 1}, {0, 2, 1}, {1, 3, 1}, {2, 3, 1}}, 1);
  std::vector<double> zero(4, 0);
  EXPECT_DOUBLE_EQ(ChainBoundMs(p, zero, zero), 7);
}

TEST(ChainBound, NeverAboveTheBruteForceOptimum) {
  int checked = testing::ForEachTinyProblem(23, 400, [&](const PlacementProblem& p, double opt,
                                                         int trial) {
    LowerBounds lb = ComputeLowerBounds(p);
    EXPECT_LE(lb.chain_ms, opt + 1e-9) << "trial " << trial;
    EXPECT_LE(lb.best_ms(), opt + 1e-9) << "trial " << trial;
  });
  EXPECT_GE(checked, 250);
}

// Chains with side branches (the shape the bound is for): a path of 3-4
// ops, 1-2 side ops hung between path ops (sometimes on each other), random
// times, costs and colocation, 2-3 GPUs, nvlink or pcie, some with memory
// pressure.
TEST(ChainBound, NeverAboveTheOptimumOnChainsWithSides) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> time(0, 3), cost(0, 6), u01(0, 1);
  int checked = 0, tighter = 0;
  for (int trial = 0; trial < 300; ++trial) {
    int len = 3 + trial % 2, sides = 1 + (trial / 2) % 2, k = 2 + (trial % 5 == 0);
    if (k == 3 && len + sides > 5) sides = 1;
    std::vector<double> times;
    std::vector<std::vector<double>> edges;
    std::vector<int64_t> color;
    for (int i = 0; i < len; ++i) {
      times.push_back(time(rng));
      color.push_back(-1);
      if (i > 0) edges.push_back({double(i - 1), double(i), cost(rng)});
    }
    for (int s = 0; s < sides; ++s) {
      int v = len + s;
      times.push_back(time(rng));
      color.push_back(-1);
      int a = static_cast<int>(rng() % (len - 1));
      int d = a + 1 + static_cast<int>(rng() % (len - 1 - a));
      if (s > 0 && u01(rng) < 0.5) a = v - 1;  // hang on the previous side
      edges.push_back({double(a), double(v), cost(rng)});
      edges.push_back({double(v), double(d), cost(rng)});
      if (u01(rng) < 0.3) color[v] = 7, color[static_cast<int>(rng() % len)] = 7;
    }
    std::vector<int64_t> mem;
    double cap = INFINITY;
    if (trial % 4 == 1) {  // memory pressure: runs must fit
      int64_t total = 0;
      for (size_t i = 0; i < times.size(); ++i) mem.push_back(1 + rng() % 6), total += mem.back();
      cap = std::ceil(1.3 * static_cast<double>(total) / k);
    }
    PlacementProblem p = testing::MakeProblem(times, edges, k, cap, mem,
                                              trial % 3 == 0 ? "pcie" : "nvlink", color);
    if (p.name != "test") continue;
    double opt = BruteForceOptimum(p);
    LowerBounds lb = ComputeLowerBounds(p);
    EXPECT_LE(lb.chain_ms, opt + 1e-9) << "trial " << trial;
    if (lb.chain_ms > std::max({lb.comm_ms, lb.critical_path_ms, lb.memory_path_ms}) + 1e-6) {
      ++tighter;
    }
    ++checked;
  }
  EXPECT_GE(checked, 250);
  EXPECT_GE(tighter, 5);
}

}  // namespace
}  // namespace frugal::place
