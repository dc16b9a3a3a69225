#include "frugal/perf/features.h"

#include <gtest/gtest.h>

#include <cmath>

#include "frugal/graph/op_cost.h"
#include "frugal/graph/test_graphs.h"
#include "frugal/graph/training.h"

namespace frugal {
namespace {

GpuSpec FakeGpu() {
  GpuSpec g;
  g.name = "FAKE";
  g.mem_bw_gbps = 100;  // 1e11 B/s
  g.fp32_tflops = 10;   // 1e13 FLOP/s
  g.sm_count = 40;
  g.l2_mib = 4;
  g.boost_clock_mhz = 1500;
  return g;
}

TEST(OpWork, CountsFlopsAndElements) {
  OpShape conv{.op = PerfOp::kConv,
               .b = 2,
               .in_channels = 3,
               .out_channels = 4,
               .kernel = 3,
               .image = 8,
               .stride = 1,
               .padding = 1};
  OpWork w = WorkOf(conv);
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 2 * 4 * 8 * 8 * 3 * 3 * 3);
  EXPECT_DOUBLE_EQ(w.weight_elems, 4 * 3 * 3 * 3);
  EXPECT_DOUBLE_EQ(w.output_elems, 2 * 4 * 8 * 8);

  OpShape bmm{.op = PerfOp::kBmm, .b = 3, .m = 4, .n = 5, .k = 6};
  w = WorkOf(bmm);
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 3 * 4 * 5 * 6);
  EXPECT_DOUBLE_EQ(w.bytes, 4.0 * (3 * 4 * 6 + 3 * 6 * 5 + 3 * 4 * 5));

  OpShape add{.op = PerfOp::kAdd, .b = 10, .h = 100};
  EXPECT_DOUBLE_EQ(WorkOf(add).bytes, 4.0 * 3 * 1000);
}

TEST(Roofline, IsTheSlowerOfComputeAndMemoryPlusLaunch) {
  Result<GpuFeatures> g = GpuFeaturesOf(FakeGpu());
  ASSERT_TRUE(g.ok());
  OpShape add{.op = PerfOp::kAdd, .b = 1000, .h = 1000};  // 12 MB, memory-bound
  EXPECT_NEAR(RooflineMs(add, *g), 1e3 * 12e6 / 1e11 + kLaunchOverheadMs,
              1e-12);
  OpShape lin{.op = PerfOp::kLinear, .m = 4096, .n = 4096, .k = 4096};
  EXPECT_NEAR(RooflineMs(lin, *g),
              1e3 * 2.0 * 4096 * 4096 * 4096 / 1e13 + kLaunchOverheadMs, 1e-9);
}

TEST(GpuFeatures, ImputesSmsAndNeedsFp32) {
  GpuSpec g = FakeGpu();
  g.sm_count.reset();
  g.l2_mib.reset();
  Result<GpuFeatures> f = GpuFeaturesOf(g);
  ASSERT_TRUE(f.ok());
  EXPECT_NEAR(f->sm_count, std::round(10e12 / (2.0 * 128 * 1500e6)), 1e-9);
  EXPECT_EQ(f->l2_bytes, 0);
  g.fp32_tflops.reset();
  EXPECT_EQ(GpuFeaturesOf(g).status().code(), StatusCode::kInvalidArgument);
}

TEST(LearnedFeatures, SameLengthForEveryOp) {
  Result<GpuFeatures> g = GpuFeaturesOf(FakeGpu());
  ASSERT_TRUE(g.ok());
  const OpShape shapes[] = {{.op = PerfOp::kConv,
                             .b = 1,
                             .in_channels = 3,
                             .out_channels = 8,
                             .kernel = 3,
                             .image = 32,
                             .stride = 2,
                             .padding = 1},
                            {.op = PerfOp::kLinear, .m = 7, .n = 9, .k = 11},
                            {.op = PerfOp::kSoftmax, .b = 4, .h = 1000},
                            {.op = PerfOp::kTanh, .b = 1, .h = 1}};
  for (const auto& s : shapes) {
    std::vector<float> f = LearnedFeatures(s, *g);
    EXPECT_EQ(f.size(), FeatureNames().size()) << s.ToString();
  }
}

