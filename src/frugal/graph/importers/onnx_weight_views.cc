#include "frugal/graph/importers/onnx_weight_views.h"

#include <unordered_map>
#include <vector>

namespace frugal::importers {
namespace {

// Layout ops plus the ones that cut or join weights (RNN gate reordering).
bool IsViewOp(const std::string& op) {
  return IsLayoutOp(op) || op == "Slice" || op == "Concat";
}

struct Behind {
  std::set<std::string> sources;
  bool whole = true;  // layout ops only, one source
};

}  // namespace

bool IsWeightSlot(const std::string& op, int slot) {
  if (op == "Conv" || op == "ConvTranspose" || op == "Gemm" ||
      op == "InstanceNormalization" || op == "LayerNormalization" ||
      op == "GroupNormalization") {
    return slot == 1 || slot == 2;
  }
  if (op == "MatMul" || op == "PRelu") return slot == 1;
  if (op == "BatchNormalization") return slot >= 1 && slot <= 4;
  if (op == "LSTM" || op == "GRU" || op == "RNN") return slot >= 1 && slot <= 3;
  if (op == "Gather") return slot == 0;
  return false;
}

bool IsLayoutOp(const std::string& op) {
  return op == "Transpose" || op == "Identity" || op == "Cast" || op == "Unsqueeze" ||
         op == "Squeeze" || op == "Reshape";
}

WeightViews FindWeightViews(const onnx::GraphProto& graph,
                            const std::function<bool(const std::string&)>& is_param,
                            const std::function<bool(const std::string&)>& is_constant) {
  std::unordered_map<std::string, Behind> behind;  // every view of float initializers
  std::unordered_map<std::string, const onnx::NodeProto*> producer;
  for (const auto& node : graph.node()) {
    if (!IsViewOp(node.op_type())) continue;
    Behind b;
    b.whole = IsLayoutOp(node.op_type());
    bool ok = true;
    int data_inputs = 0;
    for (const auto& in : node.input()) {
      if (in.empty() || is_constant(in)) continue;
      ++data_inputs;
      if (is_param(in)) {
        b.sources.insert(in);
      } else if (auto it = behind.find(in); it != behind.end()) {
        b.sources.insert(it->second.sources.begin(), it->second.sources.end());
        b.whole = b.whole && it->second.whole;
      } else {
        ok = false;  // reads an activation: not a weight view
        break;
      }
    }
    if (!ok || b.sources.empty()) continue;
    b.whole = b.whole && data_inputs == 1 && b.sources.size() == 1;
    for (const auto& out : node.output()) {
      if (out.empty()) continue;
      behind[out] = b;
      producer[out] = &node;
    }
  }
  WeightViews r;
  std::vector<std::string> todo;
  for (const auto& node : graph.node()) {
    for (int i = 0; i < node.input_size(); ++i) {
      if (!IsWeightSlot(node.op_type(), i)) continue;
      auto it = behind.find(node.input(i));
      if (it == behind.end()) continue;
      r.at_slots.insert(it->first);
      todo.push_back(it->first);
    }
  }
  // Every tensor on the way back to the sources.
  while (!todo.empty()) {
    const std::string t = todo.back();
    todo.pop_back();
    if (!r.chain.insert(t).second) continue;
    for (const auto& in : producer.at(t)->input()) {
      if (behind.count(in) != 0) todo.push_back(in);
      if (is_param(in)) r.sources.insert(in);
    }
  }
  std::set<std::string> read_outside;  // sources some node outside the chains reads
  for (const auto& node : graph.node()) {
    bool in_chain = false;
    for (const auto& out : node.output()) in_chain = in_chain || r.chain.count(out) != 0;
    if (in_chain) continue;
    for (const auto& in : node.input()) {
      if (r.sources.count(in) != 0) read_outside.insert(in);
    }
  }
  for (const std::string& end : r.at_slots) {
    const Behind& b = behind.at(end);
    if (b.whole && read_outside.count(*b.sources.begin()) != 0)
      r.tied_view_of[end] = *b.sources.begin();
  }
  return r;
}

}  // namespace frugal::importers
