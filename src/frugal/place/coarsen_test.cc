#include "frugal/place/coarsen.h"

#include <gtest/gtest.h>

#include "frugal/place/test_problems.h"

namespace frugal::place {
namespace {

TEST(Coarsen, ReachesTheTargetAndKeepsTotals) {
  PlacementProblem p = testing::TrainingLike(20, 2);
  auto c = Coarsen(p, {.target_nodes = 12, .max_group_mem_bytes = 1e9});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_LE(c->coarse.num_ops(), 12);
  EXPECT_NEAR(c->coarse.total_time_ms(), p.total_time_ms(), 1e-9);
  EXPECT_EQ(c->coarse.total_mem_bytes(), p.total_mem_bytes());
  // Colocated fine ops stay colocated.
  std::vector<int> cdev(c->coarse.num_ops());
  for (int i = 0; i < c->coarse.num_ops(); ++i) cdev[i] = c->coarse.group[i] % 2;
  std::vector<int> fine = ExpandDevices(*c, cdev);
  for (int i = 0; i < p.num_ops(); ++i) {
    for (int j : p.group_ops[p.group[i]]) EXPECT_EQ(fine[i], fine[j]);
  }
  EXPECT_EQ(ProjectDevices(p, *c, fine), cdev);
}

TEST(Coarsen, RespectsTheComputeLimit) {
  PlacementProblem p = testing::MakeProblem({1, 1, 1, 1}, {{0, 1, 1}, {1, 2, 1}, {2, 3, 1}}, 2);
  auto c = Coarsen(p, {.target_nodes = 1, .max_node_time_ms = 2, .max_group_mem_bytes = 1e9});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->coarse.num_ops(), 2);
}

}  // namespace
}  // namespace frugal::place