// Index of a feature by name; -1 when absent.
int FeatureIndex(const std::string& name) {
  const auto& n = FeatureNames();
  for (size_t i = 0; i < n.size(); ++i) {
    if (n[i] == name) return static_cast<int>(i);
  }
  return -1;
}

TEST(LearnedFeatures, BoardPowerOnlyForHeavyOpsAndOnlyWhenKnown) {
  const int tdp = FeatureIndex("log2_tdp_w");
  const int per_watt = FeatureIndex("log2_fp32_flops_per_watt");
  ASSERT_GE(tdp, 0);
  ASSERT_GE(per_watt, 0);
  GpuSpec spec = FakeGpu();
  spec.tdp_w = 250;
  Result<GpuFeatures> g = GpuFeaturesOf(spec);
  ASSERT_TRUE(g.ok());
  EXPECT_DOUBLE_EQ(g->tdp_w, 250);
  const OpShape lin{.op = PerfOp::kLinear, .m = 64, .n = 64, .k = 64};
  const OpShape add{.op = PerfOp::kAdd, .b = 4, .h = 1000};
  std::vector<float> f = LearnedFeatures(lin, *g);
  EXPECT_NEAR(f[tdp], std::log2(250.0), 1e-5);
  EXPECT_NEAR(f[per_watt], std::log2(1e13 / 250), 1e-4);
  f = LearnedFeatures(add, *g);
  EXPECT_TRUE(std::isnan(f[tdp]));
  EXPECT_TRUE(std::isnan(f[per_watt]));

  spec.tdp_w.reset();  // not in the catalog: missing, not zero
  g = GpuFeaturesOf(spec);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->tdp_w, 0);
  f = LearnedFeatures(lin, *g);
  EXPECT_TRUE(std::isnan(f[tdp]));
  EXPECT_TRUE(std::isnan(f[per_watt]));
}

using testing::Act;
using testing::MakeOp;
using testing::Param;

// x[2,3,16,16] -> conv 8x3x3 s2 p1 -> relu -> flatten -> linear 512->10
// -> [2,1,10] x [2,10,5] bmm -> softmax -> exp.
OpGraph SmallNet() {
  OpGraph g;
  Op conv = MakeOp("conv", OpKind::kConv);
  conv.attrs.ints["kernel_shape"] = {3, 3};
  conv.attrs.ints["strides"] = {2, 2};
  conv.attrs.ints["pads"] = {1, 1, 1, 1};
  conv.inputs = {Act("x", {2, 3, 16, 16}), Param("w", {8, 3, 3, 3})};
  conv.outputs = {Act("c", {2, 8, 8, 8})};
  Op relu = MakeOp("relu", OpKind::kRelu);
  relu.inputs = {Act("c", {2, 8, 8, 8})};
  relu.outputs = {Act("r", {2, 8, 8, 8})};
  Op flat = MakeOp("flat", OpKind::kFlatten);
  flat.inputs = {Act("r", {2, 8, 8, 8})};
  flat.outputs = {Act("f", {2, 512})};
  Op fc = MakeOp("fc", OpKind::kMatMul);
  fc.inputs = {Act("f", {2, 512}), Param("fc.w", {512, 10})};
  fc.outputs = {Act("y", {2, 10})};
  Op rs = MakeOp("reshape", OpKind::kReshape);
  rs.inputs = {Act("y", {2, 10})};
  rs.outputs = {Act("y3", {2, 1, 10})};
  Op bmm = MakeOp("bmm", OpKind::kBatchMatMul);
  bmm.inputs = {Act("y3", {2, 1, 10}), Act("v", {2, 10, 5})};
  bmm.outputs = {Act("z", {2, 1, 5})};
  Op sm = MakeOp("softmax", OpKind::kSoftmax);
  sm.inputs = {Act("z", {2, 1, 5})};
  sm.outputs = {Act("p", {2, 1, 5})};
  Op ex = MakeOp("exp", OpKind::kExp);
  ex.inputs = {Act("p", {2, 1, 5})};
  ex.outputs = {Act("e", {2, 1, 5})};
  int ids[8];
  int i = 0;
  for (Op* op : {&conv, &relu, &flat, &fc, &rs, &bmm, &sm, &ex})
    ids[i++] = g.AddOp(*op);
  const char* tensors[] = {"c", "r", "f", "y", "y3", "z", "p"};
  for (int j = 0; j + 1 < 8; ++j) g.AddEdge(ids[j], ids[j + 1], 4, tensors[j]);
  EXPECT_TRUE(FinalizeForwardCosts(g).ok());
  return g;
}

