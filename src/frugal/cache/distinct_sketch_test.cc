#include "frugal/cache/distinct_sketch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "frugal/cache/id_index.h"

namespace frugal::cache {
namespace {

double EstimateOf(uint64_t distinct, int repeats, uint64_t offset = 0) {
  DistinctSketch s;
  for (int r = 0; r < repeats; ++r) {
    for (uint64_t id = 0; id < distinct; ++id) s.Add(IdIndex::Hash(id + offset));
  }
  return s.Estimate();
}

TEST(DistinctSketch, EmptyIsZero) { EXPECT_EQ(DistinctSketch().Estimate(), 0); }

TEST(DistinctSketch, RepeatsDoNotCount) {
  EXPECT_EQ(EstimateOf(5000, 1), EstimateOf(5000, 4));
}

TEST(DistinctSketch, WithinAFewPercentFromTensToMillions) {
  for (uint64_t n : {10u, 1000u, 30000u, 100000u, 2000000u}) {
    for (uint64_t offset : {uint64_t{0}, uint64_t{1} << 40}) {
      const double e = EstimateOf(n, 1, offset);
      // Standard error 0.8 %; 3 % is about 4 sigma.
      EXPECT_NEAR(e, static_cast<double>(n), 0.03 * static_cast<double>(n) + 1) << n << " offset " << offset;
    }
  }
}

}  // namespace
}  // namespace frugal::cache
