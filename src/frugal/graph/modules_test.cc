#include "frugal/graph/modules.h"

#include <gtest/gtest.h>

#include <string>

namespace frugal {
namespace {

TEST(ScopeToModulePath, FollowsPyTorchExportScopes) {
  EXPECT_EQ(ScopeToModulePath("/conv1/Conv"), "conv1");
  EXPECT_EQ(ScopeToModulePath("/layer1/layer1.0/conv1/Conv"), "layer1.0.conv1");
  EXPECT_EQ(ScopeToModulePath("/layer1/layer1.0/downsample/downsample.0/Conv"),
            "layer1.0.downsample.0");
  EXPECT_EQ(ScopeToModulePath("/features/features.1/conv/conv.0/conv.0.0/Conv"),
            "features.1.conv.0.0");
  EXPECT_EQ(ScopeToModulePath("/bert/encoder/layer.0/attention/self/query/MatMul"),
            "bert.encoder.layer.0.attention.self.query");
  EXPECT_EQ(ScopeToModulePath("/Flatten"), "");
  EXPECT_EQ(ScopeToModulePath("h.3.attn.c_attn"), "h.3.attn.c_attn");
  EXPECT_EQ(ScopeToModulePath(""), "");
}

Op MakeOp(const std::string& name, const std::string& param = "") {
  Op op;
  op.name = name;
  op.inputs.push_back({"x", DType::kFloat32, {1, 4}, TensorRole::kActivation});
  if (!param.empty()) op.inputs.push_back({param, DType::kFloat32, {4, 4}, TensorRole::kParameter});
  op.outputs.push_back({name + ".out", DType::kFloat32, {1, 4}, TensorRole::kActivation});
  return op;
}

TEST(MapModules, ParameterModulesAndTheirEnclosingModules) {
  OpGraph g;
  g.source_format = "hf";
  g.AddOp(MakeOp("wte", "wte.weight"));
  g.AddOp(MakeOp("h.0.attn.c_attn", "h.0.attn.c_attn.weight"));
  g.AddOp(MakeOp("h.0.attn.softmax"));
  g.AddOp(MakeOp("h.0.attn_residual"));
  g.AddOp(MakeOp("embed_add"));
  g.AddOp(MakeOp("lm_head", "wte.weight"));  // tied: still its own module
  Op grad = MakeOp("h.0.attn.c_attn.grad_weight");
  grad.phase = Phase::kBackward;
  grad.forward_op = 1;
  g.AddOp(grad);
  ModuleMap m = MapModules(g);
  ASSERT_TRUE(m.has_modules());
  EXPECT_EQ(m.module_of_op,
            (std::vector<std::string>{"wte", "h.0.attn.c_attn", "h.0.attn", "h.0", "", "lm_head",
                                      "h.0.attn.c_attn"}));
  EXPECT_EQ(m.param_modules, (std::set<std::string>{"wte", "h.0.attn.c_attn", "lm_head"}));
}

TEST(MapModules, OnnxWeightsNameTheirModules) {
  OpGraph g;
  g.source_format = "onnx";
  g.AddOp(MakeOp("/layer1/layer1.0/conv1/Conv", "layer1.0.conv1.weight"));
  g.AddOp(MakeOp("/layer1/layer1.0/relu_1/Relu"));
  g.AddOp(MakeOp("Gemm_7", "fc.weight"));          // an unscoped node
  g.AddOp(MakeOp("/fc2/Gemm", "onnx::Gemm_123"));  // a folded weight
  ModuleMap m = MapModules(g);
  EXPECT_EQ(m.module_of_op, (std::vector<std::string>{"layer1.0.conv1", "layer1.0", "fc", "fc2"}));
}

TEST(MapModules, ProfiledGraphsHaveNone) {
  OpGraph g;
  g.source_format = "dnn_partitioning";
  g.AddOp(MakeOp("node1", "node1.weight"));
  EXPECT_FALSE(MapModules(g).has_modules());
}

}  // namespace
}  // namespace frugal
