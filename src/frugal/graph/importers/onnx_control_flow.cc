#include "frugal/graph/importers/onnx_control_flow.h"

#include <map>
#include <optional>
#include <set>
#include <vector>

namespace frugal::importers {
namespace {

using NameMap = std::map<std::string, std::string>;

const onnx::GraphProto* GraphAttr(const onnx::NodeProto& node, const char* name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name && a.has_g()) return &a.g();
  }
  return nullptr;
}

std::string Renamed(const NameMap& map, const std::string& name) {
  auto it = map.find(name);
  return it == map.end() ? name : it->second;
}

// Renames the inputs of `node` and, recursively, the outer-scope names its
// subgraphs read.
void RenameInputs(const NameMap& map, onnx::NodeProto* node) {
  for (auto& in : *node->mutable_input()) in = Renamed(map, in);
  for (auto& a : *node->mutable_attribute()) {
    if (!a.has_g()) continue;
    for (auto& n : *a.mutable_g()->mutable_node()) RenameInputs(map, &n);
  }
}

// Copies `body`'s initializers and nodes into `out`, every name it produces
// prefixed with `prefix`; `map` holds the renaming of names bound outside
// (subgraph inputs) and receives the body's own.
void CopyBody(const onnx::GraphProto& body, const std::string& prefix, NameMap* map,
              onnx::GraphProto* graph, std::vector<onnx::NodeProto>* out) {
  for (const auto& init : body.initializer()) {
    onnx::TensorProto* t = graph->add_initializer();
    *t = init;
    t->set_name(prefix + init.name());
    (*map)[init.name()] = t->name();
  }
  for (const auto& node : body.node()) {
    for (const auto& o : node.output()) {
      if (!o.empty()) (*map)[o] = prefix + o;
    }
  }
  for (const auto& vi : body.value_info()) {
    auto it = map->find(vi.name());
    if (it == map->end()) continue;
    onnx::ValueInfoProto* copy = graph->add_value_info();
    *copy = vi;
    copy->set_name(it->second);
  }
  for (const auto& node : body.node()) {
    onnx::NodeProto n = node;
    RenameInputs(*map, &n);
    for (auto& o : *n.mutable_output()) o = Renamed(*map, o);
    n.set_name(prefix + (node.name().empty() ? node.op_type() : node.name()));
    out->push_back(std::move(n));
  }
}

onnx::NodeProto Identity(const std::string& in, const std::string& out, const std::string& name) {
  onnx::NodeProto n;
  n.set_op_type("Identity");
  n.set_name(name);
  n.add_input(in);
  n.add_output(out);
  return n;
}

std::string NodeName(const onnx::NodeProto& node, int index) {
  return node.name().empty() ? node.op_type() + "_" + std::to_string(index) : node.name();
}

// The branch's nodes, then one Identity per output.
std::optional<std::vector<onnx::NodeProto>> InlineIf(const onnx::NodeProto& node, int index,
                                                     const ValueMap& values,
                                                     onnx::GraphProto* graph) {
  if (node.input_size() < 1) return std::nullopt;
  auto cond = values.find(node.input(0));
  if (cond == values.end() || cond->second.NumElements() != 1) return std::nullopt;
  const bool take_then = cond->second.AsDouble(0) != 0;
  const onnx::GraphProto* branch = GraphAttr(node, take_then ? "then_branch" : "else_branch");
  if (branch == nullptr || branch->output_size() != node.output_size()) return std::nullopt;
  const std::string prefix = NodeName(node, index) + "/";
  NameMap map;
  std::vector<onnx::NodeProto> out;
  CopyBody(*branch, prefix, &map, graph, &out);
  for (int k = 0; k < node.output_size(); ++k) {
    if (node.output(k).empty()) continue;
    out.push_back(Identity(Renamed(map, branch->output(k).name()), node.output(k),
                           prefix + "output_" + std::to_string(k)));
  }
  return out;
}

// The body's condition output stays true when it is the condition input
// passed through, or a constant true.
bool ConditionStaysTrue(const onnx::GraphProto& body) {
  if (body.input_size() < 2 || body.output_size() < 1) return false;
  std::string cond = body.output(0).name();
  for (int hops = 0; hops < 8; ++hops) {
    if (cond == body.input(1).name()) return true;
    const onnx::NodeProto* producer = nullptr;
    for (const auto& n : body.node()) {
      for (const auto& o : n.output()) {
        if (o == cond) producer = &n;
      }
    }
    if (producer == nullptr) {
      for (const auto& init : body.initializer()) {
        if (init.name() != cond) continue;
        std::optional<TensorValue> v = ValueFromTensor(init);
        return v && v->NumElements() == 1 && v->AsDouble(0) != 0;
      }
      return false;
    }
    if (producer->op_type() == "Identity" && producer->input_size() == 1) {
      cond = producer->input(0);
      continue;
    }
    if (producer->op_type() == "Constant") {
      std::optional<std::vector<TensorValue>> v = EvaluateNode(*producer, 1, {}, {});
      return v && v->size() == 1 && (*v)[0].NumElements() == 1 && (*v)[0].AsDouble(0) != 0;
    }
    return false;
  }
  return false;
}

onnx::NodeProto ConstantScalar(const std::string& out, const std::string& name, int32_t type,
                               int64_t value) {
  onnx::NodeProto n;
  n.set_op_type("Constant");
  n.set_name(name);
  n.add_output(out);
  auto* a = n.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  TensorValue v;
  v.elem_type = type;
  v.ints.push_back(value);
  ValueToTensor(v, a->mutable_t());
  return n;
}

