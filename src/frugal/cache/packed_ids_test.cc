#include "frugal/cache/packed_ids.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace frugal::cache {
namespace {

TEST(PackedIds, NarrowHolds24BitIdsInThreeBytes) {
  PackedIds ids(1000, true);
  EXPECT_EQ(ids.width(), 3u);
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids.Get(i), 0u);
  for (size_t i = 0; i < ids.size(); ++i) ids.Set(i, static_cast<uint32_t>(i * 16777u) & 0xFFFFFFu);
  ids.Set(999, 0xFFFFFFu);
  for (size_t i = 0; i < 999; ++i) EXPECT_EQ(ids.Get(i), static_cast<uint32_t>(i * 16777u) & 0xFFFFFFu) << i;
  EXPECT_EQ(ids.Get(999), 0xFFFFFFu);
  EXPECT_EQ(ids.width(), 3u);
}

TEST(PackedIds, AnIdOver24BitsWidensAndKeepsTheRest) {
  PackedIds ids(10, true);
  for (uint32_t i = 0; i < 5; ++i) ids.Set(i, 0xABCDEFu - i);
  ids.Set(5, 0x1000000u);
  EXPECT_EQ(ids.width(), 4u);
  for (uint32_t i = 0; i < 5; ++i) EXPECT_EQ(ids.Get(i), 0xABCDEFu - i);
  EXPECT_EQ(ids.Get(5), 0x1000000u);
  ids.Set(9, 0xFFFFFFFEu);
  EXPECT_EQ(ids.Get(9), 0xFFFFFFFEu);
  EXPECT_EQ(ids.Get(8), 0u);
}

TEST(PackedIds, WideFromTheStart) {
  PackedIds ids(3, false);
  EXPECT_EQ(ids.width(), 4u);
  ids.Set(2, 0xFFFFFFFFu);
  EXPECT_EQ(ids.Get(2), 0xFFFFFFFFu);
  EXPECT_EQ(ids.Get(1), 0u);
}

}  // namespace
}  // namespace frugal::cache
