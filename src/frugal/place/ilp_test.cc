#include "frugal/place/ilp.h"

#include <gtest/gtest.h>

#include "frugal/place/test_problems.h"

namespace frugal::place {
namespace {

TEST(Ilp, SplitsIndependentWorkAcrossDevices) {
  PlacementProblem p = testing::ForkJoin(4, 2, 0.1, 2);
  auto r = SolvePlacementIlp(p, {.time_limit_s = 10});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->has_solution);
  EXPECT_TRUE(r->optimal);
  // Two branches per device; the sink follows the later pair.
  EXPECT_NEAR(r->makespan_ms, 0.5 + 0.1 + 4 + 0.5, 1e-6);
  EXPECT_NEAR(r->bound_ms, r->makespan_ms, 1e-6);
}

TEST(Ilp, RespectsMemoryAndAcceptsAWarmStart) {
  PlacementProblem p = testing::MakeProblem({1, 1, 1}, {{0, 1, 1}, {1, 2, 1}}, 2, 2, {1, 1, 1});
  Placement start = ScheduleByBottomLevel(p, {0, 0, 1});
  auto r = SolvePlacementIlp(p, {.time_limit_s = 10, .start = &start});
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->has_solution);
  EXPECT_NEAR(r->makespan_ms, 4, 1e-6);  // one transfer is unavoidable
}

}  // namespace
}  // namespace frugal::place
