#include "frugal/graph/training.h"

#include <gtest/gtest.h>

#include "frugal/graph/importer.h"
#include "frugal/graph/test_graphs.h"

namespace frugal {
namespace {

// A bundled HF config (models/hf/NAME.json) at batch and sequence length.
Result<OpGraph> BundledHf(const char* name, int64_t batch, int64_t seq) {
  ImportOptions o;
  o.batch = batch;
  o.seq_len = seq;
  return ImportGraph(std::string(FRUGAL_SOURCE_ROOT) + "/models/hf/" + name + ".json", o, "hf");
}

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

int64_t Sum(const std::vector<int64_t>& v) {
  int64_t s = 0;
  for (int64_t x : v) s += x;
  return s;
}

TEST(StepMemory, TrainingStepMatchesEstimateMemoryForEveryOptimizer) {
  OpGraph f = testing::TinyConvNet(2);
  for (Optimizer o : {Optimizer::kSgd, Optimizer::kSgdMomentum, Optimizer::kAdam,
                      Optimizer::kNone}) {
    OpGraph g = *BuildTrainingGraph(f, {o});
    StepMemory s = EstimateStepMemory(g);
    MemoryBreakdown m = EstimateMemory(f, {o});
    EXPECT_TRUE(s.training);
    EXPECT_EQ(s.total_bytes, m.training_bytes) << OptimizerName(o);
    EXPECT_EQ(s.breakdown.optimizer_state_bytes, m.optimizer_state_bytes) << OptimizerName(o);
    EXPECT_EQ(s.breakdown.grad_bytes, m.grad_bytes);
    ASSERT_EQ(s.op_bytes.size(), g.ops.size());
    EXPECT_EQ(Sum(s.op_bytes), s.total_bytes);
  }
}

TEST(StepMemory, GradientsSitOnWeightGradientOpsAndStateOnUpdates) {
  OpGraph f = testing::TinyConvNet(2);
  OpGraph g = *BuildTrainingGraph(f, {Optimizer::kAdam});
  StepMemory s = EstimateStepMemory(g);
  const int fc = FindOpIndex(g, "fc");
  const int gw = FindOpIndex(g, "fc.grad_weight");
  const int up = FindOpIndex(g, "fc.update");
  const int64_t fc_params = g.ops[fc].param_bytes;
  ASSERT_GT(fc_params, 0);
  EXPECT_EQ(s.op_bytes[gw], fc_params);
  EXPECT_EQ(s.op_bytes[up], 2 * fc_params);  // Adam's two moments
  EXPECT_GE(s.op_bytes[fc], fc_params);
}

TEST(StepMemory, InferenceIsTheLivenessPeakNotTheSumOfActivations) {
  OpGraph f = testing::TinyConvNet(8);
  StepMemory s = EstimateStepMemory(f);
  MemoryBreakdown m = EstimateMemory(f);
  EXPECT_FALSE(s.training);
  EXPECT_EQ(s.total_bytes, m.inference_bytes);
  EXPECT_EQ(Sum(s.op_bytes), s.total_bytes);
  int64_t all_outputs = 0;
  for (const Op& op : f.ops) {
    for (const auto& t : op.outputs) all_outputs += t.Bytes();
  }
  EXPECT_LT(s.breakdown.inference_peak_activation_bytes, all_outputs);
  EXPECT_EQ(s.total_bytes,
            m.param_bytes + m.buffer_bytes + s.breakdown.inference_peak_activation_bytes);
}

TEST(StepMemory, GptInferenceAndTrainingMatchPredict) {
  Result<OpGraph> f = BundledHf("gpt2_med", 2, 64);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  MemoryBreakdown m = EstimateMemory(*f);
  StepMemory inf = EstimateStepMemory(InferenceGraph(*f));
  StepMemory train = EstimateStepMemory(*BuildTrainingGraph(*f));
  EXPECT_EQ(inf.total_bytes, m.inference_bytes);
  EXPECT_EQ(train.total_bytes, m.training_bytes);
  EXPECT_EQ(Sum(inf.op_bytes), inf.total_bytes);
  EXPECT_EQ(Sum(train.op_bytes), train.total_bytes);
}

TEST(StepMemory, ProfiledGraphsUseMeasuredSizes) {
  OpGraph g;
  Op a, b;
  a.name = "a";
  a.measured_mem_bytes = 100;
  b.name = "b";
  b.measured_mem_bytes = 20;
  g.AddOp(a);
  g.AddOp(b);
  g.AddEdge(0, 1, 8);
  StepMemory s = EstimateStepMemory(g);
  EXPECT_EQ(s.total_bytes, 120);
  EXPECT_EQ(s.op_bytes, (std::vector<int64_t>{100, 20}));
}

TEST(InferenceGraph, DropoutIsTheIdentity) {
  Result<OpGraph> f = BundledHf("bert", 2, 16);
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

// Switch's router jitter multiplies the router input by noise in training
// only (transformers: `if self.training and self.jitter_noise > 0`).
TEST(InferenceGraph, TrainingOnlyOpsAreTheIdentity) {
  Result<OpGraph> f = BundledHf("switchxl4", 1, 64);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  OpGraph g = InferenceGraph(*f);
  int jitters = 0;
  for (int i = 0; i < g.num_ops(); ++i) {
    const Op& op = g.ops[i];
    if (op.name.find("router.jitter") == std::string::npos) continue;
    ++jitters;
    EXPECT_GT(f->ops[i].flops, 0);
    EXPECT_EQ(op.attrs.GetInt("view", 0), 1);
    EXPECT_EQ(op.flops, 0);
    EXPECT_EQ(op.bytes_read + op.bytes_written, 0);
  }
  EXPECT_EQ(jitters, 24);  // 12 sparse blocks per stack
  // Training keeps it.
  auto t = BuildTrainingGraph(*f);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  bool priced = false;
  for (const Op& op : t->ops) {
    if (op.name.find("router.jitter") != std::string::npos && op.flops > 0) priced = true;
  }
  EXPECT_TRUE(priced);
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
