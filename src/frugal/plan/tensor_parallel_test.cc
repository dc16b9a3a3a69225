#include "frugal/plan/tensor_parallel.h"

#include <gtest/gtest.h>

#include "frugal/graph/op_cost.h"
#include "frugal/graph/test_graphs.h"
#include "frugal/plan/plan_test_util.h"

namespace frugal {
namespace {

double Flops(const OpGraph& g) {
  double f = 0;
  for (const Op& op : g.ops) f += op.flops;
  return f;
}

TEST(ShardTensorParallel, SplitsAttentionAndMlpMegatronStyle) {
  OpGraph fwd = testing::ImportConfig(testing::TinyLlama(4), 2, 64);
  Result<TensorParallelGraph> tp = ShardTensorParallel(fwd, 2);
  ASSERT_TRUE(tp.ok()) << tp.status().ToString();
  const OpGraph& g = tp->graph;
  ASSERT_EQ(g.ops.size(), fwd.ops.size());
  // Q, K, V, gate, up column-parallel per layer, plus the LM head.
  EXPECT_EQ(tp->column_parallel, 4 * 5 + 1);
  EXPECT_EQ(tp->row_parallel, 4 * 2);  // o_proj, down_proj
  EXPECT_EQ(tp->vocab_parallel, 1);
  // Two all-reduces per layer and one after the embedding.
  EXPECT_EQ(tp->all_reduces.size(), 4u * 2 + 1);
  const Op* q = testing::FindOp(g, "layers.0.self_attn.q_proj");
  const Op* o = testing::FindOp(g, "layers.0.self_attn.o_proj");
  const Op* scores = testing::FindOp(g, "layers.0.self_attn.scores");
  const Op* norm = testing::FindOp(g, "layers.0.input_layernorm");
  ASSERT_TRUE(q && o && scores && norm);
  EXPECT_EQ(q->inputs[1].shape, (std::vector<int64_t>{128, 256}));
  EXPECT_EQ(q->outputs[0].shape, (std::vector<int64_t>{2, 64, 128}));
  EXPECT_EQ(o->inputs[1].shape, (std::vector<int64_t>{256, 128}));
  EXPECT_EQ(o->outputs[0].shape, (std::vector<int64_t>{2, 64, 256}));
  EXPECT_EQ(scores->outputs[0].shape, (std::vector<int64_t>{2, 4, 64, 64}));  // 4 of 8 heads
  EXPECT_EQ(norm->outputs[0].shape, (std::vector<int64_t>{2, 64, 256}));    // replicated
  // Nearly all the work is split: per-GPU FLOPs a little over half.
  const double ratio = Flops(g) / Flops(fwd);
  EXPECT_GT(ratio, 0.5);
  EXPECT_LT(ratio, 0.56);
  EXPECT_LT(TotalParameters(g), TotalParameters(fwd) * 0.52);
  EXPECT_TRUE(g.Validate().ok());
}

TEST(ShardTensorParallel, OneGpuIsTheSameGraph) {
  OpGraph fwd = testing::ImportConfig(testing::TinyLlama(2), 1, 16);
  Result<TensorParallelGraph> tp = ShardTensorParallel(fwd, 1);
  ASSERT_TRUE(tp.ok());
  EXPECT_EQ(tp->graph, fwd);
  EXPECT_TRUE(tp->all_reduces.empty());
}

TEST(ShardTensorParallel, RefusesADegreeThatDoesNotDivideTheHeads) {
  OpGraph fwd = testing::ImportConfig(testing::TinyLlama(2), 1, 16);
  Result<TensorParallelGraph> tp = ShardTensorParallel(fwd, 3);
  ASSERT_FALSE(tp.ok());
  EXPECT_NE(tp.status().message().find("3 GPUs do not divide"), std::string::npos)
      << tp.status().ToString();
}

TEST(ShardTensorParallel, GroupedQueryAttentionLimitsTheDegree) {
  // 2 K/V heads of 128: TP 2 splits them, TP 4 cannot.
  OpGraph fwd = testing::ImportConfig(testing::TinyLlama(2, 2, 512, 4), 1, 16);
  Result<TensorParallelGraph> two = ShardTensorParallel(fwd, 2);
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  const Op* k = testing::FindOp(two->graph, "layers.0.self_attn.k_proj");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->outputs[0].shape.back(), 128);  // 1 of 2 K/V heads
  Result<TensorParallelGraph> four = ShardTensorParallel(fwd, 4);
  ASSERT_FALSE(four.ok());
  EXPECT_NE(four.status().message().find("(size 2)"), std::string::npos)
      << four.status().ToString();
}

TEST(ShardTensorParallel, RefusesProfiledAndTrainingGraphs) {
  OpGraph fwd = testing::ImportConfig(testing::TinyLlama(2), 1, 16);
  OpGraph measured = fwd;
  measured.ops[0].measured_time_ms = 1;
  EXPECT_FALSE(ShardTensorParallel(measured, 2).ok());
  OpGraph train = fwd;
  train.ops[0].phase = Phase::kBackward;
  EXPECT_FALSE(ShardTensorParallel(train, 2).ok());
  EXPECT_FALSE(ShardTensorParallel(fwd, 0).ok());
}

}  // namespace
}  // namespace frugal
