#include "frugal/place/colocation.h"

#include <gtest/gtest.h>

#include <string>

namespace frugal::place {
namespace {

int AddOp(OpGraph& g, const std::string& name, const std::string& param = "",
          Phase phase = Phase::kForward, int forward_op = -1) {
  Op op;
  op.name = name;
  op.phase = phase;
  op.forward_op = forward_op;
  op.inputs.push_back({"x", DType::kFloat32, {1, 4}, TensorRole::kActivation});
  if (!param.empty()) op.inputs.push_back({param, DType::kFloat32, {4, 4}, TensorRole::kParameter});
  op.outputs.push_back({name + ".out", DType::kFloat32, {1, 4}, TensorRole::kActivation});
  return g.AddOp(std::move(op));
}

// A two-layer GPT-2-like slice: wte -> h.0.ln -> h.0.fc -> h.0.act ->
// h.1.fc -> lm_head (tied to wte), with a backward op and an update for h.0.fc.
struct Slice {
  OpGraph g;
  int wte, ln, fc0, act, fc1, head, grad, update;
  Slice() {
    g.source_format = "hf";
    wte = AddOp(g, "wte", "wte.weight");
    ln = AddOp(g, "h.0.ln", "h.0.ln.weight");
    fc0 = AddOp(g, "h.0.fc", "h.0.fc.weight");
    act = AddOp(g, "h.0.act");
    fc1 = AddOp(g, "h.1.fc", "h.1.fc.weight");
    head = AddOp(g, "lm_head", "wte.weight");
    grad = AddOp(g, "h.0.fc.grad_weight", "", Phase::kBackward, fc0);
    update = AddOp(g, "h.0.fc.update", "", Phase::kOptimizer, fc0);
    for (int i = 0; i + 1 <= head; ++i) g.AddEdge(i, i + 1, 16);
    g.AddEdge(head, grad, 16);
    g.AddEdge(grad, update, 16);
  }
};

// A torch export of nn.MultiheadAttention (batch_first) starts with a
// parameter-free transpose of its input inside the module: it goes with the
// module, not with the op that made its input, so a device map can place
// the module whole. An op fed by no other op (a Constant) goes with the op
// it feeds.
TEST(Colocate, ModuleGranularityKeepsAParameterModuleWhole) {
  OpGraph g;
  g.source_format = "onnx";
  const int prev = AddOp(g, "/prev/Gemm", "prev.weight");
  const int t = AddOp(g, "/attn/Transpose");
  const int mm = AddOp(g, "/attn/MatMul", "attn.in_proj_weight");
  const int k = AddOp(g, "/Constant");
  const int out = AddOp(g, "/out/Gemm", "out.weight");
  g.AddEdge(prev, t, 16);
  g.AddEdge(t, mm, 16);
  g.AddEdge(k, mm, 16);
  g.AddEdge(mm, out, 16);
  Result<Colocation> c = Colocate(g, Granularity::kModule);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_NE(c->color[mm], -1);
  EXPECT_EQ(c->color[t], c->color[mm]);
  EXPECT_EQ(c->color[k], c->color[mm]);
  EXPECT_NE(c->color[prev], c->color[mm]);
  EXPECT_NE(c->color[out], c->color[mm]);
}

TEST(Colocate, OpGranularityKeepsOnlyTheGraphsClasses) {
  Slice s;
  s.g.ops[s.ln].color_class = 7;
  s.g.ops[s.fc1].color_class = 7;
  Result<Colocation> c = Colocate(s.g, Granularity::kOp);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->groups, 1);
  EXPECT_EQ(c->color[s.ln], c->color[s.fc1]);
  EXPECT_EQ(c->color[s.fc0], -1);
  EXPECT_EQ(c->color[s.grad], -1);
}

TEST(Colocate, ModuleGranularityFollowsAutogradInputsAndTiedWeights) {
  Slice s;
  Result<Colocation> c = Colocate(s.g, Granularity::kModule);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const auto& col = c->color;
  // Backward and update with their forward op; the activation with its input.
  EXPECT_NE(col[s.fc0], -1);
  EXPECT_EQ(col[s.grad], col[s.fc0]);
  EXPECT_EQ(col[s.update], col[s.fc0]);
  EXPECT_EQ(col[s.act], col[s.fc0]);
  // lm_head reads wte.weight: one GPU.
  EXPECT_EQ(col[s.head], col[s.wte]);
  // Distinct modules stay free of each other.
  EXPECT_NE(col[s.ln], col[s.fc0]);
  EXPECT_EQ(c->modules.module_of_op[s.grad], "h.0.fc");
}

TEST(Colocate, AResidualAddFollowsItsBranchNotTheStream) {
  OpGraph g;
  g.source_format = "hf";
  const int fc0 = AddOp(g, "h.0.fc", "h.0.fc.weight");
  const int fc1 = AddOp(g, "h.1.fc", "h.1.fc.weight");
  const int add = AddOp(g, "h.1.residual");
  g.AddEdge(fc0, fc1, 16);
  g.AddEdge(fc0, add, 16);  // the stream, listed first
  g.AddEdge(fc1, add, 16);  // the branch
  Result<Colocation> c = Colocate(g, Granularity::kModule);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->color[add], c->color[fc1]);
  EXPECT_NE(c->color[fc0], c->color[fc1]);
}

TEST(Colocate, LayerGranularityKeepsBlocksWhole) {
  Slice s;
  Result<Colocation> c = Colocate(s.g, Granularity::kLayer);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->color[s.ln], c->color[s.fc0]);
  EXPECT_EQ(c->color[s.ln], c->color[s.update]);
  EXPECT_NE(c->color[s.fc0], c->color[s.fc1]);
}

TEST(Colocate, ModuleGranularityNeedsModuleNames) {
  OpGraph g;
  g.name = "profiled";
  g.source_format = "dnn_partitioning";
  AddOp(g, "node1", "w");
  Result<Colocation> c = Colocate(g, Granularity::kModule);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("needs module names"), std::string::npos);
  EXPECT_NE(c.status().message().find("--granularity op"), std::string::npos);
}

TEST(Granularity, ParsesItsNamesAndDefaultsByFormat) {
  EXPECT_EQ(*ParseGranularity("layer"), Granularity::kLayer);
  EXPECT_FALSE(ParseGranularity("rows").ok());
  OpGraph g;
  g.source_format = "onnx";
  EXPECT_EQ(DefaultGranularity(g), Granularity::kModule);
  g.source_format = "dnn_partitioning";
  EXPECT_EQ(DefaultGranularity(g), Granularity::kOp);
}

}  // namespace
}  // namespace frugal::place
