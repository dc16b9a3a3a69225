#include "frugal/place/path_bound.h"

#include <gtest/gtest.h>

#include <random>

#include "frugal/place/bounds.h"
#include "frugal/place/brute_force.h"
#include "frugal/place/comm_bound.h"

namespace frugal::place {
namespace {

using testing::BruteForceOptimum;

TEST(PathBound, ThreeGroupsThatDoNotFitTogetherCutTheCheapestEdge) {
  // a -> b -> c -> d, 1 ms each; any two of a, b, c fit on a device (cap 9)
  // but not all three, so one of a->b (5 ms) or b->c (2 ms) crosses.
  PlacementProblem p = testing::MakeProblem({1, 1, 1, 1}, {{0, 1, 5}, {1, 2, 2}, {2, 3, 5}}, 2,
                                            9, {4, 4, 4, 1});
  ASSERT_EQ(p.name, "test");
  std::vector<double> zero(4, 0);
  EXPECT_DOUBLE_EQ(PathBoundMs(p, {0, 1, 2, 3}, zero, zero), 6);
  EXPECT_DOUBLE_EQ(MemoryPathBoundMs(p, zero, zero), 6);
  EXPECT_DOUBLE_EQ(ComputeCommBound(p).bound_ms, 4);  // pairs fit: no help there
  EXPECT_DOUBLE_EQ(ComputeLowerBounds(p).best_ms(), 6);
  EXPECT_DOUBLE_EQ(BruteForceOptimum(p), 6);
}

TEST(PathBound, NoCutWhenThePathFits) {
  PlacementProblem p = testing::MakeProblem({1, 2, 3}, {{0, 1, 5}, {1, 2, 5}}, 2, 100);
  std::vector<double> zero(3, 0);
  EXPECT_DOUBLE_EQ(PathBoundMs(p, {0, 1, 2}, zero, zero), 6);
}

TEST(PathBound, NeverAboveTheBruteForceOptimum) {
  int tighter = 0;
  int checked = testing::ForEachTinyProblem(11, 300, [&](const PlacementProblem& p, double opt,
                                                         int trial) {
    LowerBounds lb = ComputeLowerBounds(p);
    EXPECT_LE(lb.memory_path_ms, opt + 1e-9) << "trial " << trial;
    EXPECT_LE(lb.best_ms(), opt + 1e-9) << "trial " << trial;
    if (lb.memory_path_ms > std::max(lb.comm_ms, lb.critical_path_ms) + 1e-6) ++tighter;
  });
  EXPECT_GE(checked, 200);
  EXPECT_GE(tighter, 10);
}

}  // namespace
}  // namespace frugal::place
