#include "frugal/place/subproblems.h"

#include <gtest/gtest.h>

#include "frugal/place/test_problems.h"

namespace frugal::place {
namespace {

TEST(Subproblems, MemoryBalancedCutsEveryDevice) {
  // 4 ops of 10 bytes on 2 devices of 100: balanced = 1.2 x 40 / 2 = 24.
  PlacementProblem p = testing::MakeProblem({1, 1, 1, 1}, {{0, 1, 1}, {1, 2, 1}, {2, 3, 1}}, 2,
                                            100, {10, 10, 10, 10});
  Result<PlacementProblem> q = MemoryBalanced(p);
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->num_devices, 2);
  EXPECT_DOUBLE_EQ(q->device_mem_bytes[0], 24);
  EXPECT_DOUBLE_EQ(q->device_mem_bytes[1], 24);
}

TEST(Subproblems, MemoryBalancedFallsBackToFewerDevices) {
  // A 30-byte op fits neither 1.2 x 40 / 4 = 12 nor 1.2 x 40 / 2 = 24
  // bytes: no balanced problem.
  PlacementProblem p = testing::MakeProblem({1, 1}, {{0, 1, 1}}, 4, 100, {30, 10});
  EXPECT_FALSE(MemoryBalanced(p).ok());
  // 4 ops of 10 bytes on 4 devices: 1.2 x 40 / 4 = 12 fits each op.
  PlacementProblem r = testing::MakeProblem({1, 1, 1, 1}, {{0, 1, 1}, {1, 2, 1}, {2, 3, 1}}, 4,
                                            100, {10, 10, 10, 10});
  ASSERT_TRUE(MemoryBalanced(r).ok());
  EXPECT_EQ(MemoryBalanced(r)->num_devices, 4);
  // With colocated pairs of 20 bytes: 12 is too small, 2 devices give 24.
  PlacementProblem s = testing::MakeProblem({1, 1, 1, 1}, {{0, 1, 1}, {1, 2, 1}, {2, 3, 1}}, 4,
                                            100, {10, 10, 10, 10}, "nvlink", {0, 0, 1, 1});
  Result<PlacementProblem> q = MemoryBalanced(s);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->num_devices, 2);
  EXPECT_DOUBLE_EQ(q->device_mem_bytes[0], 24);
}

TEST(Subproblems, NotTighterIsAnError) {
  // 1.2 x 10 / 2 = 6 bytes is above the devices' 5.
  PlacementProblem p = testing::MakeProblem({1, 1}, {{0, 1, 1}}, 2, 5, {5, 5});
  ASSERT_EQ(p.name, "test");
  EXPECT_FALSE(MemoryBalanced(p).ok());
}

TEST(Subproblems, OnDevicesTrimsEmptyOrders) {
  Placement pl{{0, 1}, {{0}, {1}, {}, {}}};
  std::optional<Placement> two = OnDevices(pl, 2);
  ASSERT_TRUE(two.has_value());
  EXPECT_EQ(two->order.size(), 2u);
  EXPECT_FALSE(OnDevices(pl, 1).has_value());
}

}  // namespace
}  // namespace frugal::place
