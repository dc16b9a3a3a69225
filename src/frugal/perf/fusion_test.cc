#include "frugal/perf/fusion.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "frugal/base/file_io.h"
#include "frugal/graph/importer.h"
#include "frugal/graph/op_cost.h"
#include "frugal/graph/test_graphs.h"
#include "frugal/perf/iteration.h"
#include "frugal/perf/test_catalog.h"

namespace frugal {
namespace {

using testing::Act;
using testing::Param;
using testing::TestGpu;

Op Unary(const std::string& name, OpKind kind, const std::string& in,
         const std::string& out) {
  Op op;
  op.name = name;
  op.kind = kind;
  op.inputs = {Act(in, {64, 256})};
  op.outputs = {Act(out, {64, 256})};
  return op;
}

Op MatMul(const std::string& name, const std::string& in, const std::string& w,
          const std::string& out) {
  Op op = Unary(name, OpKind::kMatMul, in, out);
  op.inputs.push_back(Param(w, {256, 256}));
  return op;
}

// x -> mm1 -> a (add bias b) -> r (relu) -> mm2 -> s (add: mm2 + a) -> out.
// The skip edge a -> s spans mm2.
OpGraph SkipGraph() {
  OpGraph g;
  g.name = "skip";
  Op mm1 = MatMul("mm1", "x", "w1", "h");
  Op add = Unary("a", OpKind::kAdd, "h", "a_out");
  add.inputs.push_back(Param("bias", {256}));
  Op relu = Unary("r", OpKind::kRelu, "a_out", "r_out");
  Op mm2 = MatMul("mm2", "r_out", "w2", "m");
  Op sum = Unary("s", OpKind::kAdd, "m", "s_out");
  sum.inputs.push_back(Act("a_out", {64, 256}));
  Op out = Unary("t", OpKind::kTanh, "s_out", "y");
  const int64_t act = 64 * 256 * 4;
  int i0 = g.AddOp(mm1), i1 = g.AddOp(add), i2 = g.AddOp(relu), i3 = g.AddOp(mm2),
      i4 = g.AddOp(sum), i5 = g.AddOp(out);
  g.AddEdge(i0, i1, act, "h");
  g.AddEdge(i1, i2, act, "a_out");
  g.AddEdge(i2, i3, act, "r_out");
  g.AddEdge(i3, i4, act, "m");
  g.AddEdge(i1, i4, act, "a_out");
  g.AddEdge(i4, i5, act, "s_out");
  (void)FinalizeForwardCosts(g);
  return g;
}

TEST(Fusion, ChainsBetweenGemmsBecomeOneKernelEach) {
  OpGraph g = SkipGraph();
  std::vector<FusedKernel> k = FusedKernels(g);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].ops, (std::vector<int>{1, 2}));  // bias add + relu
  EXPECT_EQ(k[1].ops, (std::vector<int>{4, 5}));  // residual add + tanh
  const int64_t act = 64 * 256 * 4;
  // Reads h and the bias; writes a_out (read again after mm2) and r_out.
  EXPECT_EQ(k[0].bytes, act + 256 * 4 + 2 * act);
  // Reads m and a_out; writes y (a graph output). s_out stays inside.
  EXPECT_EQ(k[1].bytes, 3 * act);
  EXPECT_EQ(k[0].cols, 256);
}

TEST(Fusion, FusedTimesGoToTheFirstOp) {
  auto model = NewRooflineModel();
  OpGraph g = SkipGraph();
  auto plain = PredictOps(*model, g, TestGpu());
  auto fused = PredictOps(*model, g, TestGpu(), true);
  ASSERT_TRUE(plain.ok() && fused.ok());
  EXPECT_DOUBLE_EQ((*fused)[0].time_ms, (*plain)[0].time_ms);  // GEMMs untouched
  EXPECT_DOUBLE_EQ((*fused)[3].time_ms, (*plain)[3].time_ms);
  EXPECT_GT((*fused)[1].time_ms, 0);
  EXPECT_EQ((*fused)[2].time_ms, 0);
  EXPECT_EQ((*fused)[2].basis, "fused into a");
  EXPECT_NE((*fused)[1].basis.find("fused kernel of 2 ops"), std::string::npos);
  double p = 0, f = 0;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    p += (*plain)[i].time_ms;
    f += (*fused)[i].time_ms;
  }
  EXPECT_LT(f, p);  // one launch and less traffic per chain
}

