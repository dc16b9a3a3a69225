#include "frugal/place/microbatch.h"

#include <gtest/gtest.h>

#include "frugal/place/placer.h"
#include "frugal/place/test_problems.h"

namespace frugal::place {
namespace {

// A 4-layer chain: forward f0..f3, backward b3..b0, one update fed by b0;
// every layer (forward + backward) one colocation class.
PlacementProblem Chain(int k) {
  std::vector<double> times{1, 1, 1, 1, 2, 2, 2, 2, 0.5};
  std::vector<std::vector<double>> edges{{0, 1, 0.1}, {1, 2, 0.1}, {2, 3, 0.1}, {3, 4, 0.1},
                                         {4, 5, 0.1}, {5, 6, 0.1}, {6, 7, 0.1}, {7, 8, 0.1}};
  std::vector<int64_t> mem{10, 10, 10, 10, 0, 0, 0, 0, 4};
  std::vector<int64_t> color{0, 1, 2, 3, 3, 2, 1, 0, 0};
  PlacementProblem p = testing::MakeProblem(times, edges, k, INFINITY, mem, "nvlink", color);
  p.op_phase = {Phase::kForward,  Phase::kForward,  Phase::kForward,  Phase::kForward,
                Phase::kBackward, Phase::kBackward, Phase::kBackward, Phase::kBackward,
                Phase::kOptimizer};
  return p;
}

TEST(ReplicateMicrobatches, CopiesForwardAndBackwardOnceEachAndKeepsUpdatesShared) {
  PlacementProblem one = Chain(2);
  ASSERT_EQ(one.name, "test");
  std::vector<int64_t> shared{4, 4, 4, 4, 0, 0, 0, 0, 4};  // parameters: 4 of each 10
  std::vector<int> source;
  Result<PlacementProblem> p = ReplicateMicrobatches(one, 3, shared, &source);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->num_ops(), 3 * 8 + 1);
  EXPECT_EQ(p->edges.size(), 3u * 8);  // the update's in-edge once per replica
  EXPECT_EQ(p->op_microbatch.back(), -1);
  EXPECT_EQ(p->op_names[8], "op0 [mb 1]");
  EXPECT_EQ(source[8], 0);
  // Parameters once, activations per micro-batch.
  EXPECT_EQ(p->mem_bytes[0], 10);
  EXPECT_EQ(p->mem_bytes[8], 6);
  EXPECT_EQ(p->total_mem_bytes(), 3 * 40 - 2 * 16 + 4);
  // Each layer's replicas stay together: 4 groups.
  EXPECT_EQ(p->num_groups, 4);
  EXPECT_EQ(p->color[0], p->color[8]);
}

TEST(ReplicateMicrobatches, RejectsAbsurdCountsAndMissingPasses) {
  PlacementProblem one = Chain(2);
  std::vector<int64_t> shared(one.num_ops(), 0);
  EXPECT_FALSE(ReplicateMicrobatches(one, 0, shared).ok());
  one.op_phase.clear();
  EXPECT_FALSE(ReplicateMicrobatches(one, 2, shared).ok());
}

TEST(Pipeline, OneFOneBOverMicrobatchesBeatsOneGpu) {
  PlacementProblem one = Chain(2);
  std::vector<int64_t> shared(one.num_ops(), 0);
  Result<PlacementProblem> p = ReplicateMicrobatches(one, 4, shared);
  ASSERT_TRUE(p.ok());
  Result<PlaceOutcome> pipe = RunPlacer("pipeline", *p, {});
  ASSERT_TRUE(pipe.ok());
  ASSERT_EQ(pipe->status, SolveStatus::kOk) << pipe->note;
  EXPECT_NE(pipe->note.find("2 stages, 1F1B"), std::string::npos) << pipe->note;
  SimResult sim = Simulate(*p, pipe->placement);
  ASSERT_TRUE(sim.feasible) << sim.reason;
  // Contiguous stages: layers 0-1 on one GPU, 2-3 on the other.
  EXPECT_EQ(pipe->placement.device[0], pipe->placement.device[1]);
  EXPECT_NE(pipe->placement.device[1], pipe->placement.device[2]);
  Result<PlaceOutcome> single = RunPlacer("single", *p, {});
  ASSERT_TRUE(single.ok());
  EXPECT_LT(sim.makespan_ms, Simulate(*p, single->placement).makespan_ms);
}

TEST(Pipeline, InfeasibleWhenNoContiguousSplitFits) {
  PlacementProblem p = Chain(2);
  p.device_mem_bytes.assign(2, 23);  // layer 0 (14 bytes) fits with no other layer
  ASSERT_TRUE(p.Finalize().ok());
  Result<PlaceOutcome> pipe = RunPlacer("pipeline", p, {});
  ASSERT_TRUE(pipe.ok());
  EXPECT_EQ(pipe->status, SolveStatus::kInfeasible);
}

}  // namespace
}  // namespace frugal::place
