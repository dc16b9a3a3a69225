#include "frugal/graph/importers/onnx_rnn_weights.h"

#include <map>
#include <vector>

namespace frugal::importers {
namespace {

// Ops that only reorder or reshape: a weight passing through stays a weight.
bool IsViewOp(const std::string& op) {
  return op == "Slice" || op == "Concat" || op == "Unsqueeze" || op == "Squeeze" ||
         op == "Reshape" || op == "Transpose" || op == "Identity" || op == "Cast";
}

}  // namespace

bool IsRnnWeightSlot(const std::string& op_type, int slot) {
  return (op_type == "LSTM" || op_type == "GRU" || op_type == "RNN") && slot >= 1 && slot <= 3;
}

RnnWeightViews FindRnnWeightViews(const onnx::GraphProto& graph,
                                  const std::function<bool(const std::string&)>& is_param,
                                  const std::function<bool(const std::string&)>& is_constant) {
  // Every view of float initializers, with the initializers behind it.
  std::map<std::string, std::set<std::string>> behind;
  for (const auto& node : graph.node()) {
    if (!IsViewOp(node.op_type())) continue;
    std::set<std::string> src;
    bool ok = true;
    for (const auto& in : node.input()) {
      if (in.empty() || is_constant(in)) continue;
      if (is_param(in)) {
        src.insert(in);
      } else if (auto it = behind.find(in); it != behind.end()) {
        src.insert(it->second.begin(), it->second.end());
      } else {
        ok = false;  // reads an activation: not a weight view
        break;
      }
    }
    if (!ok || src.empty()) continue;
    for (const auto& out : node.output()) {
      if (!out.empty()) behind[out] = src;
    }
  }
  RnnWeightViews r;
  for (const auto& node : graph.node()) {
    for (int i = 0; i < node.input_size(); ++i) {
      if (!IsRnnWeightSlot(node.op_type(), i)) continue;
      auto it = behind.find(node.input(i));
      if (it == behind.end()) continue;
      r.views.insert(it->first);
      r.sources.insert(it->second.begin(), it->second.end());
    }
  }
  return r;
}

}  // namespace frugal::importers