TEST(QueryForOp, MapsForwardOpsToMeasuredShapes) {
  OpGraph g = SmallNet();
  OpQuery conv = QueryForOp(g.ops[0]);
  ASSERT_TRUE(conv.shape) << conv.basis;
  EXPECT_EQ(conv.shape->ToString(), "conv b=2 cin=3 cout=8 k=3 img=16 s=2 p=1");
  EXPECT_DOUBLE_EQ(WorkOf(*conv.shape).flops, g.ops[0].flops);
  OpQuery fc = QueryForOp(g.ops[3]);
  ASSERT_TRUE(fc.shape);
  EXPECT_EQ(fc.shape->ToString(), "linear b=1 m=2 n=10 k=512");
  OpQuery bmm = QueryForOp(g.ops[5]);
  ASSERT_TRUE(bmm.shape);
  EXPECT_EQ(bmm.shape->ToString(), "bmm b=2 m=1 n=5 k=10");
  OpQuery sm = QueryForOp(g.ops[6]);
  ASSERT_TRUE(sm.shape);
  EXPECT_EQ(sm.shape->ToString(), "softmax b=2 h=5");
  EXPECT_EQ(QueryForOp(g.ops[1]).shape->ToString(), "relu b=128 h=8");
  EXPECT_FALSE(QueryForOp(g.ops[7]).shape);  // exp: no data
  EXPECT_FALSE(QueryForOp(g.ops[2]).shape);  // flatten
}

TEST(QueryForOp, GradientsOfProductsKeepTheirFlops) {
  Result<OpGraph> t = BuildTrainingGraph(SmallNet());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  int products = 0;
  for (const Op& op : t->ops) {
    if (op.phase != Phase::kBackward) continue;
    OpQuery q = QueryForOp(op);
    if (CategoryOf(op.kind) == OpCategory::kCompute) {
      ASSERT_TRUE(q.shape) << op.name << ": " << q.basis;
      EXPECT_NEAR(WorkOf(*q.shape).flops, op.flops, 1e-9 * op.flops + 1)
          << op.name;
      ++products;
    } else if (op.kind == OpKind::kRelu) {
      ASSERT_TRUE(q.shape);
      EXPECT_EQ(q.shape->op, PerfOp::kMul);
    } else if (op.kind == OpKind::kSoftmax) {
      EXPECT_FALSE(q.shape) << "softmax backward has no measurements";
    }
  }
  // conv: weight (x needs none); fc: data + weight; bmm: its first input.
  EXPECT_EQ(products, 4);
}

// A select is priced as the elementwise pass that moves its bytes: GPT-2's
// causal mask (scores, a broadcast bool mask, a scalar fill) like `x * 2`,
// a select between two full tensors like `x * y`.
TEST(QueryForOp, WhereIsPricedAsTheElementwisePassOfItsBytes) {
  Op mask = MakeOp("causal_mask", OpKind::kWhere);
  mask.inputs = {Act("scores", {2, 4, 16, 16}), Act("causal", {1, 1, 16, 16})};
  mask.inputs[1].dtype = DType::kBool;
  mask.outputs = {Act("masked", {2, 4, 16, 16})};
  OpQuery q = QueryForOp(mask);
  ASSERT_TRUE(q.shape) << q.basis;
  EXPECT_EQ(q.shape->ToString(), "mulu b=128 h=16");
  EXPECT_EQ(q.basis, "where as mulu");
  Op select = MakeOp("select", OpKind::kWhere);
  select.inputs = {Act("cond", {8, 16}), Act("x", {8, 16}), Act("y", {8, 16})};
  select.inputs[0].dtype = DType::kBool;
  select.outputs = {Act("z", {8, 16})};
  OpQuery both = QueryForOp(select);
  ASSERT_TRUE(both.shape) << both.basis;
  EXPECT_EQ(both.shape->ToString(), "mul b=8 h=16");
}

