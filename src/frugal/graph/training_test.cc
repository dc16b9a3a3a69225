#include "frugal/graph/training.h"

#include <gtest/gtest.h>

#include "frugal/graph/importer.h"
#include "frugal/graph/test_graphs.h"

namespace frugal {
namespace {

int FindOpIndex(const OpGraph& g, const std::string& name) {
  for (int i = 0; i < g.num_ops(); ++i) {
    if (g.ops[i].name == name) return i;
  }
  return -1;
}

bool HasEdge(const OpGraph& g, const std::string& a, const std::string& b) {
  int s = FindOpIndex(g, a), d = FindOpIndex(g, b);
  for (const Edge& e : g.edges) {
    if (e.src == s && e.dst == d) return true;
  }
  return false;
}

TEST(TrainingGraph, BackwardOpsFollowAutograd) {
  OpGraph f = testing::TinyConvNet(2);
  auto r = BuildTrainingGraph(f);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const OpGraph& g = *r;
  ASSERT_TRUE(g.Validate().ok()) << g.Validate().ToString();
  // The input image needs no gradient: conv gets only a weight gradient.
  EXPECT_EQ(FindOpIndex(g, "conv.grad_data"), -1);
  ASSERT_GE(FindOpIndex(g, "conv.grad_weight"), 0);
  ASSERT_GE(FindOpIndex(g, "fc.grad_data"), 0);
  ASSERT_GE(FindOpIndex(g, "fc.grad_weight"), 0);
  ASSERT_GE(FindOpIndex(g, "relu.grad"), 0);
  EXPECT_EQ(g.num_ops(), 5 + 6 + 2);
  EXPECT_EQ(g.ops[FindOpIndex(g, "fc.grad_weight")].grad, GradRole::kWeight);
  EXPECT_EQ(g.ops[FindOpIndex(g, "fc.update")].phase, Phase::kOptimizer);
  EXPECT_EQ(g.ops[FindOpIndex(g, "fc.update")].kind, OpKind::kAdam);
}

TEST(TrainingGraph, GradientsOfProductsCostTheForwardProduct) {
  OpGraph f = testing::TinyConvNet(2);
  OpGraph g = *BuildTrainingGraph(f);
  const double fc_product = 2.0 * 2 * 10 * 256;
  EXPECT_DOUBLE_EQ(g.ops[FindOpIndex(g, "fc.grad_data")].flops, fc_product);
  EXPECT_DOUBLE_EQ(g.ops[FindOpIndex(g, "fc.grad_weight")].flops, f.ops[3].flops);
  EXPECT_DOUBLE_EQ(g.ops[FindOpIndex(g, "conv.grad_weight")].flops, f.ops[0].flops);
  // Relu backward: one masked select per element.
  EXPECT_DOUBLE_EQ(g.ops[FindOpIndex(g, "relu.grad")].flops, 2 * 4 * 64);
}

TEST(TrainingGraph, EdgesCarryGradientsBackwards) {
  OpGraph g = *BuildTrainingGraph(testing::TinyConvNet(2));
  EXPECT_TRUE(HasEdge(g, "softmax.grad", "fc.grad_data"));
  EXPECT_TRUE(HasEdge(g, "softmax.grad", "fc.grad_weight"));
  EXPECT_TRUE(HasEdge(g, "fc.grad_data", "flatten.grad"));
  EXPECT_TRUE(HasEdge(g, "flatten.grad", "relu.grad"));
  EXPECT_TRUE(HasEdge(g, "relu.grad", "conv.grad_weight"));
  EXPECT_TRUE(HasEdge(g, "conv.grad_weight", "conv.update"));
  EXPECT_TRUE(HasEdge(g, "fc", "fc.grad_weight"));  // saved input
}

TEST(TrainingGraph, OptimizerStateAndActivationMemory) {
  OpGraph f = testing::TinyConvNet(2);
  const int64_t params = (4 * 27 + 4 + 256 * 10 + 10);
  MemoryBreakdown adam = EstimateMemory(f, {Optimizer::kAdam});
  EXPECT_EQ(adam.param_bytes, params * 4);
  EXPECT_EQ(adam.grad_bytes, params * 4);
  EXPECT_EQ(adam.optimizer_state_bytes, 2 * params * 4);
  // Saved: conv input x, relu output r, fc input f, softmax output p.
  EXPECT_EQ(adam.activation_bytes, (2 * 3 * 64 + 2 * 4 * 64 + 2 * 256 + 2 * 10) * 4);
  EXPECT_EQ(adam.training_bytes, 4 * params * 4 + adam.activation_bytes);
  MemoryBreakdown sgd = EstimateMemory(f, {Optimizer::kSgdMomentum});
  EXPECT_EQ(sgd.optimizer_state_bytes, params * 4);
  // Activations scale with the batch.
  MemoryBreakdown big = EstimateMemory(testing::TinyConvNet(8), {});
  EXPECT_EQ(big.activation_bytes, 4 * adam.activation_bytes);
  EXPECT_GT(adam.inference_peak_activation_bytes, 0);
  EXPECT_LT(adam.inference_bytes, adam.training_bytes);
}

TEST(TrainingGraph, OptimizerNoneHasBackwardButNoUpdates) {
  OpGraph f = testing::TinyConvNet(2);
  Optimizer o;
  ASSERT_TRUE(ParseOptimizer("none", &o));
  EXPECT_STREQ(OptimizerName(o), "none");
  Result<OpGraph> none = BuildTrainingGraph(f, {o});
  Result<OpGraph> sgd = BuildTrainingGraph(f, {Optimizer::kSgd});
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  ASSERT_TRUE(sgd.ok());
  int updates = 0, backward = 0;
  for (const Op& op : none->ops) {
    updates += op.phase == Phase::kOptimizer;
    backward += op.phase == Phase::kBackward;
  }
  EXPECT_EQ(updates, 0);
  EXPECT_GT(backward, 0);
  // Same forward and backward ops as with an optimizer, minus the updates
  // (conv and fc own parameters).
  EXPECT_EQ(none->ops.size() + 2, sgd->ops.size());
  EXPECT_TRUE(none->IsTraining());
  MemoryBreakdown m = EstimateMemory(f, {Optimizer::kNone});
  EXPECT_EQ(m.optimizer_state_bytes, 0);
  EXPECT_EQ(m.grad_bytes, m.param_bytes);
}

TEST(InferenceGraph, DropoutIsTheIdentity) {
  ImportOptions o;
  o.batch = 2;
  o.seq_len = 16;
  Result<OpGraph> f = ImportGraph(
      std::string(FRUGAL_SOURCE_ROOT) + "/models/hf/bert.json", o, "hf");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  OpGraph g = InferenceGraph(*f);
  ASSERT_EQ(g.num_ops(), f->num_ops());
  EXPECT_EQ(g.edges, f->edges);
  int dropouts = 0;
  for (int i = 0; i < g.num_ops(); ++i) {
    const Op& op = g.ops[i];
    if (op.kind != OpKind::kDropout) {
      EXPECT_EQ(op, f->ops[i]);
      continue;
    }
    ++dropouts;
    EXPECT_EQ(op.attrs.GetInt("view", 0), 1);
    EXPECT_EQ(op.flops, 0);
    EXPECT_EQ(op.bytes_read + op.bytes_written, 0);
  }
  EXPECT_GT(dropouts, 0);
}

TEST(TrainingGraph, RefusesGraphsThatAlreadyTrain) {
  OpGraph g = *BuildTrainingGraph(testing::TinyConvNet(2));
  auto again = BuildTrainingGraph(g);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kFailedPrecondition);
}

TEST(TrainingGraph, DeterministicForTheSameInput) {
  OpGraph a = *BuildTrainingGraph(testing::TinyConvNet(2));
  OpGraph b = *BuildTrainingGraph(testing::TinyConvNet(2));
  EXPECT_TRUE(a == b);
}

}  // namespace
}  // namespace frugal
