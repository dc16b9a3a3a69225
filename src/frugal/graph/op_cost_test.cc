#include "frugal/graph/op_cost.h"

#include <gtest/gtest.h>

#include <cmath>

#include "frugal/graph/test_graphs.h"

namespace frugal {
namespace {

using testing::Act;
using testing::MakeOp;
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


TensorInfo Const(const std::string& name, std::vector<int64_t> shape,
                 DType dtype = DType::kInt64) {
  return TensorInfo{name, dtype, std::move(shape), TensorRole::kConstant};
}

TEST(OpCost, Conv3dCountsDepthToo) {
  Op c = MakeOp("c3", OpKind::kConv,
                {Act("x", {2, 4, 8, 16, 16}), Param("w", {8, 4, 3, 3, 3}), Param("b", {8})},
                {Act("y", {2, 8, 8, 16, 16})});
  ASSERT_TRUE(ComputeForwardCost(c).ok());
  const double out = 2.0 * 8 * 8 * 16 * 16;
  EXPECT_DOUBLE_EQ(c.flops, 2 * out * 4 * 27 + out);
  EXPECT_EQ(c.param_count, 8 * 4 * 27 + 8);
}

TEST(OpCost, ConvTransposeCostsTheConvItIsTheGradientOf) {
  // ConvTranspose 16 -> 8 channels, k4 s2 p1: 8x8 -> 16x16 (DCGAN).
  Op t = MakeOp("up", OpKind::kConvTranspose,
                {Act("x", {1, 16, 8, 8}), Param("w", {16, 8, 4, 4}), Param("b", {8})},
                {Act("y", {1, 8, 16, 16})});
  t.attrs.ints["strides"] = {2, 2};
  t.attrs.ints["pads"] = {1, 1, 1, 1};
  ASSERT_TRUE(ComputeForwardCost(t).ok());
  // The conv 8 -> 16 channels, k4 s2 p1 from 16x16 to 8x8 multiplies as often.
  Op c = MakeOp("down", OpKind::kConv, {Act("y", {1, 8, 16, 16}), Param("w2", {16, 8, 4, 4})},
                {Act("x", {1, 16, 8, 8})});
  ASSERT_TRUE(ComputeForwardCost(c).ok());
  EXPECT_DOUBLE_EQ(t.flops, c.flops + 8 * 256);  // plus one bias add per output
  EXPECT_DOUBLE_EQ(t.flops, 2.0 * (16 * 64) * (8 * 16) + 8 * 256);
  EXPECT_EQ(t.param_count, 16 * 8 * 16 + 8);
  EXPECT_DOUBLE_EQ(BiasAddFlops(t), 8 * 256);
}

TEST(OpCost, ConvTransposeGroupedAnd1dAnd3d) {
  // 1D, 4 groups: weight [C_in = 8, C_out / g = 2, k = 3], C_out = 8.
  Op g = MakeOp("g", OpKind::kConvTranspose, {Act("x", {1, 8, 5}), Param("w", {8, 2, 3})},
                {Act("y", {1, 8, 7})});
  g.attrs.ints["group"] = {4};
  ASSERT_TRUE(ComputeForwardCost(g).ok());
  EXPECT_DOUBLE_EQ(g.flops, 2.0 * 40 * 6);
  Op d = MakeOp("d", OpKind::kConvTranspose,
                {Act("x", {1, 4, 2, 2, 2}), Param("w", {4, 2, 2, 2, 2})},
                {Act("y", {1, 2, 4, 4, 4})});
  ASSERT_TRUE(ComputeForwardCost(d).ok());
  EXPECT_DOUBLE_EQ(d.flops, 2.0 * 32 * 16);
  Op bad = MakeOp("bad", OpKind::kConvTranspose, {Act("x", {1, 3, 5}), Param("w", {8, 2, 3})},
                  {Act("y", {1, 2, 7})});
  EXPECT_FALSE(ComputeForwardCost(bad).ok());
}

TEST(OpCost, LstmCountsEveryStepAndGate) {
  // nn.LSTM(10, 20) on [T=5, B=3, 10]: ONNX W [1, 80, 10], R [1, 80, 20],
  // B [1, 160].
  Op l = MakeOp("lstm", OpKind::kRnn,
                {Act("x", {5, 3, 10}), Param("W", {1, 80, 10}), Param("R", {1, 80, 20}),
                 Param("B", {1, 160})},
                {Act("y", {5, 1, 3, 20}), Act("yh", {1, 3, 20}), Act("yc", {1, 3, 20})}, "LSTM");
  l.attrs.ints["hidden_size"] = {20};
  ASSERT_TRUE(ComputeForwardCost(l).ok());
  const double cells = 5 * 3;
  const double products = cells * 2 * 80 * (10 + 20);  // 72000, PyTorch's 2*T*B*4H*(I+H)
  const double bias = cells * 2 * 80;
  const double cell = cells * (80 + 18 * 20);  // join the two products; gates and state
  EXPECT_DOUBLE_EQ(l.flops, products + bias + cell);
  EXPECT_DOUBLE_EQ(BiasAddFlops(l), bias);
  EXPECT_EQ(l.param_count, 4 * 20 * (10 + 20) + 8 * 20);  // nn.LSTM's parameters
}

TEST(OpCost, BidirectionalBatchFirstGruAndPlainRnn) {
  Op g = MakeOp("gru", OpKind::kRnn,
                {Act("x", {3, 7, 6}), Param("W", {2, 24, 6}), Param("R", {2, 24, 8})},
                {Act("y", {3, 7, 2, 8})}, "GRU");
  g.attrs.ints["layout"] = {1};
  g.attrs.strings["direction"] = "bidirectional";
  ASSERT_TRUE(ComputeForwardCost(g).ok());
  const double cells = 2.0 * 7 * 3;
  EXPECT_DOUBLE_EQ(g.flops, cells * (2 * 24 * (6 + 8) + 24 + 14 * 8));
  Op r = MakeOp("rnn", OpKind::kRnn,
                {Act("x", {4, 2, 3}), Param("W", {1, 5, 3}), Param("R", {1, 5, 5}),
                 Param("B", {1, 10}), Const("lens", {2}, DType::kInt32),
                 Act("h0", {1, 2, 5})},
                {Act("y", {4, 1, 2, 5})}, "RNN");
  ASSERT_TRUE(ComputeForwardCost(r).ok());
  EXPECT_DOUBLE_EQ(r.flops, 8.0 * (2 * 5 * 8 + 5 + 5) + 8.0 * 10);
  // Direction disagreeing with W, hidden_size disagreeing with R.
  Op bad = g;
  bad.attrs.strings["direction"] = "forward";
  EXPECT_FALSE(ComputeForwardCost(bad).ok());
  bad = r;
  bad.attrs.ints["hidden_size"] = {6};
  EXPECT_FALSE(ComputeForwardCost(bad).ok());
}

TEST(OpCost, LstmPeepholesAreToldApartFromTheBias) {
  // Optional inputs arrive without their empty slots: P [1, 3H] alone.
  Op l = MakeOp("lstm", OpKind::kRnn,
                {Act("x", {2, 1, 4}), Param("W", {1, 8, 4}), Param("R", {1, 8, 2}),
                 Param("P", {1, 6})},
                {Act("y", {2, 1, 1, 2})}, "LSTM");
  ASSERT_TRUE(ComputeForwardCost(l).ok());
  EXPECT_DOUBLE_EQ(l.flops, 2.0 * (2 * 8 * 6 + 8 + (18 + 6) * 2));
  EXPECT_DOUBLE_EQ(BiasAddFlops(l), 0);
}

TEST(OpCost, EinsumUsesItsEquation) {
  Op e = MakeOp("e", OpKind::kEinsum, {Act("q", {2, 4, 8, 16}), Act("k", {2, 4, 8, 16})},
                {Act("s", {2, 4, 8, 8})});
  e.attrs.strings["equation"] = "bhqd,bhkd->bhqk";
  ASSERT_TRUE(ComputeForwardCost(e).ok());
  EXPECT_DOUBLE_EQ(e.flops, 2.0 * (2 * 4 * 8 * 8) * 16);
  Op bad = e;
  bad.attrs.strings["equation"] = "ij,jk->ik";
  Status st = ComputeForwardCost(bad);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("'e'"), std::string::npos);
  bad.attrs.strings.clear();
  EXPECT_FALSE(ComputeForwardCost(bad).ok());
}

TEST(OpCost, MatMulIntegerHasNoBias) {
  Op m = MakeOp("mmi", OpKind::kBatchMatMul,
                {TensorInfo{"a", DType::kUInt8, {2, 3}}, Const("b", {3, 4}, DType::kInt8),
                 Const("az", {}, DType::kUInt8), Const("bz", {}, DType::kInt8)},
                {TensorInfo{"y", DType::kInt32, {2, 4}}});
  ASSERT_TRUE(ComputeForwardCost(m).ok());
  EXPECT_DOUBLE_EQ(m.flops, 2.0 * 2 * 4 * 3);
}

TEST(OpCost, ResizeByMode) {
  auto resize = [](const std::string& mode, std::vector<int64_t> out) {
    Op r = MakeOp("r", OpKind::kResize,
                  {Act("x", {1, 3, 8, 8}), Param("roi", {0}), Param("scales", {4})},
                  {Act("y", std::move(out))});
    if (!mode.empty()) r.attrs.strings["mode"] = mode;
    EXPECT_TRUE(ComputeForwardCost(r).ok());
    return r;
  };
  const double y = 3 * 16 * 16;
  EXPECT_DOUBLE_EQ(resize("", {1, 3, 16, 16}).flops, 0);  // nearest: a copy
  EXPECT_DOUBLE_EQ(resize("nearest", {1, 3, 16, 16}).flops, 0);
  EXPECT_DOUBLE_EQ(resize("linear", {1, 3, 16, 16}).flops, y * 2 * 4);   // bilinear
  EXPECT_DOUBLE_EQ(resize("bilinear", {1, 3, 16, 16}).flops, y * 2 * 4);  // Upsample-7
  EXPECT_DOUBLE_EQ(resize("cubic", {1, 3, 16, 16}).flops, y * 2 * 16);   // bicubic
  EXPECT_DOUBLE_EQ(resize("linear", {1, 3, 8, 16}).flops, 3 * 8 * 16 * 2 * 2);
  EXPECT_DOUBLE_EQ(resize("linear", {1, 3, 8, 8}).flops, 0);
  // The scales are constants of the graph, not parameters.
  Op r = resize("linear", {1, 3, 16, 16});
  EXPECT_EQ(r.param_count, 0);
  EXPECT_EQ(r.inputs[2].role, TensorRole::kConstant);
  EXPECT_EQ(r.bytes_read, 3 * 64 * 4);
}

TEST(OpCost, ClipBoundsAndDropoutRatioAreNotParameters) {
  Op c = MakeOp("relu6", OpKind::kClip, {Act("x", {2, 8}), Param("lo", {}), Param("hi", {})},
                {Act("y", {2, 8})});
  ASSERT_TRUE(ComputeForwardCost(c).ok());
  EXPECT_EQ(c.param_count, 0);
  EXPECT_DOUBLE_EQ(c.flops, 2 * 16);
  // Expand's first input may be a weight (ViT's class token).
  Op e = MakeOp("cls", OpKind::kExpand, {Param("cls_token", {1, 1, 8}), Const("shape", {3})},
                {Act("y", {4, 1, 8})});
  ASSERT_TRUE(ComputeForwardCost(e).ok());
  EXPECT_EQ(e.param_count, 8);
  EXPECT_DOUBLE_EQ(e.flops, 0);
}

TEST(OpCost, NewElementwiseKindsCountPerElement) {
  struct Case { OpKind kind; double per_elem; };
  for (Case c : {Case{OpKind::kPRelu, 2}, Case{OpKind::kElu, 4}, Case{OpKind::kSelu, 5},
                 Case{OpKind::kMish, 5}, Case{OpKind::kSoftplus, 3}, Case{OpKind::kAbs, 1},
                 Case{OpKind::kCumSum, 1}, Case{OpKind::kCompare, 1}, Case{OpKind::kRound, 1},
                 Case{OpKind::kHardSwish, 4}, Case{OpKind::kLeakyRelu, 2}}) {
    Op op = MakeOp("op", c.kind, {Act("x", {3, 5})}, {Act("y", {3, 5})});
    ASSERT_TRUE(ComputeForwardCost(op).ok());
    EXPECT_DOUBLE_EQ(op.flops, 15 * c.per_elem) << OpKindName(c.kind);
  }
  Op p = MakeOp("prelu", OpKind::kPRelu, {Act("x", {2, 4, 3, 3}), Param("slope", {4, 1, 1})},
                {Act("y", {2, 4, 3, 3})});
  ASSERT_TRUE(ComputeForwardCost(p).ok());
  EXPECT_EQ(p.param_count, 4);
}

TEST(OpCost, NormalisationsAndReductions) {
  Op in = MakeOp("in", OpKind::kInstanceNorm,
                 {Act("x", {2, 4, 8, 8}), Param("s", {4}), Param("b", {4})},
                 {Act("y", {2, 4, 8, 8})});
  ASSERT_TRUE(ComputeForwardCost(in).ok());
  EXPECT_DOUBLE_EQ(in.flops, 8.0 * 512);
  EXPECT_EQ(in.param_count, 8);
  struct Case { OpKind kind; double per_elem; };
  for (Case c : {Case{OpKind::kReduceMean, 1}, Case{OpKind::kReduceProd, 1},
                 Case{OpKind::kReduceNorm, 2}, Case{OpKind::kReduceLogSumExp, 4}}) {
    Op r = MakeOp("r", c.kind, {Act("x", {6, 10})}, {Act("y", {6, 1})});
    ASSERT_TRUE(ComputeForwardCost(r).ok());
    EXPECT_DOUBLE_EQ(r.flops, 60 * c.per_elem) << OpKindName(c.kind);
  }
}

TEST(OpCost, TopKSelectsThenSorts) {
  Op t = MakeOp("topk", OpKind::kTopK, {Act("x", {4, 100}), Const("k", {1})},
                {Act("v", {4, 5}), TensorInfo{"i", DType::kInt64, {4, 5}}});
  ASSERT_TRUE(ComputeForwardCost(t).ok());
  EXPECT_DOUBLE_EQ(t.flops, 400 + 20 * std::log2(5.0));
  t.attrs.ints["sorted"] = {0};
  ASSERT_TRUE(ComputeForwardCost(t).ok());
  EXPECT_DOUBLE_EQ(t.flops, 400);
  t.attrs.ints["axis"] = {0};  // k along dim 0 = 4
  t.attrs.ints["sorted"] = {1};
  ASSERT_TRUE(ComputeForwardCost(t).ok());
  EXPECT_DOUBLE_EQ(t.flops, 400 + 20 * 2);
}

TEST(OpCost, ScatterWithReductionCombinesEachUpdate) {
  Op s = MakeOp("sc", OpKind::kScatter,
                {Act("data", {10, 4}), TensorInfo{"idx", DType::kInt64, {3, 1}},
                 Act("upd", {3, 4})},
                {Act("y", {10, 4})});
  ASSERT_TRUE(ComputeForwardCost(s).ok());
  EXPECT_DOUBLE_EQ(s.flops, 0);
  EXPECT_EQ(s.bytes_read, (40 + 12) * 4 + 3 * 8);
  s.attrs.strings["reduction"] = "add";
  ASSERT_TRUE(ComputeForwardCost(s).ok());
  EXPECT_DOUBLE_EQ(s.flops, 12);
}

TEST(OpCost, NllLossCostsPerRowNotPerClass) {
  Op l = MakeOp("nll", OpKind::kNllLoss,
                {Act("logp", {8, 1000, 4}), TensorInfo{"t", DType::kInt64, {8, 4}}},
                {Act("loss", {})});
  ASSERT_TRUE(ComputeForwardCost(l).ok());
  EXPECT_DOUBLE_EQ(CountedInputElements(l), 32);
  EXPECT_DOUBLE_EQ(l.flops, 2 * 32);
}

TEST(OpCost, OnnxTypesMapToTheirKinds) {
  EXPECT_EQ(OpKindFromOnnx("ConvTranspose"), OpKind::kConvTranspose);
  EXPECT_EQ(OpKindFromOnnx("LSTM"), OpKind::kRnn);
  EXPECT_EQ(OpKindFromOnnx("GRU"), OpKind::kRnn);
  EXPECT_EQ(OpKindFromOnnx("Einsum"), OpKind::kEinsum);
  EXPECT_EQ(OpKindFromOnnx("Upsample"), OpKind::kResize);
  EXPECT_EQ(OpKindFromOnnx("GreaterOrEqual"), OpKind::kCompare);
  EXPECT_EQ(OpKindFromOnnx("Tile"), OpKind::kExpand);
  EXPECT_EQ(OpKindFromOnnx("DepthToSpace"), OpKind::kTranspose);
  EXPECT_EQ(OpKindFromOnnx("GatherElements"), OpKind::kGather);
  EXPECT_EQ(OpKindFromOnnx("ArgMin"), OpKind::kReduceMax);
  EXPECT_EQ(OpKindFromOnnx("Atanh"), OpKind::kTrig);
  EXPECT_EQ(OpKindFromOnnx("IsInf"), OpKind::kCompare);
  EXPECT_EQ(OpKindFromOnnx("Bernoulli"), OpKind::kRandom);
  EXPECT_EQ(OpKindFromOnnx("NegativeLogLikelihoodLoss"), OpKind::kNllLoss);
  EXPECT_EQ(OpKindFromOnnx("NoSuchOp"), OpKind::kUnknown);
  // Every kind's name parses back.
  for (OpKind k : {OpKind::kConvTranspose, OpKind::kRnn, OpKind::kEinsum, OpKind::kResize,
                   OpKind::kTopK, OpKind::kScatter, OpKind::kGroupNorm, OpKind::kSinCos}) {
    OpKind parsed;
    ASSERT_TRUE(ParseOpKind(OpKindName(k), &parsed));
    EXPECT_EQ(parsed, k);
  }
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
