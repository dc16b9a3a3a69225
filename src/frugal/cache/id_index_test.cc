#include "frugal/cache/id_index.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace frugal::cache {
namespace {

// Inserts ids 7k for k < n, then finds each again; checks dense indices.
void FillAndFind(IdIndex& ids, uint32_t n) {
  for (uint32_t k = 0; k < n; ++k) {
    bool inserted = false;
    EXPECT_EQ(ids.FindOrInsert(uint64_t{7} * k, k, &inserted), k);
    EXPECT_TRUE(inserted);
  }
  for (uint32_t k = 0; k < n; ++k) {
    bool inserted = true;
    ASSERT_EQ(ids.FindOrInsert(uint64_t{7} * k, n + 5, &inserted), k) << k;
    EXPECT_FALSE(inserted);
  }
  EXPECT_EQ(ids.size(), n);
}

TEST(IdIndex, SizedFromAnEstimateFillsToFourFifths) {
  IdIndex ids = IdIndex::ForDistinct(100000);
  EXPECT_EQ(ids.slots(), 125000u);
  FillAndFind(ids, 100000);
  EXPECT_EQ(ids.slots(), 125000u);  // did not grow
}

TEST(IdIndex, AnEstimateTooLowGrowsTheTable) {
  IdIndex ids = IdIndex::ForDistinct(1000);
  FillAndFind(ids, 50000);
  EXPECT_GE(ids.slots() * 7, 50000u * 8);
}

TEST(IdIndex, PowerOfTwoSizingStillWorks) {
  IdIndex ids(100);
  FillAndFind(ids, 20000);
  EXPECT_EQ(ids.slots() & (ids.slots() - 1), 0u);
}

TEST(IdIndex, KeepsAPayloadPerId) {
  IdIndex ids = IdIndex::ForDistinct(10);
  bool inserted = false;
  uint32_t* payload = nullptr;
  ids.FindOrInsert(42, IdIndex::Hash(42), 0, &inserted, &payload);
  *payload = 99;
  for (uint32_t k = 1; k < 100; ++k) ids.FindOrInsert(k * 1000, k, &inserted);  // grows
  ids.FindOrInsert(42, IdIndex::Hash(42), 100, &inserted, &payload);
  EXPECT_FALSE(inserted);
  EXPECT_EQ(*payload, 99u);
}

}  // namespace
}  // namespace frugal::cache
