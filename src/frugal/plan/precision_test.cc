#include "frugal/plan/precision.h"

#include <gtest/gtest.h>

#include "frugal/graph/op_cost.h"
#include "frugal/graph/test_graphs.h"
#include "frugal/graph/training.h"
#include "frugal/perf/test_catalog.h"

namespace frugal {
namespace {

using testing::Act;
using testing::FindOp;
using testing::MakeOp;
using testing::Param;
using testing::TinyConvNet;

OpGraph Apply(const OpGraph& g, Precision p) {
  Result<OpGraph> r = ApplyPrecision(g, p);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : OpGraph();
}

// ids[int64] -> embedding(table 100x16) -> linear(16->16) -> add(x) where x
// is a float32 graph input -> layer norm.
OpGraph EmbeddingNet() {
  OpGraph g;
  g.name = "emb";
  const int64_t n = 4;
  TensorInfo ids{"ids", DType::kInt64, {n}, TensorRole::kActivation};
  int e = g.AddOp(MakeOp("emb", OpKind::kEmbedding, {ids, Param("table", {100, 16})},
                         {Act("e", {n, 16})}));
  int l = g.AddOp(MakeOp("fc", OpKind::kMatMul, {Act("e", {n, 16}), Param("fc.w", {16, 16})},
                         {Act("h", {n, 16})}));
  int a = g.AddOp(MakeOp("add", OpKind::kAdd, {Act("h", {n, 16}), Act("x", {n, 16})},
                         {Act("s", {n, 16})}));
  int ln = g.AddOp(MakeOp("ln", OpKind::kLayerNorm, {Act("s", {n, 16})}, {Act("o", {n, 16})}));
  g.AddEdge(e, l, n * 16 * 4, "e");
  g.AddEdge(l, a, n * 16 * 4, "h");
  g.AddEdge(a, ln, n * 16 * 4, "s");
  EXPECT_TRUE(FinalizeForwardCosts(g).ok());
  return g;
}

TEST(Precision, NamesRoundTrip) {
  for (const char* name : {"fp32", "tf32", "fp16", "bf16", "amp-fp16", "amp-bf16"}) {
    Precision p;
    ASSERT_TRUE(ParsePrecision(name, &p)) << name;
    EXPECT_STREQ(PrecisionName(p), name);
  }
  Precision p;
  EXPECT_FALSE(ParsePrecision("fp8", &p));
  EXPECT_EQ(PrecisionList(), "fp32, tf32, fp16, bf16, amp-fp16, amp-bf16");
}

TEST(Precision, Fp32IsTheIdentity) {
  const OpGraph g = TinyConvNet();
  EXPECT_EQ(Apply(g, Precision::kFp32), g);
}

TEST(Precision, AutocastFollowsTheOpLists) {
  const OpGraph g = TinyConvNet(2);
  const OpGraph a = Apply(g, Precision::kAmpFp16);
  const Op* conv = FindOp(a, "conv");
  // Conv: half output, reads the half copies of x and its weights.
  EXPECT_EQ(conv->outputs[0].dtype, DType::kFloat16);
  EXPECT_EQ(conv->inputs[0].dtype, DType::kFloat16);
  EXPECT_EQ(conv->inputs[1].dtype, DType::kFloat32);  // the parameter stays fp32
  EXPECT_EQ(conv->attrs.strings.at("math"), "fp16");
  const int64_t conv_read = (2 * 3 * 64 + 4 * 27 + 4) * 2;
  EXPECT_EQ(conv->bytes_read, conv_read);
  EXPECT_EQ(conv->bytes_written, 2 * 4 * 64 * 2);
  EXPECT_EQ(conv->param_bytes, FindOp(g, "conv")->param_bytes);
  // relu: not listed, runs in its input's type; softmax: fp32 list.
  EXPECT_EQ(FindOp(a, "relu")->outputs[0].dtype, DType::kFloat16);
  EXPECT_EQ(FindOp(a, "fc")->outputs[0].dtype, DType::kFloat16);
  EXPECT_EQ(FindOp(a, "softmax")->outputs[0].dtype, DType::kFloat32);
  EXPECT_EQ(FindOp(a, "softmax")->bytes_read, 2 * 10 * 2);
  EXPECT_EQ(FindOp(a, "softmax")->bytes_written, 2 * 10 * 4);
  EXPECT_EQ(FindOp(a, "relu")->attrs.strings.count("math"), 0u);
  // Edges carry the new dtypes.
  EXPECT_EQ(a.edges[0].bytes, 2 * 4 * 64 * 2);
  EXPECT_TRUE(a.Validate().ok());
}

TEST(Precision, AutocastPromotesMixedInputsAndKeepsIntegers) {
  const OpGraph g = EmbeddingNet();
  const OpGraph a = Apply(g, Precision::kAmpBf16);
  const Op* emb = FindOp(a, "emb");
  EXPECT_EQ(emb->inputs[0].dtype, DType::kInt64);
  EXPECT_EQ(emb->outputs[0].dtype, DType::kFloat32);  // the fp32 table's rows
  EXPECT_EQ(FindOp(a, "fc")->outputs[0].dtype, DType::kBFloat16);
  // bf16 + fp32 graph input: type promotion to fp32.
  EXPECT_EQ(FindOp(a, "add")->outputs[0].dtype, DType::kFloat32);
  EXPECT_EQ(FindOp(a, "ln")->outputs[0].dtype, DType::kFloat32);

  const OpGraph h = Apply(g, Precision::kFp16);
  EXPECT_EQ(FindOp(h, "emb")->inputs[0].dtype, DType::kInt64);
  // The lookup's bytes (rows read, not the whole table) scale by its
  // tensors' ratio; the int64 ids do not shrink.
  EXPECT_LT(FindOp(h, "emb")->bytes_read, FindOp(g, "emb")->bytes_read);
  EXPECT_GT(FindOp(h, "emb")->bytes_read, FindOp(g, "emb")->bytes_read / 2);
  EXPECT_EQ(FindOp(h, "ln")->outputs[0].dtype, DType::kFloat16);
}

TEST(Precision, PureHalfCastsEveryFloatTensor) {
  const OpGraph g = TinyConvNet(2);
  const OpGraph h = Apply(g, Precision::kBf16);
  for (size_t i = 0; i < h.ops.size(); ++i) {
    for (const auto& t : h.ops[i].inputs) EXPECT_EQ(t.dtype, DType::kBFloat16) << t.name;
    for (const auto& t : h.ops[i].outputs) EXPECT_EQ(t.dtype, DType::kBFloat16) << t.name;
    EXPECT_EQ(h.ops[i].param_bytes * 2, g.ops[i].param_bytes);
    EXPECT_EQ(h.ops[i].bytes_read * 2, g.ops[i].bytes_read) << h.ops[i].name;
    EXPECT_EQ(h.ops[i].flops, g.ops[i].flops);
  }
  for (size_t e = 0; e < h.edges.size(); ++e) EXPECT_EQ(h.edges[e].bytes * 2, g.edges[e].bytes);
}

TEST(Precision, Tf32KeepsDtypesAndMarksGemms) {
  const OpGraph g = TinyConvNet(2);
  const OpGraph t = Apply(g, Precision::kTf32);
  EXPECT_EQ(FindOp(t, "conv")->attrs.strings.at("math"), "tf32");
  EXPECT_EQ(FindOp(t, "fc")->attrs.strings.at("math"), "tf32");
  EXPECT_EQ(FindOp(t, "relu")->attrs.strings.count("math"), 0u);
  for (size_t i = 0; i < t.ops.size(); ++i) {
    EXPECT_EQ(t.ops[i].bytes_read, g.ops[i].bytes_read);
    EXPECT_EQ(t.ops[i].outputs, g.ops[i].outputs);
  }
}

TEST(Precision, RefusesMeasuredAndTrainingGraphs) {
  OpGraph g = TinyConvNet(2);
  g.ops[1].measured_time_ms = 0.5;
  Result<OpGraph> r = ApplyPrecision(g, Precision::kAmpFp16);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("relu"), std::string::npos);
  Result<OpGraph> t = BuildTrainingGraph(TinyConvNet(2));
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(ApplyPrecision(*t, Precision::kBf16).ok());
}

// A graph's own dtypes name its precision: what ApplyPrecision wrote reads
// back as the same precision (an ONNX model exported in half, a converted
// graph), so its MFU is taken against the right peak.
TEST(Precision, GraphPrecisionReadsTheDtypesBack) {
  const OpGraph g = TinyConvNet(2);
  for (Precision p : {Precision::kFp32, Precision::kFp16, Precision::kBf16, Precision::kAmpFp16,
                      Precision::kAmpBf16}) {
    Result<Precision> got = GraphPrecision(Apply(g, p));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, p) << PrecisionName(p);
  }
  OpGraph d = g;
  for (Op& op : d.ops) {
    for (auto& t : op.inputs) t.dtype = IsFloatDType(t.dtype) ? DType::kFloat64 : t.dtype;
  }
  Result<Precision> f64 = GraphPrecision(d);
  ASSERT_FALSE(f64.ok());
  EXPECT_NE(f64.status().message().find("float64"), std::string::npos);
}

