#include "frugal/place/refine.h"

#include <gtest/gtest.h>

#include "frugal/place/test_problems.h"

namespace frugal::place {
namespace {

TEST(Refine, MovesWorkOffAnOverloadedDevice) {
  PlacementProblem p = testing::ForkJoin(4, 2, 0.1, 2);
  Placement start = ScheduleByBottomLevel(p, std::vector<int>(p.num_ops(), 0));
  RefineResult r = Refine(p, start, {.time_limit_s = 5, .max_evaluations = 500});
  EXPECT_NEAR(Simulate(p, start).makespan_ms, 9, 1e-9);
  EXPECT_NEAR(r.makespan_ms, 5.1, 1e-9);
  EXPECT_GT(r.improvements, 0);
  EXPECT_NEAR(Simulate(p, r.placement).makespan_ms, r.makespan_ms, 1e-9);
}

TEST(Refine, KeepsMemoryFeasibleAndIsDeterministic) {
  PlacementProblem p = testing::TrainingLike(10, 2, 900);
  std::vector<int> dev(p.num_ops());
  for (int i = 0; i < p.num_ops(); ++i) dev[i] = p.group[i] < 5 ? 0 : 1;
  Placement start = ScheduleByBottomLevel(p, dev);
  ASSERT_TRUE(Simulate(p, start).feasible);
  RefineResult a = Refine(p, start, {.time_limit_s = 30, .max_evaluations = 300, .seed = 7});
  RefineResult b = Refine(p, start, {.time_limit_s = 30, .max_evaluations = 300, .seed = 7});
  EXPECT_TRUE(Simulate(p, a.placement).feasible);
  EXPECT_LE(a.makespan_ms, Simulate(p, start).makespan_ms);
  EXPECT_EQ(a.placement.device, b.placement.device);
}

}  // namespace
}  // namespace frugal::place
