#include "frugal/share/placement/scarce_slots.h"

#include <gtest/gtest.h>

#include <cmath>

#include "frugal/share/cluster_test_util.h"
#include "frugal/share/placement/policies.h"

namespace frugal::share {
namespace {

using testing::Node;

const PodShape kWide{120000, 1000, 8, 0};  // 8 GPUs and 120 CPUs
const PodShape kOne{8000, 1000, 1, 0};

TEST(HostSlots, CountsWhatTheNodeCouldStillTake) {
  EXPECT_EQ(HostSlots(Node(128000, {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}), kWide), 1);
  EXPECT_EQ(HostSlots(Node(128000, {1000, 1000, 1000, 1000, 1000, 1000, 1000, 900}), kWide), 0);
  EXPECT_EQ(HostSlots(Node(96000, {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}), kWide), 0) << "CPU";
  EXPECT_EQ(HostSlots(Node(64000, {1000, 1000, 1000, 500}), kOne), 3);
  EXPECT_EQ(HostSlots(Node(16000, {1000, 1000, 1000}), kOne), 2) << "CPU";
  EXPECT_EQ(HostSlots(Node(64000, {1000, 700, 500}), PodShape{4000, 500, 1, 0}), 4);
  EXPECT_EQ(HostSlots(Node(64000, {1000, 1000, 1000, 1000}), PodShape{4000, 1000, 2, 0}), 2);
  // A GPU model the pod refuses (the test nodes are model 1), and CPU pods.
  EXPECT_EQ(HostSlots(Node(64000, {1000}), PodShape{4000, 1000, 1, ModelMask{1} << 2}), 0);
  EXPECT_EQ(HostSlots(Node(64000, {1000}), PodShape{4000, 0, 0, 0}), 0);
}

TEST(PoissonTailAtLeast, MatchesTheClosedForm) {
  EXPECT_EQ(PoissonTailAtLeast(2.0, 0), 1.0);
  EXPECT_NEAR(PoissonTailAtLeast(2.0, 1), 1 - std::exp(-2.0), 1e-12);
  EXPECT_NEAR(PoissonTailAtLeast(2.0, 3), 1 - std::exp(-2.0) * (1 + 2 + 2), 1e-12);
  EXPECT_EQ(PoissonTailAtLeast(0.0, 1), 0.0);
  EXPECT_EQ(PoissonTailAtLeast(3.0, 1000000), 0.0);
  // Past exp(-745) (exp(-mean) alone would underflow); the references are
  // the sums of the terms in double precision.
  EXPECT_NEAR(PoissonTailAtLeast(1000.0, 1000), 0.5042052441800837, 1e-9);
  EXPECT_NEAR(PoissonTailAtLeast(1000.0, 1100), 0.0009626304058662804, 1e-12);
  EXPECT_NEAR(PoissonTailAtLeast(1000.0, 900), 0.9993774022154737, 1e-9);
  EXPECT_NEAR(PoissonTailAtLeast(9.0, 12), 0.19699161747065835, 1e-12);
}

// One node that can take the wide shape and two that cannot; 10 pods still
// to come (17,000 GPU-milli at 1,700 per pod), one in ten wide.
struct Cluster {
  std::vector<TypicalPod> trace = {{kWide, 0.1}, {kOne, 0.9}};
  std::vector<NodeState> nodes = {Node(128000, {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}),
                                  Node(16000, {1000, 1000}), Node(16000, {1000, 1000})};
  double remaining = 17000;
};

TEST(ScarceSlots, PricesASlotByTheChanceItIsNeeded) {
  Cluster c;
  ScarceSlots s;
  EXPECT_TRUE(s.Update(c.trace, c.nodes, c.remaining));
  EXPECT_FALSE(s.Update(c.trace, c.nodes, c.remaining)) << "unchanged";
  ASSERT_EQ(s.prices().size(), 2u);
  // Wide: 1 slot, 1 pod expected; one-GPU: 8 + 2 + 2 slots, 9 expected.
  const double wide = (1 - std::exp(-1.0)) * 8000;
  const double one = PoissonTailAtLeast(9.0, 12) * 1000;
  EXPECT_NEAR(s.prices()[0].milli_per_slot, wide, 1e-6);
  EXPECT_NEAR(s.prices()[1].milli_per_slot, one, 1e-6);
  // A one-GPU pod on the big node takes the only wide slot; on a small node
  // nothing scarce. A wide pod takes 8 one-GPU slots, never its own.
  EXPECT_NEAR(s.Loss(c.nodes[0], kOne, 0b1), wide, 1e-6);
  EXPECT_EQ(s.Loss(c.nodes[1], kOne, 0b1), 0.0);
  EXPECT_NEAR(s.Loss(c.nodes[0], kWide, 0xff), 8 * one, 1e-6);
  // Unknown horizon: 30 % of the 12 GPUs ahead.
  EXPECT_TRUE(s.Update(c.trace, c.nodes, 0));
  EXPECT_NEAR(s.prices()[0].milli_per_slot, (1 - std::exp(-0.3 * 12000 / 1700 * 0.1)) * 8000, 1e-6);
  // Plenty of wide slots: no price.
  c.nodes.push_back(c.nodes[0]);
  c.nodes.push_back(c.nodes[0]);
  c.nodes.push_back(c.nodes[0]);
  EXPECT_TRUE(s.Update(c.trace, c.nodes, 1700));
  for (const auto& p : s.prices()) EXPECT_NE(p.shape, kWide);
}

// FGD's descent ties the big and a small node for a one-GPU pod; with the
// reservation the big node loses (gshare_reserve.cc).
TEST(ScarceSlots, SteersFgdsDescentOffTheLastWideNode) {
  Cluster c;
  std::vector<TypicalPod> typical = {{PodShape{4000, 500, 1, 0}, 0.6}, {kOne, 0.3}, {PodShape{2000, 0, 0, 0}, 0.1}};
  FragMemo memo(&typical);
  ScoreContext ctx{&memo, &memo, nullptr, nullptr, &c.trace};
  ctx.remaining_milli = c.remaining;
  auto fgd = NewFgdPolicy();
  EXPECT_EQ(fgd->Score(ctx, c.nodes[0], kOne).score, fgd->Score(ctx, c.nodes[1], kOne).score);
  auto reserve = NewGshareReservePolicy();
  EXPECT_TRUE(reserve->Observe(ctx, c.nodes));
  EXPECT_EQ(reserve->Score(ctx, c.nodes[1], kOne).score, fgd->Score(ctx, c.nodes[1], kOne).score);
  EXPECT_LT(reserve->Score(ctx, c.nodes[0], kOne).score, fgd->Score(ctx, c.nodes[0], kOne).score);
  // No trace: nothing to price, FGD's scores.
  ScoreContext bare{&memo, &memo, nullptr, nullptr, nullptr};
  auto plain = NewGshareReservePolicy();
  EXPECT_FALSE(plain->Observe(bare, c.nodes));
  EXPECT_EQ(plain->Score(bare, c.nodes[0], kOne).score, fgd->Score(bare, c.nodes[0], kOne).score);
}

}  // namespace
}  // namespace frugal::share