int64_t Params(const OpGraph& g) { return TotalParameters(g); }

TEST(PrecisionMemory, AmpAdamIsSixteenBytesPerParameterWithHalfActivations) {
  const OpGraph g = TinyConvNet(8);
  const int64_t n = Params(g);
  auto step = [](const OpGraph& f) {
    Result<OpGraph> t = BuildTrainingGraph(f);
    EXPECT_TRUE(t.ok());
    return EstimateStepMemory(*t);
  };
  const StepMemory fp32 = step(g);
  const StepMemory amp = step(Apply(g, Precision::kAmpFp16));
  const StepMemory half = step(Apply(g, Precision::kFp16));
  auto model_bytes = [](const StepMemory& m) {
    return m.breakdown.param_bytes + m.breakdown.grad_bytes + m.breakdown.optimizer_state_bytes;
  };
  EXPECT_EQ(model_bytes(fp32), 16 * n);
  EXPECT_EQ(model_bytes(amp), 16 * n);  // fp32 params, grads and both moments
  EXPECT_EQ(amp.breakdown.grad_bytes, 4 * n);
  EXPECT_EQ(model_bytes(half), 8 * n);  // Adam's moments in the parameter dtype
  EXPECT_EQ(half.breakdown.optimizer_state_bytes, 4 * n);
  // Saved activations: conv input x (half copy), relu output, fc input in
  // half; the norm-free net's softmax output fp32 under autocast.
  EXPECT_LT(amp.breakdown.activation_bytes, fp32.breakdown.activation_bytes);
  EXPECT_GT(amp.breakdown.activation_bytes, fp32.breakdown.activation_bytes / 2);
  EXPECT_EQ(half.breakdown.activation_bytes * 2, fp32.breakdown.activation_bytes);
  // The estimate per op still sums to the total.
  int64_t sum = 0;
  for (int64_t b : amp.op_bytes) sum += b;
  EXPECT_EQ(sum, amp.total_bytes);
}

