#include "frugal/share/frag.h"
#include "frugal/share/cluster_test_util.h"

#include <gtest/gtest.h>

namespace frugal::share {
namespace {

PodSpec Pod(int64_t cpu, int num, int milli) {
  PodSpec p;
  p.name = "p";
  p.cpu_milli = cpu;
  p.num_gpu = num;
  p.gpu_milli = milli;
  return p;
}

using testing::Node;

TEST(TypicalPods, MostPopularUntilThresholdThenRenormalised) {
  std::vector<PodSpec> pods;
  for (int i = 0; i < 6; ++i) pods.push_back(Pod(1000, 1, 500));
  for (int i = 0; i < 3; ++i) pods.push_back(Pod(2000, 1, 1000));
  pods.push_back(Pod(8000, 8, 1000));
  auto t = BuildTypicalPods(pods, {0.85, true});
  ASSERT_EQ(t.size(), 2u) << "6 + 3 of 10 pods cover 85 %";
  EXPECT_EQ(t[0].shape.gpu_milli, 500);
  EXPECT_NEAR(t[0].weight, 6.0 / 9, 1e-12);
  EXPECT_NEAR(t[1].weight, 3.0 / 9, 1e-12);
  auto all = BuildTypicalPods(pods, {1.0, true});
  EXPECT_EQ(all.size(), 3u);
}

TEST(TypicalPods, EqualCountsPutTheLargerShapeFirst) {
  std::vector<PodSpec> pods = {Pod(1000, 1, 500), Pod(3000, 1, 500)};
  auto t = BuildTypicalPods(pods, {1.0, true});
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].shape.cpu_milli, 3000);
}

TEST(TypicalPods, BlendKeepsRareShapesInView) {
  std::vector<PodSpec> pods;
  for (int i = 0; i < 99; ++i) pods.push_back(Pod(1000, 1, 500));
  pods.push_back(Pod(8000, 8, 1000));
  auto popular = BuildTypicalPods(pods, {0.95, true});
  ASSERT_EQ(popular.size(), 1u);
  auto blend = BlendTypicalPods(pods, {0.95, true});
  ASSERT_EQ(blend.size(), 2u);
  EXPECT_NEAR(blend[0].weight, 0.5 * 0.99 + 0.5, 1e-12);
  EXPECT_NEAR(blend[1].weight, 0.5 * 0.01, 1e-12);
}

TEST(NodeFrag, CountsFreeMilliThePodCannotUse) {
  const NodeState n = Node(16000, {1000, 300, 0});
  EXPECT_EQ(NodeFragMilliFor(n, PodShape{1000, 500, 1, 0}), 300) << "the 300 GPU is too small";
  EXPECT_EQ(NodeFragMilliFor(n, PodShape{1000, 200, 1, 0}), 0);
  EXPECT_EQ(NodeFragMilliFor(n, PodShape{1000, 1000, 2, 0}), 1300) << "two whole GPUs: none fit";
  EXPECT_EQ(NodeFragMilliFor(n, PodShape{32000, 200, 1, 0}), 1300) << "too little CPU";
  EXPECT_EQ(NodeFragMilliFor(n, PodShape{1000, 0, 0, 0}), 1300) << "a CPU pod uses no GPU";
  EXPECT_EQ(NodeFragMilliFor(n, PodShape{1000, 200, 1, ModelMask{1} << 3}), 1300) << "wrong model";
  EXPECT_EQ(NodeFragMilliFor(Node(0, {0, 0}), PodShape{1000, 200, 1, 0}), 0);
}

TEST(FragMemo, MatchesTheDirectSumAndIgnoresGpuOrder) {
  std::vector<TypicalPod> typical = {{PodShape{1000, 500, 1, 0}, 0.5},
                                     {PodShape{2000, 1000, 1, 0}, 0.3},
                                     {PodShape{500, 0, 0, 0}, 0.2}};
  FragMemo memo(&typical);
  const NodeState a = Node(8000, {1000, 300, 700});
  const NodeState b = Node(8000, {700, 1000, 300});
  EXPECT_DOUBLE_EQ(memo.Frag(a), NodeFragMilli(a, typical));
  EXPECT_DOUBLE_EQ(memo.Frag(b), memo.Frag(a));
  EXPECT_EQ(memo.size(), 1u);
  // 0.5 × 300 + 0.3 × (300 + 700) + 0.2 × 2000.
  EXPECT_DOUBLE_EQ(memo.Frag(a), 150 + 300 + 400);
  const double after = memo.FragAfter(a, PodShape{1000, 300, 1, 0}, GpuSet{0b010});
  NodeState placed = a;
  placed.cpu_left -= 1000;
  placed.gpu_left[1] = 0;
  EXPECT_DOUBLE_EQ(after, NodeFragMilli(placed, typical));
}

}  // namespace
}  // namespace frugal::share
