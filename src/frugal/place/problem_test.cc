#include "frugal/place/problem.h"

#include <gtest/gtest.h>

#include "frugal/graph/importer.h"
#include "frugal/graph/test_graphs.h"
#include "frugal/graph/training.h"
#include "frugal/place/test_problems.h"

namespace frugal::place {
namespace {

using testing::MakeProblem;

TEST(Problem, RepairGroupMemoryMovesTheSmallestGroupsThatHoldMemory) {
  // A chain of ops of 4, 1, 0 and 3 bytes, all on device 0 of two 5-byte
  // devices: op 2 holds nothing and stays; ops 1 and 3 move.
  PlacementProblem p = testing::MakeProblem({1, 1, 1, 1}, {{0, 1, 1}, {1, 2, 1}, {2, 3, 1}},
                                            2, 5, {4, 1, 0, 3});
  ASSERT_EQ(p.name, "test");
  std::vector<int> part(p.num_groups, 0);
  ASSERT_TRUE(RepairGroupMemory(p, &part));
  std::vector<int> device(4);
  for (int i = 0; i < 4; ++i) device[i] = part[p.group[i]];
  EXPECT_EQ(device, (std::vector<int>{0, 1, 0, 1}));
  // A 6-byte op fits no 5-byte device.
  PlacementProblem q = testing::MakeProblem({1, 1}, {{0, 1, 1}}, 2, 5, {6, 1});
  std::vector<int> none(q.num_groups, 0);
  EXPECT_FALSE(RepairGroupMemory(q, &none));
}

TEST(Problem, AGroupTooLargeForAnyGpuNamesItsModule) {
  // Three ops of block h.0 in one group (10 bytes each) on GPUs of 25.
  PlacementProblem p = testing::MakeProblem({1, 1, 1, 1}, {{0, 1, 0}, {1, 2, 0}, {2, 3, 0}}, 2,
                                            25, {10, 10, 10, 1}, "nvlink", {0, 0, 0, -1});
  p.op_modules = {"h.0.attn.q", "h.0.attn.k", "h.0.mlp", "lm_head"};
  Status st = p.Finalize();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("module 'h.0' (op 0"), std::string::npos) << st.message();
  p.op_modules = {"wte", "lm_head", "lm_head", ""};  // tied: no common module
  st = p.Finalize();
  EXPECT_NE(st.message().find("modules 'wte', 'lm_head' (op 0"), std::string::npos)
      << st.message();
}

TEST(Problem, BuildsFromProfiledGraph) {
  auto g = ImportGraph("testdata/place/diamond.json");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ProblemOptions o;
  o.num_devices = 2;
  auto p = BuildProblem(*g, o);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->num_ops(), 4);
  EXPECT_EQ(p->topology.name, "nvlink");
  EXPECT_GT(p->device_mem_bytes[0], 0);
}

TEST(Problem, OpMemoryIsTheStepMemoryPredictUses) {
  // Same graph, batch and mode: the ops' memory sums to EstimateStepMemory's
  // total (inference: the liveness peak, not every activation).
  OpGraph f = frugal::testing::TinyConvNet(4);
  auto train = BuildTrainingGraph(f);
  ASSERT_TRUE(train.ok());
  for (const OpGraph* g : {&f, &*train}) {
    ProblemOptions o;
    o.num_devices = 2;
    o.op_time_ms = [](const Op&) { return 1.0; };
    auto p = BuildProblem(*g, o);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->total_mem_bytes(), EstimateStepMemory(*g).total_bytes);
  }
  EXPECT_EQ(EstimateStepMemory(f).total_bytes, EstimateMemory(f).inference_bytes);
  EXPECT_EQ(EstimateStepMemory(*train).total_bytes, EstimateMemory(f).training_bytes);
}

TEST(Problem, RejectsBadInputs) {
  EXPECT_EQ(MakeProblem({1, 1}, {{0, 1, 0}}, 1).name, "test");
  EXPECT_NE(MakeProblem({1, 1}, {{0, 1, 0}, {1, 0, 0}}, 1).name.find("cycle"), std::string::npos);
  EXPECT_NE(MakeProblem({1, 1, 1}, {{0, 1, 0}}, 1).name.find("disconnected"), std::string::npos);
  EXPECT_NE(MakeProblem({-1, 1}, {{0, 1, 0}}, 1).name.find("negative"), std::string::npos);
  EXPECT_NE(MakeProblem({1, 1}, {{0, 1, 0}}, 2, 5, {10, 1}).name.find("memory too small"),
            std::string::npos);
  EXPECT_NE(MakeProblem({1, 1}, {{0, 1, 0}}, 2, 5, {4, 4}, "nvlink", {1, 1})
                .name.find("memory too small"),
            std::string::npos);
}

TEST(Problem, NeedsTimesForUnprofiledOps) {
  OpGraph g;
  Op a;
  a.name = "a";
  g.AddOp(a);
  ProblemOptions o;
  EXPECT_FALSE(BuildProblem(g, o).ok());
  o.op_time_ms = [](const Op&) { return 2.0; };
  auto p = BuildProblem(g, o);
  ASSERT_TRUE(p.ok());
  EXPECT_DOUBLE_EQ(p->time_ms[0], 2.0);
  o.num_devices = 0;
  EXPECT_FALSE(BuildProblem(g, o).ok());
}

}  // namespace
}  // namespace frugal::place
