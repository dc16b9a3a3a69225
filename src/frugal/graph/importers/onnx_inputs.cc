#include "frugal/graph/importers/onnx_inputs.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frugal/graph/importers/onnx_values.h"
#include "frugal/graph/importers/onnx_weight_views.h"

namespace frugal::importers {
namespace {

using Consumers =
    std::unordered_map<std::string, std::vector<std::pair<const onnx::NodeProto*, int>>>;

bool ReachesWeightSlot(const std::string& name, const Consumers& consumers) {
  std::deque<std::string> todo{name};
  std::set<std::string> seen{name};
  while (!todo.empty()) {
    std::string t = todo.front();
    todo.pop_front();
    auto it = consumers.find(t);
    if (it == consumers.end()) continue;
    for (const auto& [node, slot] : it->second) {
      if (IsWeightSlot(node->op_type(), slot)) return true;
      if (IsLayoutOp(node->op_type()) && slot == 0 && node->output_size() > 0 &&
          seen.insert(node->output(0)).second) {
        todo.push_back(node->output(0));
      }
    }
  }
  return false;
}

bool IsStaticShape(const onnx::TypeProto& t) {
  if (!t.has_tensor_type() || !t.tensor_type().has_shape()) return false;
  for (const auto& d : t.tensor_type().shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) return false;
  }
  return true;
}

bool LooksLikeBatch(const std::string& symbol) {
  std::string s;
  for (char c : symbol) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::set<std::string> kNames = {"n", "b", "bs", "nbatch", "num_batch"};
  return kNames.count(s) != 0 || s.find("batch") != std::string::npos;
}

// Names that say what a non-batch dim is; never taken for the batch.
bool LooksLikeOtherDim(const std::string& symbol) {
  std::string s;
  for (char c : symbol) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word : {"seq", "len", "height", "width", "time", "step", "token", "channel"}) {
    if (s.find(word) != std::string::npos) return true;
  }
  return false;
}

std::string Join(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string ShapeText(const onnx::TensorShapeProto& shape) {
  std::string out = "[";
  for (int i = 0; i < shape.dim_size(); ++i) {
    const auto& d = shape.dim(i);
    if (i > 0) out += ", ";
    out += d.has_dim_value() ? std::to_string(d.dim_value())
                             : (d.dim_param().empty() ? "?" : d.dim_param());
  }
  return out + "]";
}

void ResolveSymbols(onnx::TypeProto* type, const std::map<std::string, int64_t>& symbols) {
  if (!type->has_tensor_type() || !type->tensor_type().has_shape()) return;
  for (auto& d : *type->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
    if (!d.has_dim_param()) continue;
    auto it = symbols.find(d.dim_param());
    if (it != symbols.end()) d.set_dim_value(it->second);
  }
}

// Weight inputs become initializers without data.
int ConvertWeightInputs(onnx::GraphProto* graph) {
  std::set<std::string> inits;
  for (const auto& init : graph->initializer()) inits.insert(init.name());
  Consumers consumers;
  for (const auto& node : graph->node()) {
    for (int i = 0; i < node.input_size(); ++i)
      consumers[node.input(i)].emplace_back(&node, i);
  }
  int converted = 0;
  for (const auto& input : graph->input()) {
    if (inits.count(input.name()) != 0 || !IsStaticShape(input.type())) continue;
    if (!IsFloatElemType(input.type().tensor_type().elem_type())) continue;
    if (!ReachesWeightSlot(input.name(), consumers)) continue;
    onnx::TensorProto* t = graph->add_initializer();
    t->set_name(input.name());
    t->set_data_type(input.type().tensor_type().elem_type());
    for (const auto& d : input.type().tensor_type().shape().dim()) t->add_dims(d.dim_value());
    ++converted;
  }
  return converted;
}

}  // namespace

