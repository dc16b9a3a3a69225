#include "frugal/graph/op_cost.h"

#include <gtest/gtest.h>

#include "frugal/graph/test_graphs.h"

namespace frugal {
namespace {

using testing::Act;
using testing::Param;

TEST(OpCost, ConvCountsMultiplyAddsAsTwoPlusBias) {
  OpGraph g = testing::TinyConvNet(2);
  const Op& conv = g.ops[0];
  // 2 * (N*Cout*H*W) * (Cin*kh*kw) + bias adds.
  double out = 2 * 4 * 8 * 8;
  EXPECT_DOUBLE_EQ(conv.flops, 2 * out * 27 + out);
  EXPECT_EQ(conv.param_count, 4 * 27 + 4);
  EXPECT_EQ(conv.bytes_read, (2 * 3 * 64 + 108 + 4) * 4);
  EXPECT_EQ(conv.bytes_written, 2 * 4 * 64 * 4);
}

TEST(OpCost, GroupedConvDividesInputChannels) {
  Op dw;
  dw.name = "dw";
  dw.kind = OpKind::kConv;
  dw.attrs.ints["group"] = {32};
  dw.inputs = {Act("x", {1, 32, 16, 16}), Param("w", {32, 1, 3, 3})};
  dw.outputs = {Act("y", {1, 32, 8, 8})};  // stride 2
  ASSERT_TRUE(ComputeForwardCost(dw).ok());
  EXPECT_DOUBLE_EQ(dw.flops, 2.0 * 32 * 64 * 9);
}

TEST(OpCost, Conv1dUsesItsOneSpatialDim) {
  Op c;
  c.name = "c1";
  c.kind = OpKind::kConv;
  c.inputs = {Act("x", {4, 16, 100}), Param("w", {8, 16, 5})};
  c.outputs = {Act("y", {4, 8, 96})};
  ASSERT_TRUE(ComputeForwardCost(c).ok());
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 4 * 8 * 96 * 16 * 5);
}

TEST(OpCost, MatMulAndBatchedMatMul) {
  OpGraph g = testing::TinyConvNet(2);
  EXPECT_DOUBLE_EQ(g.ops[3].flops, 2.0 * 2 * 10 * 256 + 2 * 10);
  Op bmm;
  bmm.name = "scores";
  bmm.kind = OpKind::kBatchMatMul;
  bmm.inputs = {Act("q", {2, 12, 128, 64}), Act("k", {2, 12, 64, 128})};
  bmm.outputs = {Act("s", {2, 12, 128, 128})};
  ASSERT_TRUE(ComputeForwardCost(bmm).ok());
  EXPECT_DOUBLE_EQ(bmm.flops, 2.0 * 2 * 12 * 128 * 128 * 64);
  EXPECT_EQ(bmm.param_count, 0);
}

TEST(OpCost, ElementwiseNormAndPooling) {
  OpGraph g = testing::TinyConvNet(2);
  EXPECT_DOUBLE_EQ(g.ops[1].flops, 2 * 4 * 64);       // relu: 1 per element
  EXPECT_DOUBLE_EQ(g.ops[4].flops, 5 * 2 * 10);       // softmax: 5 per element
  EXPECT_DOUBLE_EQ(g.ops[2].flops, 0);                // flatten: bytes only
  EXPECT_EQ(g.ops[2].bytes_read, 2 * 256 * 4);
  Op pool;
  pool.name = "pool";
  pool.kind = OpKind::kMaxPool;
  pool.attrs.ints["kernel_shape"] = {3, 3};
  pool.inputs = {Act("x", {1, 8, 16, 16})};
  pool.outputs = {Act("y", {1, 8, 8, 8})};
  ASSERT_TRUE(ComputeForwardCost(pool).ok());
  EXPECT_DOUBLE_EQ(pool.flops, 8.0 * 64 * 9);
}

TEST(OpCost, TiedParametersCountOnce) {
  OpGraph g;
  Op emb;
  emb.name = "emb";
  emb.kind = OpKind::kEmbedding;
  emb.inputs = {TensorInfo{"ids", DType::kInt64, {1, 4}}, Param("wte", {100, 8})};
  emb.outputs = {Act("h", {1, 4, 8})};
  Op head;
  head.name = "head";
  head.kind = OpKind::kMatMul;
  head.attrs.ints["transB"] = {1};
  head.inputs = {Act("h", {1, 4, 8}), Param("wte", {100, 8})};
  head.outputs = {Act("logits", {1, 4, 100})};
  const int e = g.AddOp(emb);
  const int h = g.AddOp(head);
  g.AddEdge(e, h, 128, "h");
  ASSERT_TRUE(FinalizeForwardCosts(g).ok());
  EXPECT_EQ(TotalParameters(g), 800);
  EXPECT_EQ(g.ops[1].param_count, 0);
  EXPECT_DOUBLE_EQ(g.ops[1].flops, 2.0 * 4 * 100 * 8);
  // The lookup reads the 4 gathered rows and the ids, not the whole table.
  EXPECT_EQ(g.ops[0].bytes_read, 4 * 8 * 4 + 4 * 8);
}

TEST(OpCost, ConvWithoutWeightIsAnError) {
  Op c;
  c.name = "bad";
  c.kind = OpKind::kConv;
  c.inputs = {Act("x", {1, 3, 8, 8})};
  c.outputs = {Act("y", {1, 3, 8, 8})};
  Status st = ComputeForwardCost(c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("'bad'"), std::string::npos);
}

}  // namespace
}  // namespace frugal
