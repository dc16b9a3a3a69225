#include "frugal/graph/backward.h"

#include <gtest/gtest.h>

#include "frugal/graph/op_cost.h"
#include "frugal/graph/test_graphs.h"
#include "frugal/graph/training.h"

namespace frugal {
namespace {

using testing::Act;
using testing::Param;

Op Costed(const std::string& name, OpKind kind, std::vector<TensorInfo> in,
          std::vector<TensorInfo> out, const std::string& type = "") {
  Op op = testing::MakeOp(name, kind, std::move(in), std::move(out), type);
  Status st = ComputeForwardCost(op);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return op;
}

double SumFlops(const std::vector<Op>& ops) {
  double f = 0;
  for (const Op& op : ops) f += op.flops;
  return f;
}

Op Lstm() {
  // nn.LSTM(10, 20) on [T=5, B=3, 10].
  return Costed("lstm", OpKind::kRnn,
                {Act("x", {5, 3, 10}), Param("W", {1, 80, 10}), Param("R", {1, 80, 20}),
                 Param("B", {1, 160})},
                {Act("y", {5, 1, 3, 20})}, "LSTM");
}

TEST(Backward, LstmBackpropagatesThroughTime) {
  Op l = Lstm();
  const double cells = 15;
  const double recurrence = cells * (2 * 80 * 20 + 22 * 20);  // dh_{t-1} and the cell
  const double dx = cells * 2 * 80 * 10;
  const double dw = cells * 2 * 80 * 30 + cells * 80;  // dW, dR, bias sums
  std::vector<Op> ops = MakeBackwardOps(l, {true}, 1);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].grad, GradRole::kData);
  EXPECT_DOUBLE_EQ(ops[0].flops, recurrence + dx);
  EXPECT_EQ(ops[1].grad, GradRole::kWeight);
  EXPECT_DOUBLE_EQ(ops[1].flops, dw);
  EXPECT_EQ(ops[1].outputs.size(), 3u);
  // On the input sequence itself (no input gradient) the weight gradient
  // still needs the recurrence.
  ops = MakeBackwardOps(l, {false}, 1);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_DOUBLE_EQ(ops[0].flops, dw + recurrence);
  EXPECT_EQ(SequentialSteps(ops[0]), 5);  // it carries the recurrence
  EXPECT_EQ(SequentialSteps(l), 5);
  // Saved: the input and the per-step gates and states (6H for an LSTM).
  std::vector<TensorInfo> saved = SavedForBackward(l);
  ASSERT_EQ(saved.size(), 2u);
  EXPECT_EQ(saved[0].name, "x");
  EXPECT_EQ(saved[1].NumElements(), 5 * 3 * 6 * 20);
}

TEST(Backward, ConvTransposeAndEinsumGradientsCostTheirProducts) {
  Op t = Costed("up", OpKind::kConvTranspose,
                {Act("x", {1, 16, 8, 8}), Param("w", {16, 8, 4, 4}), Param("b", {8})},
                {Act("y", {1, 8, 16, 16})});
  std::vector<Op> ops = MakeBackwardOps(t, {true}, 1);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_DOUBLE_EQ(ops[0].flops, t.flops - 8 * 256);
  EXPECT_DOUBLE_EQ(ops[1].flops, t.flops);
  EXPECT_EQ(SavedForBackward(t).size(), 1u);

  Op e;
  e.name = "e";
  e.kind = OpKind::kEinsum;
  e.inputs = {Act("a", {2, 3, 4}), Act("b", {2, 4, 5})};
  e.outputs = {Act("c", {2, 3, 5})};
  e.attrs.strings["equation"] = "bij,bjk->bik";
  ASSERT_TRUE(ComputeForwardCost(e).ok());
  ops = MakeBackwardOps(e, {true, true}, 1);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_DOUBLE_EQ(ops[0].flops, 240);
  EXPECT_DOUBLE_EQ(ops[1].flops, 240);
  EXPECT_EQ(SavedForBackward(e).size(), 2u);
}

TEST(Backward, ResizeSpreadsGradientsOverItsTaps) {
  Op r = Costed("r", OpKind::kResize, {Act("x", {1, 2, 4, 4})}, {Act("y", {1, 2, 8, 8})});
  r.attrs.strings["mode"] = "linear";
  ASSERT_TRUE(ComputeForwardCost(r).ok());
  EXPECT_DOUBLE_EQ(SumFlops(MakeBackwardOps(r, {true}, 1)), 128 * 8);
  r.attrs.strings["mode"] = "nearest";
  ASSERT_TRUE(ComputeForwardCost(r).ok());
  EXPECT_DOUBLE_EQ(SumFlops(MakeBackwardOps(r, {true}, 1)), 128);  // one add each
  EXPECT_TRUE(SavedForBackward(r).empty());
}

TEST(Backward, ExpandSumsCopiesAndPadByMode) {
  Op e = Costed("tile", OpKind::kExpand, {Act("x", {2, 3})}, {Act("y", {4, 2, 3})}, "Tile");
  EXPECT_DOUBLE_EQ(SumFlops(MakeBackwardOps(e, {true}, 1)), 24);
  Op p = Costed("pad", OpKind::kPad, {Act("x", {1, 1, 4, 4})}, {Act("y", {1, 1, 6, 6})});
  EXPECT_DOUBLE_EQ(SumFlops(MakeBackwardOps(p, {true}, 1)), 0);  // constant: a slice
  p.attrs.strings["mode"] = "reflect";
  EXPECT_DOUBLE_EQ(SumFlops(MakeBackwardOps(p, {true}, 1)), 36 - 16);
}

