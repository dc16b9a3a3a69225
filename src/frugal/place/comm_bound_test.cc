#include "frugal/place/comm_bound.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "frugal/place/bounds.h"
#include "frugal/place/brute_force.h"

namespace frugal::place {
namespace {

using testing::BruteForceOptimum;

TEST(CommBound, NeverAboveTheBruteForceOptimum) {
  int tighter = 0;
  int checked = testing::ForEachTinyProblem(7, 400, [&](const PlacementProblem& p, double opt,
                                                        int trial) {
    LowerBounds lb = ComputeLowerBounds(p);
    EXPECT_LE(lb.best_ms(), opt + 1e-9) << "trial " << trial;
    EXPECT_GE(lb.comm_ms, lb.critical_path_ms - 1e-9);
    if (lb.comm_ms > std::max(lb.critical_path_ms, lb.work_per_device_ms) + 1e-6) ++tighter;
  });
  EXPECT_GE(checked, 300);
  EXPECT_GE(tighter, 100);  // the bound earns its keep on random graphs
}

TEST(CommBound, ForkJoinWithDearTransfersStaysLocal) {
  // Transfers cost 10 ms, branches 2 ms: the optimum keeps everything on one
  // device (0.5 + 4 x 2 + 0.5 = 9); the critical path is 3, work/K 4.5.
  PlacementProblem p = testing::ForkJoin(4, 2, 10, 2);
  LowerBounds lb = ComputeLowerBounds(p);
  EXPECT_DOUBLE_EQ(lb.critical_path_ms, 3);
  EXPECT_DOUBLE_EQ(lb.comm_ms, 9);
  EXPECT_DOUBLE_EQ(BruteForceOptimum(p), 9);
}

TEST(CommBound, CheapTransfersFallBackToTheCriticalPath) {
  PlacementProblem p = testing::ForkJoin(4, 2, 0.1, 4);
  CommBound b = ComputeCommBound(p);
  EXPECT_NEAR(b.bound_ms, 3.1, 1e-9);  // the optimum is 3.2
  EXPECT_NEAR(BruteForceOptimum(p), 3.2, 1e-9);
}

TEST(CommBound, MemoryForcesTransfers) {
  // a -> b -> c, where b's memory cannot share a device with a's or c's:
  // both edges cross, 1 + 5 + 1 + 5 + 1 = 13.
  PlacementProblem p =
      testing::MakeProblem({1, 1, 1}, {{0, 1, 5}, {1, 2, 5}}, 2, 10, {4, 7, 4});
  ASSERT_EQ(p.name, "test");
  CommBound b = ComputeCommBound(p);
  EXPECT_DOUBLE_EQ(b.bound_ms, 13);
  EXPECT_DOUBLE_EQ(b.head_ms[2], 12);
  EXPECT_DOUBLE_EQ(b.tail_ms[0], 12);
  EXPECT_DOUBLE_EQ(BruteForceOptimum(p), 13);
  EXPECT_DOUBLE_EQ(CriticalPathMs(p), 3);
}

TEST(CommBound, ColocatedOpsSerialize) {
  // Two independent 2 ms ops in one colocation group under a 0.5 ms source
  // and over a 0.5 ms sink, transfers 10 ms: 0.5 + 2 + 2 + 0.5.
  PlacementProblem p = testing::MakeProblem({0.5, 2, 2, 0.5},
                                            {{0, 1, 10}, {0, 2, 10}, {1, 3, 10}, {2, 3, 10}},
                                            2, INFINITY, {}, "nvlink", {-1, 5, 5, -1});
  EXPECT_DOUBLE_EQ(ComputeCommBound(p).bound_ms, 5);
}

}  // namespace
}  // namespace frugal::place