Result<int64_t> PrepareInputs(onnx::GraphProto* graph, const ImportOptions& options,
                              const std::string& path, int* weight_inputs) {
  *weight_inputs = ConvertWeightInputs(graph);
  std::set<std::string> inits;
  for (const auto& init : graph->initializer()) inits.insert(init.name());
  std::vector<onnx::ValueInfoProto*> data;
  for (auto& input : *graph->mutable_input()) {
    if (inits.count(input.name()) != 0) continue;
    if (!input.type().has_tensor_type()) {
      return InvalidArgument(path + ": input '" + input.name() +
                             "' is not a tensor (sequences and maps are not supported)");
    }
    if (!input.type().tensor_type().has_shape()) {
      return InvalidArgument(path + ": input '" + input.name() + "' has unknown rank");
    }
    data.push_back(&input);
  }
  // The symbols, and the batch among them.
  std::set<std::string> symbols;
  std::string batch_symbol, dim0_symbol;
  std::map<std::string, std::string> dim0_set_by_flag;  // input -> its dim 0's --dim symbol
  for (const auto* input : data) {
    const auto& shape = input->type().tensor_type().shape();
    for (int i = 0; i < shape.dim_size(); ++i) {
      const auto& d = shape.dim(i);
      if (d.has_dim_value() || d.dim_param().empty()) continue;
      symbols.insert(d.dim_param());
      if (options.dims.count(d.dim_param()) != 0) {
        if (i == 0) dim0_set_by_flag[input->name()] = d.dim_param();
        continue;
      }
      if (batch_symbol.empty() && LooksLikeBatch(d.dim_param())) batch_symbol = d.dim_param();
      if (dim0_symbol.empty() && i == 0 && !LooksLikeOtherDim(d.dim_param()))
        dim0_symbol = d.dim_param();
    }
  }
  for (const auto& [name, value] : options.dims) {
    if (symbols.count(name) == 0) {
      return InvalidArgument(path + ": --dim " + name + "=" + std::to_string(value) +
                             ": the model has no symbolic dim '" + name + "' (" +
                             (symbols.empty() ? std::string("it has none")
                                              : "it has: " + Join(symbols)) +
                             ")");
    }
  }
  if (batch_symbol.empty()) batch_symbol = dim0_symbol;
  const int64_t batch_value = options.batch > 0 ? options.batch : 1;
  std::map<std::string, int64_t> values(options.dims.begin(), options.dims.end());
  if (!batch_symbol.empty()) values[batch_symbol] = batch_value;
  bool unnamed_batch = false;
  for (auto* input : data) {
    auto* shape = input->mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int i = 0; i < shape->dim_size(); ++i) {
      auto* d = shape->mutable_dim(i);
      if (d->has_dim_value() && d->dim_value() >= 0) continue;
      const std::string where =
          path + ": input '" + input->name() + "' dim " + std::to_string(i);
      if (!d->dim_param().empty()) {
        auto it = values.find(d->dim_param());
        if (it == values.end()) {
          return InvalidArgument(where + " is the symbolic '" + d->dim_param() +
                                 "' with no value; set it with --dim " + d->dim_param() +
                                 "=VALUE");
        }
        d->set_dim_value(it->second);
      } else if (i == 0 && batch_symbol.empty()) {
        d->set_dim_value(batch_value);
        unnamed_batch = true;
      } else {
        return InvalidArgument(where +
                               " has neither a value nor a name, so no flag can set it; "
                               "export it with a named dynamic axis");
      }
    }
  }
  for (auto& vi : *graph->mutable_value_info()) ResolveSymbols(vi.mutable_type(), values);
  for (auto& out : *graph->mutable_output()) ResolveSymbols(out.mutable_type(), values);
  if (!batch_symbol.empty() || unnamed_batch) return batch_value;
  // No symbolic batch: the file's own, which --batch may only confirm.
  for (const auto* input : data) {
    const auto& shape = input->type().tensor_type().shape();
    if (shape.dim_size() == 0) continue;
    const int64_t own = shape.dim(0).dim_value();
    if (options.batch > 0 && options.batch != own) {
      auto flag = dim0_set_by_flag.find(input->name());
      if (flag != dim0_set_by_flag.end()) {
        return InvalidArgument(path + ": --batch " + std::to_string(options.batch) +
                               " and --dim " + flag->second + "=" + std::to_string(own) +
                               " both set input '" + input->name() + "' dim 0; give one of them");
      }
      return InvalidArgument(path + ": --batch " + std::to_string(options.batch) +
                             " cannot apply: the model has no symbolic batch dim (input '" +
                             input->name() + "' is fixed at " + ShapeText(shape) +
                             "); export it with a dynamic batch axis");
    }
    return own;
  }
  if (options.batch > 0) {
    return InvalidArgument(path + ": --batch " + std::to_string(options.batch) +
                           " cannot apply: the model has no data input with a batch dim");
  }
  return 0;
}

}  // namespace frugal::importers