// BERT's additive mask [B, 1, 1, S] stays in cache while the add sweeps the
// scores: one tensor read, like `x + 2`; a residual add reads two; an operand
// larger than 1/16 of the output (a bias broadcast over a batch of 2) too.
TEST(QueryForOp, ABroadcastOperandIsReadOnce) {
  Op mask = MakeOp("mask", OpKind::kAdd);
  mask.inputs = {Act("scores", {2, 4, 16, 16}), Act("ext", {2, 1, 1, 16})};
  mask.outputs = {Act("masked", {2, 4, 16, 16})};
  OpQuery q = QueryForOp(mask);
  ASSERT_TRUE(q.shape) << q.basis;
  EXPECT_EQ(q.shape->ToString(), "addu b=128 h=16");
  Op residual = MakeOp("residual", OpKind::kAdd);
  residual.inputs = {Act("a", {32, 16}), Act("b", {32, 16})};
  residual.outputs = {Act("c", {32, 16})};
  ASSERT_TRUE(QueryForOp(residual).shape);
  EXPECT_EQ(QueryForOp(residual).shape->op, PerfOp::kAdd);
  Op half = MakeOp("half", OpKind::kMul);
  half.inputs = {Act("a", {2, 64, 16}), Act("b", {1, 64, 16})};
  half.outputs = {Act("c", {2, 64, 16})};
  ASSERT_TRUE(QueryForOp(half).shape);
  EXPECT_EQ(QueryForOp(half).shape->op, PerfOp::kMul);
}

// a -> relu -> b (a's output "c", the relu's "r").
OpGraph ConvReluConv(const Op& a, const Op& b) {
  OpGraph g;
  Op relu = MakeOp("relu", OpKind::kRelu);
  relu.inputs = {Act("c", a.outputs[0].shape)};
  relu.outputs = {Act("r", a.outputs[0].shape)};
  const int ia = g.AddOp(a), ir = g.AddOp(relu), ib = g.AddOp(b);
  g.AddEdge(ia, ir, 4, "c");
  g.AddEdge(ir, ib, 4, "r");
  EXPECT_TRUE(FinalizeForwardCosts(g).ok());
  return g;
}

// Every conv of g's training step, forward and gradients, is priced as
// `as` with its own FLOPs; returns how many there are.
int ConvsKeepTheirFlops(const OpGraph& g, PerfOp as) {
  Result<OpGraph> t = BuildTrainingGraph(g);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (!t.ok()) return 0;
  int convs = 0;
  for (const Op& op : t->ops) {
    if (op.kind != OpKind::kConv) continue;
    OpQuery q = QueryForOp(op);
    EXPECT_TRUE(q.shape) << op.name << ": " << q.basis;
    if (!q.shape) continue;
    EXPECT_EQ(q.shape->op, as) << op.name;
    EXPECT_NEAR(WorkOf(*q.shape).flops, op.flops, 1e-9 * op.flops + 1) << op.name;
    ++convs;
  }
  return convs;
}