TEST(PrecisionMemory, BackwardOpsTakeTheForwardDtypes) {
  Result<OpGraph> t = BuildTrainingGraph(Apply(TinyConvNet(2), Precision::kAmpFp16));
  ASSERT_TRUE(t.ok());
  const Op* wg = FindOp(*t, "conv.grad_weight");
  ASSERT_NE(wg, nullptr);
  EXPECT_EQ(wg->attrs.strings.at("math"), "fp16");
  EXPECT_EQ(wg->inputs[0].dtype, DType::kFloat16);   // grad of the half output
  EXPECT_EQ(wg->outputs[0].dtype, DType::kFloat32);  // the parameter's dtype
  const Op* dg = FindOp(*t, "fc.grad_data");
  ASSERT_NE(dg, nullptr);
  // Reads grad (half, 2x10) and the weight's half copy (256x10 + 10).
  EXPECT_EQ(dg->bytes_read, (2 * 10 + 256 * 10 + 10) * 2);
}

TEST(PrecisionSupport, ByGpu) {
  std::string note;
  const GpuSpec& v100 = testing::CatalogGpu("V100-SXM2-16GB");
  Status s = CheckPrecisionSupported(v100, Precision::kBf16, &note);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "--precision bf16: V100-SXM2-16GB has no bf16 tensor cores");
  EXPECT_FALSE(CheckPrecisionSupported(v100, Precision::kAmpBf16, &note).ok());
  ASSERT_TRUE(CheckPrecisionSupported(v100, Precision::kAmpFp16, &note).ok());
  EXPECT_EQ(note, "");
  ASSERT_TRUE(CheckPrecisionSupported(v100, Precision::kTf32, &note).ok());
  EXPECT_NE(note.find("no TF32 tensor cores"), std::string::npos);
  const GpuSpec& p100 = testing::CatalogGpu("P100-PCIE-16GB");
  ASSERT_TRUE(CheckPrecisionSupported(p100, Precision::kFp16, &note).ok());
  EXPECT_NE(note.find("FP32 rate"), std::string::npos);
  const GpuSpec& a100 = testing::CatalogGpu("A100-SXM4-80GB");
  EXPECT_TRUE(CheckPrecisionSupported(a100, Precision::kBf16, &note).ok());
  EXPECT_EQ(note, "");
}

TEST(PrecisionSupport, TorchDtypeDefaults) {
  EXPECT_EQ(PrecisionForTorchDtype("float16", true), Precision::kAmpFp16);
  EXPECT_EQ(PrecisionForTorchDtype("float16", false), Precision::kFp16);
  EXPECT_EQ(PrecisionForTorchDtype("bfloat16", true), Precision::kAmpBf16);
  EXPECT_EQ(PrecisionForTorchDtype("bfloat16", false), Precision::kBf16);
  EXPECT_EQ(PrecisionForTorchDtype("float32", true), Precision::kFp32);
  EXPECT_EQ(PrecisionForTorchDtype("int8", true), std::nullopt);
}

}  // namespace
}  // namespace frugal
