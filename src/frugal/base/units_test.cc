#include "frugal/base/units.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

TEST(Units, FormatsHumanReadable) {
  EXPECT_EQ(HumanBytes(512), "512 B");
  EXPECT_EQ(HumanBytes(1.5 * kGiB), "1.50 GiB");
  EXPECT_EQ(HumanFlops(8.21e9), "8.21 GFLOP");
  EXPECT_EQ(HumanCount(25557032), "25.56 M");
}

}  // namespace
}  // namespace frugal