// x[2,3,8,16,16] -> conv3d 8x3x3x3 s(1,2,2) p1 -> relu -> conv3d 4x3x1x1:
// each 3-D conv and its gradients are priced as the 2-D conv of the same
// implicit GEMM (output depth in the batch, kernel depth in the channels).
TEST(QueryForOp, ThreeDConvsArePricedAsTheirTwoDGemm) {
  Op a = MakeOp("a", OpKind::kConv);
  a.attrs.ints["kernel_shape"] = {3, 3, 3};
  a.attrs.ints["strides"] = {1, 2, 2};
  a.attrs.ints["pads"] = {1, 1, 1, 1, 1, 1};
  a.inputs = {Act("x", {2, 3, 8, 16, 16}), Param("a.w", {8, 3, 3, 3, 3})};
  a.outputs = {Act("c", {2, 8, 8, 8, 8})};
  Op b = MakeOp("b", OpKind::kConv);  // (2+1)-D style: depth-only kernel
  b.attrs.ints["kernel_shape"] = {3, 1, 1};
  b.attrs.ints["pads"] = {1, 0, 0, 1, 0, 0};
  b.inputs = {Act("r", {2, 8, 8, 8, 8}), Param("b.w", {4, 8, 3, 1, 1})};
  b.outputs = {Act("y", {2, 4, 8, 8, 8})};
  const OpGraph g = ConvReluConv(a, b);
  OpQuery qa = QueryForOp(g.ops[0]);
  ASSERT_TRUE(qa.shape) << qa.basis;
  EXPECT_EQ(qa.shape->ToString(), "conv b=16 cin=9 cout=8 k=3 img=16 s=2 p=1");
  EXPECT_NE(qa.basis.find("3-D as 2-D"), std::string::npos) << qa.basis;
  OpQuery qb = QueryForOp(g.ops[2]);
  ASSERT_TRUE(qb.shape) << qb.basis;
  EXPECT_EQ(qb.shape->ToString(), "conv b=16 cin=24 cout=4 k=1 img=8 s=1 p=0");
  // a, b; a: weight gradient (x needs none); b: data + weight gradients.
  EXPECT_EQ(ConvsKeepTheirFlops(g, PerfOp::kConv), 5);
}

// x[2,16,20] -> conv1d 24x16x5 s2 p2 -> relu -> conv1d 8x24x3 p1: each
// priced as the linear layer of its implicit GEMM, gradients as its
// gradients, with the same FLOPs.
TEST(QueryForOp, OneDConvsArePricedAsTheirGemm) {
  Op a = MakeOp("a", OpKind::kConv);
  a.attrs.ints["kernel_shape"] = {5};
  a.attrs.ints["strides"] = {2};
  a.attrs.ints["pads"] = {2, 2};
  a.inputs = {Act("x", {2, 16, 20}), Param("a.w", {24, 16, 5})};
  a.outputs = {Act("c", {2, 24, 10})};
  Op b = MakeOp("b", OpKind::kConv);
  b.attrs.ints["kernel_shape"] = {3};
  b.attrs.ints["pads"] = {1, 1};
  b.inputs = {Act("r", {2, 24, 10}), Param("b.w", {8, 24, 3})};
  b.outputs = {Act("y", {2, 8, 10})};
  const OpGraph g = ConvReluConv(a, b);
  OpQuery qa = QueryForOp(g.ops[0]);
  ASSERT_TRUE(qa.shape) << qa.basis;
  EXPECT_EQ(qa.shape->op, PerfOp::kLinear);
  EXPECT_EQ(qa.shape->m, 20);  // 2 x 10 output positions
  EXPECT_EQ(qa.shape->k, 80);  // 16 channels x 5 taps
  EXPECT_EQ(qa.shape->n, 24);
  EXPECT_EQ(ConvsKeepTheirFlops(g, PerfOp::kLinear), 5);
}

TEST(QueryForOp, GroupedConvHasNoShape) {
  Op conv = MakeOp("dw", OpKind::kConv);
  conv.attrs.ints["group"] = {8};
  conv.inputs = {Act("x", {1, 8, 8, 8}), Param("w", {8, 1, 3, 3})};
  conv.outputs = {Act("y", {1, 8, 6, 6})};
  OpQuery q = QueryForOp(conv);
  EXPECT_FALSE(q.shape);
  EXPECT_NE(q.basis.find("grouped"), std::string::npos);
}

}  // namespace
}  // namespace frugal