// Contracting every kernel to one node must leave a DAG, and the two ends of
// every residual connection stay apart.
TEST(Fusion, TransformerKernelsKeepTheGraphAcyclic) {
  const std::string path = ::testing::TempDir() + "fusion_bert.json";
  ASSERT_TRUE(WriteStringToFile(path, R"({"model_type": "bert",
      "hidden_size": 64, "num_hidden_layers": 3, "num_attention_heads": 4,
      "intermediate_size": 128, "vocab_size": 1000,
      "max_position_embeddings": 64})").ok());
  ImportOptions o;
  o.batch = 2;
  o.seq_len = 32;
  Result<OpGraph> g = ImportGraph(path, o, "hf");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  std::vector<FusedKernel> kernels = FusedKernels(*g);
  ASSERT_FALSE(kernels.empty());
  std::vector<int> node(g->ops.size());
  for (size_t i = 0; i < node.size(); ++i) node[i] = static_cast<int>(i);
  for (const FusedKernel& k : kernels) {
    for (int op : k.ops) node[op] = k.ops[0];
  }
  OpGraph contracted;
  for (size_t i = 0; i < g->ops.size(); ++i) contracted.AddOp(g->ops[i]);
  std::set<std::pair<int, int>> seen;
  for (const Edge& e : g->edges) {
    const int a = node[e.src], b = node[e.dst];
    if (a != b && seen.insert({a, b}).second) contracted.AddEdge(a, b, e.bytes);
  }
  EXPECT_TRUE(contracted.TopologicalOrder().ok());
  // The embedding kernel reads gathered rows, not the 1000-row table.
  const FusedKernel& embed = kernels[0];
  EXPECT_EQ(g->ops[embed.ops[0]].name, "embeddings.word_embeddings");
  EXPECT_LT(embed.bytes, 1000 * 64 * 4);
  for (const FusedKernel& k : kernels) {
    std::set<std::string> names;
    for (int op : k.ops) names.insert(g->ops[op].name);
    EXPECT_FALSE(names.count("encoder.layer.0.attention.output.residual") &&
                 names.count("encoder.layer.0.output.residual"));
  }
}

OpGraph TinyHf(const std::string& type) {
  const std::string path = ::testing::TempDir() + "fusion_" + type + ".json";
  EXPECT_TRUE(WriteStringToFile(path, R"({"model_type": ")" + type + R"(",
      "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
      "intermediate_size": 128, "vocab_size": 1000, "n_embd": 64, "n_layer": 2,
      "n_head": 4, "n_positions": 64, "max_position_embeddings": 64})").ok());
  ImportOptions o;
  o.batch = 2;
  o.seq_len = 32;
  Result<OpGraph> g = ImportGraph(path, o, "hf");
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? *g : OpGraph{};
}

// Inductor's fuse_attention rewrites scale + mask + softmax between the two
// batched matmuls into scaled_dot_product_attention: those ops cost nothing
// apart, the batched matmuls keep their GEMM time, the backward stays eager.
TEST(Fusion, AttentionBecomesOneKernelWithItsBatchedMatmuls) {
  for (const char* type : {"bert", "gpt2"}) {
    OpGraph g = TinyHf(type);
    int attention = 0;
    for (const FusedKernel& k : FusedKernels(g)) {
      if (k.scores < 0) continue;
      ++attention;
      EXPECT_EQ(g.ops[k.scores].kind, OpKind::kBatchMatMul);
      EXPECT_EQ(g.ops[k.context].kind, OpKind::kBatchMatMul);
      EXPECT_NE(g.ops[k.scores].name.find("scores"), std::string::npos) << type;
      EXPECT_NE(g.ops[k.context].name.find("context"), std::string::npos) << type;
    }
    EXPECT_EQ(attention, 2) << type;  // one per layer
    auto model = NewRooflineModel();
    auto plain = PredictOps(*model, g, TestGpu());
    auto fused = PredictOps(*model, g, TestGpu(), true);
    ASSERT_TRUE(plain.ok() && fused.ok());
    for (size_t i = 0; i < g.ops.size(); ++i) {
      const Op& op = g.ops[i];
      if (op.kind == OpKind::kSoftmax) {
        EXPECT_EQ((*fused)[i].time_ms, 0) << op.name;
        EXPECT_EQ((*fused)[i].basis.rfind("inside the fused attention of ", 0), 0u)
            << (*fused)[i].basis;
      }
      if (op.kind == OpKind::kBatchMatMul) {
        EXPECT_DOUBLE_EQ((*fused)[i].time_ms, (*plain)[i].time_ms) << op.name;
      }
    }
  }
}

TEST(Fusion, ASoftmaxOutsideAttentionIsNoAttentionKernel) {
  OpGraph g = SkipGraph();
  g.ops[2].kind = OpKind::kSoftmax;  // between two plain GEMMs
  for (const FusedKernel& k : FusedKernels(g)) EXPECT_LT(k.scores, 0);
  OpGraph train = TinyHf("bert");
  for (Op& op : train.ops) op.phase = Phase::kBackward;
  for (const FusedKernel& k : FusedKernels(train)) EXPECT_LT(k.scores, 0);
}

TEST(Fusion, ForwardAndBackwardStayApart) {
  OpGraph g = SkipGraph();
  g.ops[5].phase = Phase::kBackward;  // tanh: now s alone is left in kernel 2
  std::vector<FusedKernel> k = FusedKernels(g);
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].ops, (std::vector<int>{1, 2}));
}

TEST(Fusion, MeasuredAndComputeOpsNeverFuse) {
  Op mm;
  mm.kind = OpKind::kMatMul;
  EXPECT_FALSE(IsFusable(mm));
  Op relu;
  relu.kind = OpKind::kRelu;
  EXPECT_TRUE(IsFusable(relu));
  relu.measured_time_ms = 0.5;
  EXPECT_FALSE(IsFusable(relu));
}

}  // namespace
}  // namespace frugal
