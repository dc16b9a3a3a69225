#include "frugal/graph/importers/onnx_guards.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frugal/graph/importers/onnx_values.h"
#include "onnx/defs/schema.h"

namespace frugal::importers {
namespace {

using Dims = std::vector<int64_t>;
using ShapeMap = std::map<std::string, Dims>;

// The static dims of a declared type, if every dim is a value.
std::optional<Dims> DeclaredDims(const onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return std::nullopt;
  Dims dims;
  for (const auto& d : type.tensor_type().shape().dim()) {
    if (!d.has_dim_value()) return std::nullopt;
    dims.push_back(d.dim_value());
  }
  return dims;
}

// Tensors of `graph` whose shape is known without inference, on top of the
// enclosing scopes' `outer`.
ShapeMap KnownShapes(const onnx::GraphProto& graph, const ShapeMap& outer) {
  ShapeMap known = outer;
  auto declare = [&](const onnx::ValueInfoProto& v) {
    if (auto dims = DeclaredDims(v.type())) known[v.name()] = *dims;
  };
  for (const auto& v : graph.input()) declare(v);
  for (const auto& v : graph.value_info()) declare(v);
  for (const auto& t : graph.initializer()) known[t.name()] = Dims(t.dims().begin(), t.dims().end());
  for (const auto& node : graph.node()) {
    if (node.op_type() != "Constant" || !IsDefaultOnnxDomain(node.domain()) || node.output_size() < 1) continue;
    for (const auto& a : node.attribute()) {
      if (a.name() == "value" && a.has_t()) {
        known[node.output(0)] = Dims(a.t().dims().begin(), a.t().dims().end());
      }
    }
  }
  return known;
}

int WeightInput(const std::string& op_type) {
  if (op_type == "QLinearConv") return 3;
  if (op_type == "Conv" || op_type == "ConvTranspose" || op_type == "ConvInteger") return 1;
  return -1;
}

const onnx::AttributeProto* FindAttribute(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

Status Guard(onnx::GraphProto* graph, const ShapeMap& outer, const std::string& path) {
  const ShapeMap known = KnownShapes(*graph, outer);
  for (auto& node : *graph->mutable_node()) {
    for (auto& a : *node.mutable_attribute()) {
      if (a.has_g()) FRUGAL_RETURN_IF_ERROR(Guard(a.mutable_g(), known, path));
      for (auto& g : *a.mutable_graphs()) FRUGAL_RETURN_IF_ERROR(Guard(&g, known, path));
    }
    const int w = IsDefaultOnnxDomain(node.domain()) ? WeightInput(node.op_type()) : -1;
    if (w < 0 || node.input_size() <= w) continue;
    const bool has_kernel = FindAttribute(node, "kernel_shape") != nullptr;
    // ConvTranspose's inference reads the weight's dim 1 whatever the attributes say.
    if (has_kernel && node.op_type() != "ConvTranspose") continue;
    const std::string name = node.name().empty() ? node.op_type() : node.name();
    const std::string what = path + ": op '" + name + "' (" + node.op_type() + "): weight '" +
                             node.input(w) + "' ";
    auto it = known.find(node.input(w));
    if (it == known.end()) {
      return InvalidArgument(what + "has no declared shape" +
                             (has_kernel ? "" : " and the op has no kernel_shape"));
    }
    const Dims& dims = it->second;
    if (dims.size() < 3) {
      return InvalidArgument(what + "has rank " + std::to_string(dims.size()) +
                             "; a convolution's weight has rank 3 or more");
    }
    if (has_kernel) continue;
    auto* attr = node.add_attribute();
    attr->set_name("kernel_shape");
    attr->set_type(onnx::AttributeProto::INTS);
    for (size_t i = 2; i < dims.size(); ++i) attr->add_ints(dims[i]);
  }
  return Status::Ok();
}

Status CheckDefined(const onnx::GraphProto& graph, std::set<std::string> names,
                    const std::string& path) {
  for (const auto& v : graph.input()) names.insert(v.name());
  for (const auto& t : graph.initializer()) names.insert(t.name());
  for (const auto& node : graph.node()) {
    for (const auto& out : node.output()) names.insert(out);
  }
  for (const auto& node : graph.node()) {
    for (const auto& in : node.input()) {
      if (in.empty() || names.count(in) != 0) continue;
      const std::string name = node.name().empty() ? node.op_type() : node.name();
      return InvalidArgument(path + ": op '" + name + "' (" + node.op_type() + "): input '" + in +
                             "' is not produced by any op, initializer or graph input");
    }
    for (const auto& a : node.attribute()) {
      if (a.has_g()) FRUGAL_RETURN_IF_ERROR(CheckDefined(a.g(), names, path));
      for (const auto& g : a.graphs()) FRUGAL_RETURN_IF_ERROR(CheckDefined(g, names, path));
    }
  }
  return Status::Ok();
}

// Attributes ONNX's inference divides by.
Status CheckPositive(const onnx::GraphProto& graph, const std::string& path) {
  for (const auto& node : graph.node()) {
    for (const auto& a : node.attribute()) {
      if (a.has_g()) FRUGAL_RETURN_IF_ERROR(CheckPositive(a.g(), path));
      for (const auto& g : a.graphs()) FRUGAL_RETURN_IF_ERROR(CheckPositive(g, path));
      if (!IsDefaultOnnxDomain(node.domain())) continue;
      const std::string& n = a.name();
      if (n != "strides" && n != "dilations" && n != "kernel_shape" && n != "blocksize") continue;
      bool bad = a.type() == onnx::AttributeProto::INT && a.i() < 1;
      for (int64_t v : a.ints()) bad = bad || v < 1;
      if (!bad) continue;
      const std::string name = node.name().empty() ? node.op_type() : node.name();
      return InvalidArgument(path + ": op '" + name + "' (" + node.op_type() + "): attribute " +
                             n + " has a value below 1");
    }
  }
  return Status::Ok();
}

// Attributes against the op's schema at `opset`: inference reads a required
// attribute through a pointer it does not check (Scan's num_scan_inputs),
// and a value by the schema's type.
Status CheckAttributes(const onnx::GraphProto& graph, int opset, const std::string& path) {
  for (const auto& node : graph.node()) {
    for (const auto& a : node.attribute()) {
      if (a.has_g()) FRUGAL_RETURN_IF_ERROR(CheckAttributes(a.g(), opset, path));
      for (const auto& g : a.graphs()) FRUGAL_RETURN_IF_ERROR(CheckAttributes(g, opset, path));
    }
    if (!IsDefaultOnnxDomain(node.domain())) continue;
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(node.op_type(), opset, "");
    if (schema == nullptr) continue;
    const std::string what = path + ": op '" + (node.name().empty() ? node.op_type() : node.name()) +
                             "' (" + node.op_type() + "): attribute ";
    for (const auto& [name, attr] : schema->attributes()) {
      const onnx::AttributeProto* given = FindAttribute(node, name);
      if (given == nullptr) {
        if (attr.required) return InvalidArgument(what + name + " is required and missing");
        continue;
      }
      if (given->type() != onnx::AttributeProto::UNDEFINED && given->type() != attr.type) {
        return InvalidArgument(what + name + " is " +
                               onnx::AttributeProto::AttributeType_Name(given->type()) +
                               "; the op's schema at opset " + std::to_string(opset) + " wants " +
                               onnx::AttributeProto::AttributeType_Name(attr.type));
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status GuardShapeInference(onnx::GraphProto* graph, int opset, const std::string& path) {
  FRUGAL_RETURN_IF_ERROR(CheckDefined(*graph, {}, path));
  FRUGAL_RETURN_IF_ERROR(CheckPositive(*graph, path));
  FRUGAL_RETURN_IF_ERROR(CheckAttributes(*graph, opset, path));
  return Guard(graph, {}, path);
}

}  // namespace frugal::importers
