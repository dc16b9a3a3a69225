#include "frugal/place/bounds.h"

#include <gtest/gtest.h>

#include "frugal/place/test_problems.h"

namespace frugal::place {
namespace {

TEST(Bounds, CriticalPathAndWorkPerDevice) {
  PlacementProblem p = testing::ForkJoin(4, 2, 10, 2);
  LowerBounds b = ComputeLowerBounds(p);
  EXPECT_DOUBLE_EQ(b.critical_path_ms, 3);
  EXPECT_DOUBLE_EQ(b.work_per_device_ms, 4.5);
  EXPECT_DOUBLE_EQ(b.comm_ms, 9);  // comm_bound_test.cc
  EXPECT_DOUBLE_EQ(b.best_ms(), 9);
  b.mip_ms = 10;
  EXPECT_DOUBLE_EQ(b.best_ms(), 10);
}

}  // namespace
}  // namespace frugal::place
