// Tiny hand-built graphs shared by the graph module's tests.
#ifndef FRUGAL_GRAPH_TEST_GRAPHS_H_
#define FRUGAL_GRAPH_TEST_GRAPHS_H_

#include "frugal/graph/op_cost.h"
#include "frugal/graph/op_graph.h"

namespace frugal::testing {

inline TensorInfo Act(const std::string& name, std::vector<int64_t> shape) {
  return TensorInfo{name, DType::kFloat32, std::move(shape), TensorRole::kActivation};
}
inline TensorInfo Param(const std::string& name, std::vector<int64_t> shape) {
  return TensorInfo{name, DType::kFloat32, std::move(shape), TensorRole::kParameter};
}

// An op of `kind` with the given tensors; costs not computed.
inline Op MakeOp(const std::string& name, OpKind kind, std::vector<TensorInfo> in = {},
                 std::vector<TensorInfo> out = {}, const std::string& type = "") {
  Op op;
  op.name = name;
  op.kind = kind;
  op.type = type;
  op.inputs = std::move(in);
  op.outputs = std::move(out);
  return op;
}

inline double TotalFlops(const OpGraph& g) {
  double f = 0;
  for (const Op& op : g.ops) f += op.flops;
  return f;
}

inline const Op* FindOp(const OpGraph& g, const std::string& name) {
  for (const Op& op : g.ops) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

// x[N,3,8,8] -> conv(4 filters 3x3, pad 1, bias) -> relu -> flatten
//   -> linear(256 -> 10, bias) -> softmax.  Costs finalized.
inline OpGraph TinyConvNet(int64_t n = 2) {
  OpGraph g;
  g.name = "tiny";
  g.batch = n;
  Op conv;
  conv.name = "conv";
  conv.kind = OpKind::kConv;
  conv.type = "Conv";
  conv.attrs.ints["kernel_shape"] = {3, 3};
  conv.attrs.ints["pads"] = {1, 1, 1, 1};
  conv.inputs = {Act("x", {n, 3, 8, 8}), Param("w", {4, 3, 3, 3}), Param("b", {4})};
  conv.outputs = {Act("c", {n, 4, 8, 8})};
  Op relu;
  relu.name = "relu";
  relu.kind = OpKind::kRelu;
  relu.inputs = {Act("c", {n, 4, 8, 8})};
  relu.outputs = {Act("r", {n, 4, 8, 8})};
  Op flat;
  flat.name = "flatten";
  flat.kind = OpKind::kFlatten;
  flat.inputs = {Act("r", {n, 4, 8, 8})};
  flat.outputs = {Act("f", {n, 256})};
  Op fc;
  fc.name = "fc";
  fc.kind = OpKind::kMatMul;
  fc.inputs = {Act("f", {n, 256}), Param("fc.w", {256, 10}), Param("fc.b", {10})};
  fc.outputs = {Act("y", {n, 10})};
  Op sm;
  sm.name = "softmax";
  sm.kind = OpKind::kSoftmax;
  sm.inputs = {Act("y", {n, 10})};
  sm.outputs = {Act("p", {n, 10})};
  int a = g.AddOp(conv), b = g.AddOp(relu), c = g.AddOp(flat), d = g.AddOp(fc),
      e = g.AddOp(sm);
  g.AddEdge(a, b, n * 4 * 64 * 4, "c");
  g.AddEdge(b, c, n * 4 * 64 * 4, "r");
  g.AddEdge(c, d, n * 256 * 4, "f");
  g.AddEdge(d, e, n * 10 * 4, "y");
  Status st = FinalizeForwardCosts(g);
  (void)st;
  return g;
}

}  // namespace frugal::testing

#endif  // FRUGAL_GRAPH_TEST_GRAPHS_H_
