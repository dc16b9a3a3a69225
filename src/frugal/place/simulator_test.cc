#include "frugal/place/simulator.h"

#include <gtest/gtest.h>

#include <random>

#include "frugal/place/brute_force.h"
#include "frugal/place/test_problems.h"

namespace frugal::place {
namespace {

using testing::ForkJoin;
using testing::MakeProblem;

TEST(Simulator, ChainOnOneDeviceTakesTheSumOfTimes) {
  PlacementProblem p = MakeProblem({1, 2, 3}, {{0, 1, 5}, {1, 2, 5}}, 2);
  SimResult r = Simulate(p, {{0, 0, 0}, {{0, 1, 2}, {}}}, {.keep_timeline = true});
  ASSERT_TRUE(r.feasible) << r.reason;
  EXPECT_DOUBLE_EQ(r.makespan_ms, 6);
  EXPECT_DOUBLE_EQ(r.device_busy_ms[0], 6);
  EXPECT_DOUBLE_EQ(r.device_busy_ms[1], 0);
  EXPECT_EQ(r.device_peak_mem_bytes[0], 3);
  EXPECT_DOUBLE_EQ(r.ops[2].start_ms, 3);
}

TEST(Simulator, TransferDelaysTheConsumerOnAnotherDevice) {
  PlacementProblem p = MakeProblem({1, 2}, {{0, 1, 5}}, 2);
  SimResult r = Simulate(p, {{0, 1}, {{0}, {1}}}, {.keep_timeline = true});
  ASSERT_TRUE(r.feasible);
  EXPECT_DOUBLE_EQ(r.makespan_ms, 8);
  ASSERT_EQ(r.transfers.size(), 1u);
  EXPECT_DOUBLE_EQ(r.transfers[0].start_ms, 1);
  EXPECT_DOUBLE_EQ(r.link_busy_ms[p.topology.Route(0, 1)[0]], 5);
}

TEST(Simulator, OneTransferPerConsumingDevice) {
  // op 0 feeds ops 1 and 2, both on device 1: one transfer (the slower edge).
  PlacementProblem p = MakeProblem({1, 1, 1, 0}, {{0, 1, 2}, {0, 2, 3}, {1, 3, 0}, {2, 3, 0}}, 2);
  SimResult r = Simulate(p, {{0, 1, 1, 1}, {{0}, {1, 2, 3}}}, {.keep_timeline = true});
  ASSERT_TRUE(r.feasible);
  EXPECT_EQ(r.transfers.size(), 1u);
  EXPECT_DOUBLE_EQ(r.makespan_ms, 1 + 3 + 2);
}

TEST(Simulator, PcieTransfersContendNvlinkOnesDoNot) {
  // Two sources on device 0 and 1 each send to the other device.
  auto run = [](const std::string& topo) {
    PlacementProblem p = MakeProblem({1, 1, 1, 1, 0}, {{0, 3, 4}, {1, 2, 4}, {2, 4, 0}, {3, 4, 0}}, 2,
                                     INFINITY, {}, topo);
    // 0 on d0 -> 3 on d1; 1 on d1 -> 2 on d0.
    return Simulate(p, {{0, 1, 0, 1, 0}, {{0, 2, 4}, {1, 3}}});
  };
  SimResult nv = run("nvlink"), pc = run("pcie");
  ASSERT_TRUE(nv.feasible) << nv.reason;
  ASSERT_TRUE(pc.feasible) << pc.reason;
  EXPECT_LT(nv.makespan_ms, pc.makespan_ms);
}

TEST(Simulator, RejectsInfeasibleInputsWithAReason) {
  PlacementProblem p = MakeProblem({1, 1}, {{0, 1, 1}}, 2, 1.5, {1, 1});
  EXPECT_NE(Simulate(p, {{0, 0}, {{0, 1}, {}}}).reason.find("device 0 needs"), std::string::npos);
  EXPECT_NE(Simulate(p, {{0, 1}, {{0}, {}}}).reason.find("missing"), std::string::npos);
  EXPECT_NE(Simulate(p, {{0, 1}, {{0}, {0}}}).reason.find("placed on"), std::string::npos);
  EXPECT_NE(Simulate(p, {{0, 2}, {{0}, {1}}}).reason.find("not in"), std::string::npos);
  PlacementProblem q = MakeProblem({1, 1}, {{0, 1, 1}}, 1);
  EXPECT_NE(Simulate(q, {{0, 0}, {{1, 0}}}).reason.find("contradicts"), std::string::npos);
  PlacementProblem c = MakeProblem({1, 1}, {{0, 1, 1}}, 2, INFINITY, {}, "nvlink", {7, 7});
  EXPECT_NE(Simulate(c, {{0, 1}, {{0}, {1}}}).reason.find("colocated"), std::string::npos);
}

TEST(Simulator, ListScheduleIsReproducedBySimulate) {
  PlacementProblem p = ForkJoin(6, 2, 0.3, 3);
  std::vector<int> dev{0, 0, 1, 2, 0, 1, 2, 0};
  double ms = -1;
  Placement pl = ScheduleByBottomLevel(p, dev, &ms);
  SimResult r = Simulate(p, pl);
  ASSERT_TRUE(r.feasible) << r.reason;
  EXPECT_NEAR(r.makespan_ms, 0.5 + 0.3 + 4 + 0.3 + 0.5, 1e-9);
  EXPECT_DOUBLE_EQ(ms, r.makespan_ms);  // refine.cc relies on it
}

TEST(Simulator, ListScheduleMakespanIsTheSimulatorsOnRandomGraphs) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    int k = 2 + trial % 3;
    PlacementProblem p = testing::RandomProblem(rng, 4 + trial % 8, k, trial % 2 == 0);
    if (p.name != "test") continue;
    std::vector<int> gdev(p.num_groups), dev(p.num_ops());
    for (int& d : gdev) d = static_cast<int>(rng() % k);
    for (int i = 0; i < p.num_ops(); ++i) dev[i] = gdev[p.group[i]];
    double ms = -1;
    Placement pl = ScheduleByBottomLevel(p, dev, &ms);
    SimResult r = Simulate(p, pl, {.check_memory = false});
    ASSERT_TRUE(r.feasible) << r.reason;
    EXPECT_DOUBLE_EQ(ms, r.makespan_ms) << "trial " << trial;
  }
}

}  // namespace
}  // namespace frugal::place