TEST(Backward, TopKScattersAndSavesIndices) {
  Op t = Costed("topk", OpKind::kTopK,
                {Act("x", {4, 100}), TensorInfo{"k", DType::kInt64, {1}, TensorRole::kConstant}},
                {Act("v", {4, 5}), TensorInfo{"i", DType::kInt64, {4, 5}}});
  EXPECT_DOUBLE_EQ(SumFlops(MakeBackwardOps(t, {true}, 1)), 20);
  std::vector<TensorInfo> saved = SavedForBackward(t);
  ASSERT_EQ(saved.size(), 1u);
  EXPECT_EQ(saved[0].name, "i");
}

TEST(Backward, NewActivationsAndReductionsUseTheirCounts) {
  Op m = Costed("mish", OpKind::kMish, {Act("x", {3, 5})}, {Act("y", {3, 5})});
  EXPECT_DOUBLE_EQ(SumFlops(MakeBackwardOps(m, {true}, 1)), 15 * 14);
  EXPECT_EQ(SavedForBackward(m)[0].name, "x");
  Op p = Costed("prelu", OpKind::kPRelu, {Act("x", {3, 5}), Param("a", {5})},
                {Act("y", {3, 5})});
  // Input gradient 2 per element; the slope's reduction 2 per element.
  EXPECT_DOUBLE_EQ(SumFlops(MakeBackwardOps(p, {true}, 1)), 15 * 2 + 15 * 2);
  Op r = Costed("l2", OpKind::kReduceNorm, {Act("x", {6, 10})}, {Act("y", {6, 1})});
  EXPECT_DOUBLE_EQ(SumFlops(MakeBackwardOps(r, {true}, 1)), 60 * 2);
  Op c = Costed("cumsum", OpKind::kCumSum, {Act("x", {6, 10})}, {Act("y", {6, 10})});
  EXPECT_DOUBLE_EQ(SumFlops(MakeBackwardOps(c, {true}, 1)), 60);
}

TEST(Backward, NormsSaveStatisticsPerGroup) {
  Op g = Costed("gn", OpKind::kGroupNorm,
                {Act("x", {2, 8, 4, 4}), Param("s", {8}), Param("b", {8})},
                {Act("y", {2, 8, 4, 4})});
  g.attrs.ints["num_groups"] = {4};
  EXPECT_EQ(SavedForBackward(g)[1].NumElements(), 2 * 2 * 4);
  Op in = Costed("in", OpKind::kInstanceNorm,
                 {Act("x", {2, 8, 4, 4}), Param("s", {8}), Param("b", {8})},
                 {Act("y", {2, 8, 4, 4})});
  EXPECT_EQ(SavedForBackward(in)[1].NumElements(), 2 * 2 * 8);
  Op ln = Costed("ln", OpKind::kLayerNorm, {Act("x", {2, 3, 4, 5}), Param("s", {4, 5})},
                 {Act("y", {2, 3, 4, 5})});
  ln.attrs.ints["axis"] = {2};
  EXPECT_EQ(SavedForBackward(ln)[1].NumElements(), 2 * 6);
  ln.attrs.ints.clear();
  EXPECT_EQ(SavedForBackward(ln)[1].NumElements(), 2 * 24);
}

TEST(Backward, NoGradientThroughIndicesMasksAndRounding) {
  Op eq = Costed("eq", OpKind::kCompare, {Act("a", {4}), Act("b", {4})},
                 {TensorInfo{"m", DType::kBool, {4}}});
  EXPECT_FALSE(HasGradient(eq));
  Op arg = Costed("arg", OpKind::kReduceMax, {Act("x", {4, 3})},
                  {TensorInfo{"i", DType::kInt64, {4}}});
  EXPECT_FALSE(HasGradient(arg));
  Op fl = Costed("floor", OpKind::kRound, {Act("x", {4})}, {Act("y", {4})});
  EXPECT_FALSE(HasGradient(fl));
  Op rnd = Costed("rnd", OpKind::kRandom, {Act("x", {4})}, {Act("y", {4})});
  EXPECT_FALSE(HasGradient(rnd));
  Op relu = Costed("relu", OpKind::kRelu, {Act("x", {4})}, {Act("y", {4})});
  EXPECT_TRUE(HasGradient(relu));
}

TEST(Backward, TrainingGraphStopsAtNonDifferentiableOps) {
  OpGraph f = testing::TinyConvNet(2);
  Op arg;
  arg.name = "argmax";
  arg.kind = OpKind::kReduceMax;
  arg.type = "ArgMax";
  arg.inputs = {Act("p", {2, 10})};
  arg.outputs = {TensorInfo{"cls", DType::kInt64, {2}}};
  const int a = f.AddOp(arg);
  f.AddEdge(4, a, 80, "p");
  ASSERT_TRUE(FinalizeForwardCosts(f).ok());
  Result<OpGraph> g = BuildTrainingGraph(f);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(testing::FindOp(*g, "argmax.grad"), nullptr);
  EXPECT_NE(testing::FindOp(*g, "softmax.grad"), nullptr);
}

TEST(Backward, LstmTrainingGraphIsValid) {
  OpGraph f;
  f.AddOp(Lstm());
  Result<OpGraph> g = BuildTrainingGraph(f);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_TRUE(g->Validate().ok()) << g->Validate().ToString();
  EXPECT_NE(testing::FindOp(*g, "lstm.grad_weight"), nullptr);
  EXPECT_EQ(testing::FindOp(*g, "lstm.grad_data"), nullptr);
  EXPECT_NE(testing::FindOp(*g, "lstm.update"), nullptr);
}

}  // namespace
}  // namespace frugal
