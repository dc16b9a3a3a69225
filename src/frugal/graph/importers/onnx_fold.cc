#include "frugal/graph/importers/onnx_fold.h"

#include <vector>

namespace frugal::importers {
namespace {

// Float values are written back only where an op reads them as shapes
// (Resize / Upsample scales and roi); elsewhere a float tensor is data.
// Empty values stay with their producers: ONNX's inference misreads empty
// initializers (a Concat of one reports a rank error).
bool Writable(const onnx::NodeProto& consumer, const TensorValue& v) {
  if (v.NumElements() == 0) return false;
  if (!v.IsFloat()) return true;
  if (v.elem_type != onnx::TensorProto::FLOAT &&
      v.elem_type != onnx::TensorProto::DOUBLE) {
    return false;
  }
  return consumer.op_type() == "Resize" || consumer.op_type() == "Upsample";
}

}  // namespace

ValueMap PropagateValues(const onnx::GraphProto& graph, int opset,
                         const OnnxTypeMap& types) {
  ValueMap values;
  for (const auto& init : graph.initializer()) {
    std::optional<TensorValue> v = ValueFromTensor(init);
    if (v) values.emplace(init.name(), std::move(*v));
  }
  // A graph input that shares an initializer's name may be fed at run time.
  for (const auto& input : graph.input()) values.erase(input.name());
  // Initializers have dims but no inferred type; Shape may read them.
  std::unordered_map<std::string, onnx::TypeProto> init_types;
  for (const auto& init : graph.initializer()) {
    if (types.count(init.name()) != 0) continue;
    auto* t = init_types[init.name()].mutable_tensor_type();
    t->set_elem_type(init.data_type());
    for (int64_t d : init.dims()) t->mutable_shape()->add_dim()->set_dim_value(d);
  }
  std::vector<const TensorValue*> in;
  std::vector<const onnx::TypeProto*> in_types;
  for (const auto& node : graph.node()) {
    if (!IsDefaultOnnxDomain(node.domain())) continue;
    in.clear();
    in_types.clear();
    for (const auto& name : node.input()) {
      auto v = name.empty() ? values.end() : values.find(name);
      in.push_back(v == values.end() ? nullptr : &v->second);
      auto t = name.empty() ? types.end() : types.find(name);
      auto it = t != types.end() || name.empty() ? init_types.end() : init_types.find(name);
      in_types.push_back(t != types.end() ? t->second
                         : it != init_types.end() ? &it->second
                                                  : nullptr);
    }
    std::optional<std::vector<TensorValue>> out =
        EvaluateNode(node, opset, in, in_types);
    if (!out) continue;
    for (int i = 0; i < node.output_size() && i < static_cast<int>(out->size());
         ++i) {
      if (node.output(i).empty()) continue;
      values[node.output(i)] = std::move((*out)[i]);
    }
  }
  return values;
}

int WriteBackValues(const ValueMap& values, onnx::GraphProto* graph,
                    std::set<std::string>* folded) {
  // Constant outputs are already values to ONNX's inference.
  std::set<std::string> produced;
  for (const auto& node : graph->node()) {
    if (node.op_type() == "Constant") continue;
    for (const auto& out : node.output()) produced.insert(out);
  }
  std::set<std::string> existing;
  for (const auto& init : graph->initializer()) existing.insert(init.name());
  int rewired = 0;
  for (auto& node : *graph->mutable_node()) {
    for (auto& name : *node.mutable_input()) {
      if (name.empty() || produced.count(name) == 0) continue;
      auto v = values.find(name);
      if (v == values.end() || !Writable(node, v->second)) continue;
      const std::string folded_name = name + ":value";
      if (existing.insert(folded_name).second) {
        onnx::TensorProto* t = graph->add_initializer();
        t->set_name(folded_name);
        ValueToTensor(v->second, t);
        folded->insert(folded_name);
      }
      name = folded_name;
      ++rewired;
    }
  }
  return rewired;
}

int RemoveDeadNodes(onnx::GraphProto* graph) {
  if (graph->output_size() == 0) return 0;
  std::set<std::string> live;
  for (const auto& out : graph->output()) live.insert(out.name());
  std::vector<bool> keep(graph->node_size(), false);
  // Nodes come sorted, so one backward sweep sees every reader before its
  // producer; repeat for files that are not (Validate reports their cycles).
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = graph->node_size() - 1; i >= 0; --i) {
      if (keep[i]) continue;
      const auto& node = graph->node(i);
      for (const auto& out : node.output()) {
        if (!out.empty() && live.count(out) != 0) {
          keep[i] = true;
          break;
        }
      }
      if (!keep[i]) continue;
      changed = true;
      for (const auto& in : node.input()) live.insert(in);
    }
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  int removed = 0;
  for (int i = 0; i < graph->node_size(); ++i) {
    if (keep[i]) {
      *kept.Add() = std::move(*graph->mutable_node(i));
    } else {
      ++removed;
    }
  }
  graph->mutable_node()->Swap(&kept);
  return removed;
}

}  // namespace frugal::importers