Result<std::optional<std::vector<onnx::NodeProto>>> UnrollLoop(
    const onnx::NodeProto& node, int index, const ValueMap& values, int opset,
    const std::string& path, onnx::GraphProto* graph) {
  using Out = std::optional<std::vector<onnx::NodeProto>>;
  const onnx::GraphProto* body = GraphAttr(node, "body");
  if (body == nullptr || node.input_size() < 2 || node.input(0).empty()) return Out();
  auto trip = values.find(node.input(0));
  if (trip == values.end() || trip->second.NumElements() != 1) return Out();
  if (!node.input(1).empty()) {
    auto cond = values.find(node.input(1));
    if (cond == values.end() || cond->second.NumElements() != 1 ||
        cond->second.AsDouble(0) == 0) {
      return Out();
    }
  }
  if (!ConditionStaysTrue(*body)) return Out();
  const int carried = node.input_size() - 2;
  const int scans = body->output_size() - 1 - carried;
  if (carried < 0 || scans < 0 || body->input_size() != carried + 2 ||
      node.output_size() > carried + scans) {
    return Out();
  }
  const int64_t trips = trip->second.AsInt(0);
  const std::string base = NodeName(node, index);
  if (trips < 0 || (trips == 0 && scans > 0)) return Out();
  if (static_cast<double>(trips) * (body->node_size() + 3) > kMaxUnrolledNodes) {
    return InvalidArgument(path + ": op '" + base + "' (Loop): " + std::to_string(trips) +
                           " iterations of a " + std::to_string(body->node_size()) +
                           "-node body exceed the " + std::to_string(kMaxUnrolledNodes) +
                           "-node unrolling limit");
  }
  std::vector<onnx::NodeProto> out;
  std::vector<std::string> state(node.input().begin() + 2, node.input().end());
  std::vector<std::vector<std::string>> scan_parts(scans);
  for (int64_t i = 0; i < trips; ++i) {
    const std::string prefix = base + "/" + std::to_string(i) + "/";
    NameMap map;
    map[body->input(0).name()] = prefix + "iter";
    out.push_back(ConstantScalar(prefix + "iter", prefix + "iter_const",
                                 onnx::TensorProto::INT64, i));
    map[body->input(1).name()] = prefix + "cond";
    out.push_back(ConstantScalar(prefix + "cond", prefix + "cond_const",
                                 onnx::TensorProto::BOOL, 1));
    for (int j = 0; j < carried; ++j) map[body->input(2 + j).name()] = state[j];
    CopyBody(*body, prefix, &map, graph, &out);
    for (int j = 0; j < carried; ++j) state[j] = Renamed(map, body->output(1 + j).name());
    for (int k = 0; k < scans; ++k)
      scan_parts[k].push_back(Renamed(map, body->output(1 + carried + k).name()));
  }
  for (int j = 0; j < carried && j < node.output_size(); ++j) {
    if (node.output(j).empty()) continue;
    out.push_back(Identity(state[j], node.output(j), base + "/final_" + std::to_string(j)));
  }
  for (int k = 0; k < scans && carried + k < node.output_size(); ++k) {
    const std::string& target = node.output(carried + k);
    if (target.empty()) continue;
    onnx::NodeProto concat;
    concat.set_op_type("Concat");
    concat.set_name(base + "/scan_" + std::to_string(k));
    auto* axis = concat.add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(0);
    for (size_t i = 0; i < scan_parts[k].size(); ++i) {
      onnx::NodeProto unsq;
      unsq.set_op_type("Unsqueeze");
      const std::string name = base + "/scan_" + std::to_string(k) + "_" + std::to_string(i);
      unsq.set_name(name);
      unsq.add_input(scan_parts[k][i]);
      if (opset >= 13) {
        TensorValue zero;
        zero.dims = {1};
        zero.ints = {0};
        onnx::TensorProto* t = graph->add_initializer();
        t->set_name(name + "_axes");
        ValueToTensor(zero, t);
        unsq.add_input(t->name());
      } else {
        auto* axes = unsq.add_attribute();
        axes->set_name("axes");
        axes->set_type(onnx::AttributeProto::INTS);
        axes->add_ints(0);
      }
      unsq.add_output(name + "_out");
      concat.add_input(name + "_out");
      out.push_back(std::move(unsq));
    }
    concat.add_output(target);
    out.push_back(std::move(concat));
  }
  return Out(std::move(out));
}

}  // namespace

Result<bool> ReduceControlFlow(const ValueMap& values, int opset, const std::string& path,
                               onnx::GraphProto* graph) {
  bool changed = false;
  std::vector<onnx::NodeProto> nodes;
  int64_t total = 0;
  for (int i = 0; i < graph->node_size(); ++i) {
    const onnx::NodeProto& node = graph->node(i);
    const bool is_default = node.domain().empty() || node.domain() == "ai.onnx";
    std::optional<std::vector<onnx::NodeProto>> replaced;
    if (is_default && node.op_type() == "If") {
      replaced = InlineIf(node, i, values, graph);
    } else if (is_default && node.op_type() == "Loop") {
      FRUGAL_ASSIGN_OR_RETURN(replaced, UnrollLoop(node, i, values, opset, path, graph));
    }
    if (!replaced) {
      nodes.push_back(node);
      ++total;
      continue;
    }
    changed = true;
    total += static_cast<int64_t>(replaced->size());
    if (total > kMaxUnrolledNodes) {
      return InvalidArgument(path + ": reducing If / Loop ops gives over " +
                             std::to_string(kMaxUnrolledNodes) + " nodes");
    }
    for (auto& n : *replaced) nodes.push_back(std::move(n));
  }
  if (!changed) return false;
  graph->clear_node();
  for (auto& n : nodes) *graph->add_node() = std::move(n);
  return true;
}

}  // namespace frugal::importers
