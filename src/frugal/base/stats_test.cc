#include "frugal/base/stats.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

TEST(Stats, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median({4, 1, 2, 3}), 2.5);
}

}  // namespace
}  // namespace frugal
