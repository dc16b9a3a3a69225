// ONNX importer: one op per node, shapes from ONNX's own shape inference, so
// that files with stripped weights (dims but no data) import exactly. The
// batch dim (dim 0 of every graph input that is not an initializer) is set
// from ImportOptions before inference; every other dim must be static or
// inferable. Unknown op types are kept with bytes-only cost.
#include <climits>
#include <exception>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frugal/base/file_io.h"
#include "frugal/graph/importers/importers.h"
#include "frugal/graph/op_cost.h"
#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

namespace frugal::importers {
namespace {

using TypeMap = std::unordered_map<std::string, const onnx::TypeProto*>;
using InitMap = std::unordered_map<std::string, const onnx::TensorProto*>;

constexpr char kNotInferredNote[] = "output shape not inferred";

DType FromOnnxType(int32_t elem_type) {
  switch (elem_type) {
    case onnx::TensorProto::FLOAT:
      return DType::kFloat32;
    case onnx::TensorProto::FLOAT16:
      return DType::kFloat16;
    case onnx::TensorProto::BFLOAT16:
      return DType::kBFloat16;
    case onnx::TensorProto::DOUBLE:
      return DType::kFloat64;
    case onnx::TensorProto::INT64:
      return DType::kInt64;
    case onnx::TensorProto::INT32:
      return DType::kInt32;
    case onnx::TensorProto::INT8:
      return DType::kInt8;
    case onnx::TensorProto::UINT8:
      return DType::kUInt8;
    case onnx::TensorProto::BOOL:
      return DType::kBool;
    default:
      return DType::kUnknown;
  }
}

bool IsFloatType(int32_t elem_type) {
  return elem_type == onnx::TensorProto::FLOAT ||
         elem_type == onnx::TensorProto::FLOAT16 ||
         elem_type == onnx::TensorProto::BFLOAT16 ||
         elem_type == onnx::TensorProto::DOUBLE;
}

bool IsDefaultDomain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx";
}

// ONNX messages span lines (node dumps); ours are one line.
std::string OneLine(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return s;
}

std::string DimText(const onnx::TensorShapeProto::Dimension& d) {
  if (d.has_dim_param() && !d.dim_param().empty())
    return "'" + d.dim_param() + "'";
  if (d.has_dim_value()) return std::to_string(d.dim_value());
  return "unknown";
}

bool IsStaticTensor(const onnx::TypeProto* t) {
  if (t == nullptr || !t->has_tensor_type() || !t->tensor_type().has_shape()) {
    return false;
  }
  for (const auto& d : t->tensor_type().shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) return false;
  }
  return true;
}

// Why `t` is not a static tensor, for messages.
std::string WhyNotStatic(const onnx::TypeProto* t) {
  if (t == nullptr) return "has no type information";
  if (!t->has_tensor_type()) return "is not a tensor";
  if (!t->tensor_type().has_shape()) return "has unknown rank";
  const auto& shape = t->tensor_type().shape();
  for (int i = 0; i < shape.dim_size(); ++i) {
    const auto& d = shape.dim(i);
    if (!d.has_dim_value() || d.dim_value() < 0) {
      return "has dynamic dim " + std::to_string(i) + " (" + DimText(d) + ")";
    }
  }
  return "is static";
}

// Guards the element count so that TensorInfo::NumElements cannot overflow;
// Validate() then rejects what is merely absurd.
Status CheckSize(const std::vector<int64_t>& shape, const std::string& where) {
  double elems = 1;
  for (int64_t d : shape) elems *= static_cast<double>(d);
  if (elems * 8 > kMaxSaneBytes) {
    return InvalidArgument(where + " has an absurd shape " +
                           ShapeString(shape));
  }
  return Status::Ok();
}

// Copies every dim whose symbol is in `symbols` to its value.
void ResolveSymbols(onnx::TypeProto* type,
                    const std::map<std::string, int64_t>& symbols) {
  if (!type->has_tensor_type() || !type->tensor_type().has_shape()) return;
  for (auto& d : *type->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
    if (!d.has_dim_param()) continue;
    auto it = symbols.find(d.dim_param());
    if (it != symbols.end()) d.set_dim_value(it->second);
  }
}

// Sets dim 0 of the graph inputs (the batch) and checks that their other dims
// are static. Returns the batch the graph was built for (0 when no input has
// a dim 0).
Result<int64_t> SetBatch(onnx::GraphProto* graph, const InitMap& inits,
                         int64_t requested, const std::string& path) {
  const int64_t dynamic_batch = requested > 0 ? requested : 1;
  std::map<std::string, int64_t> symbols;
  bool overrode_static = false;
  int64_t batch = 0;
  for (auto& input : *graph->mutable_input()) {
    if (inits.count(input.name()) != 0) continue;
    if (!input.type().has_tensor_type()) {
      return InvalidArgument(
          path + ": input '" + input.name() +
          "' is not a tensor (sequences and maps are not supported)");
    }
    auto* tensor = input.mutable_type()->mutable_tensor_type();
    if (!tensor->has_shape()) {
      return InvalidArgument(path + ": input '" + input.name() +
                             "' has unknown rank");
    }
    if (tensor->shape().dim_size() == 0) continue;
    auto* dim0 = tensor->mutable_shape()->mutable_dim(0);
    if (dim0->has_dim_value() && dim0->dim_value() > 0) {
      if (requested > 0 && dim0->dim_value() != requested) {
        dim0->set_dim_value(requested);
        overrode_static = true;
      }
    } else {
      if (dim0->has_dim_param() && !dim0->dim_param().empty()) {
        symbols.emplace(dim0->dim_param(), dynamic_batch);
      }
      dim0->set_dim_value(dynamic_batch);
    }
    if (batch == 0) batch = dim0->dim_value();
  }
  for (auto& input : *graph->mutable_input()) {
    if (inits.count(input.name()) != 0) continue;
    ResolveSymbols(input.mutable_type(), symbols);
    if (!IsStaticTensor(&input.type())) {
      return InvalidArgument(path + ": input '" + input.name() + "' " +
                             WhyNotStatic(&input.type()) +
                             "; only the batch dim (0) can be set");
    }
  }
  if (overrode_static) {
    // The file's annotations were written for its own batch; inference will
    // rebuild them for the new one.
    graph->clear_value_info();
    for (auto& output : *graph->mutable_output()) {
      if (output.type().has_tensor_type()) {
        output.mutable_type()->mutable_tensor_type()->clear_shape();
      }
    }
  } else {
    for (auto& vi : *graph->mutable_value_info())
      ResolveSymbols(vi.mutable_type(), symbols);
    for (auto& out : *graph->mutable_output())
      ResolveSymbols(out.mutable_type(), symbols);
  }
  return batch;
}

Status InferShapes(onnx::ModelProto* model, const std::string& path) {
  // Data propagation resolves Reshape targets computed from Shape ops.
  onnx::ShapeInferenceOptions options(/*check_type_val=*/false,
                                      /*strict_mode_val=*/0,
                                      /*data_prop_val=*/true);
  try {
    onnx::shape_inference::InferShapes(
        *model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    return InvalidArgument(
        path + ": ONNX shape inference failed: " + OneLine(e.what()));
  } catch (...) {
    return InvalidArgument(path + ": ONNX shape inference failed");
  }
  return Status::Ok();
}

TypeMap BuildTypeMap(const onnx::GraphProto& graph) {
  TypeMap types;
  for (const auto& v : graph.input()) types[v.name()] = &v.type();
  for (const auto& v : graph.value_info()) types[v.name()] = &v.type();
  for (const auto& v : graph.output()) types[v.name()] = &v.type();
  return types;
}

class OnnxGraphBuilder {
 public:
  OnnxGraphBuilder(std::string path, onnx::ModelProto* model)
      : path_(std::move(path)), model_(model), graph_(model->mutable_graph()) {
    for (const auto& init : graph_->initializer()) inits_[init.name()] = &init;
    for (const auto& opset : model->opset_import()) {
      opsets_[IsDefaultDomain(opset.domain()) ? "" : opset.domain()] =
          static_cast<int>(opset.version());
    }
    // Shape inference aborts on a custom domain without an opset import;
    // such ops have no schema anyway and fall back like unknown ops.
    for (const auto& node : graph_->node()) {
      if (IsDefaultDomain(node.domain()) || opsets_.count(node.domain()) != 0)
        continue;
      opsets_[node.domain()] = 1;
      auto* opset = model->add_opset_import();
      opset->set_domain(node.domain());
      opset->set_version(1);
    }
  }

  Result<OpGraph> Run(const ImportOptions& options) {
    OpGraph g;
    g.name = std::filesystem::path(path_).stem().string();
    g.source_format = "onnx";
    FRUGAL_ASSIGN_OR_RETURN(g.batch,
                            SetBatch(graph_, inits_, options.batch, path_));
    FRUGAL_RETURN_IF_ERROR(InferWithFallbacks());
    types_ = BuildTypeMap(*graph_);
    std::set<std::string> produced;
    for (const auto& v : graph_->input()) produced.insert(v.name());
    for (const auto& entry : inits_) produced.insert(entry.first);
    // Op i is node i, so edges can be drawn even if the file is not sorted
    // (Validate() then reports any cycle).
    for (int i = 0; i < graph_->node_size(); ++i) {
      const onnx::NodeProto& node = graph_->node(i);
      for (const auto& out : node.output()) {
        if (out.empty()) continue;
        if (!produced.insert(out).second) {
          return InvalidArgument(path_ + ": tensor '" + out +
                                 "' is produced twice");
        }
        producer_[out] = i;
        if (node.op_type() == "Constant") constant_outputs_.insert(out);
      }
    }
    std::set<std::string> used_names;
    for (int i = 0; i < graph_->node_size(); ++i) {
      FRUGAL_ASSIGN_OR_RETURN(Op op, MakeOp(i, &used_names));
      g.AddOp(std::move(op));
    }
    AddEdges(&g);
    Status costs = FinalizeForwardCosts(g);
    if (!costs.ok()) return costs.WithPrefix(path_);
    return g;
  }

 private:
  // Ops whose shapes ONNX cannot infer by design: unknown to frugal, or
  // without an ONNX schema (custom domains).
  bool MayFallBack(const onnx::NodeProto& node, OpKind kind) const {
    if (kind == OpKind::kUnknown) return true;
    std::string domain = IsDefaultDomain(node.domain()) ? "" : node.domain();
    auto it = opsets_.find(domain);
    if (it == opsets_.end()) return true;
    return onnx::OpSchemaRegistry::Schema(node.op_type(), it->second, domain) ==
           nullptr;
  }

  // The static type of tensor `name`, or nullptr.
  const onnx::TypeProto* StaticType(const std::string& name) {
    auto it = types_.find(name);
    if (it != types_.end() && IsStaticTensor(it->second)) return it->second;
    auto init = inits_.find(name);
    if (init == inits_.end()) return nullptr;
    auto& slot = init_types_[name];
    slot.mutable_tensor_type()->set_elem_type(init->second->data_type());
    auto* shape = slot.mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (int64_t d : init->second->dims()) shape->add_dim()->set_dim_value(d);
    return &slot;
  }

  // Outputs that inference left without a static shape, on nodes allowed to
  // fall back, get the first input's shape; inference then runs again so
  // that the ops downstream see it. Each round settles at least the first
  // such node whose input is known, so the loop ends.
  Status InferWithFallbacks() {
    for (int round = 0; round <= graph_->node_size(); ++round) {
      FRUGAL_RETURN_IF_ERROR(InferShapes(model_, path_));
      types_ = BuildTypeMap(*graph_);
      init_types_.clear();
      std::vector<std::pair<std::string, onnx::TypeProto>> fallbacks;
      for (const auto& node : graph_->node()) {
        if (!MayFallBack(node, OpKindFromOnnx(node.op_type()))) continue;
        for (const auto& out : node.output()) {
          if (out.empty() || StaticType(out) != nullptr) continue;
          onnx::TypeProto type;
          if (FallbackType(node, out, &type)) fallbacks.emplace_back(out, type);
        }
      }
      if (fallbacks.empty()) return Status::Ok();
      for (auto& [name, type] : fallbacks) {
        fallback_outputs_.insert(name);
        SetType(name, std::move(type));
      }
    }
    return Status::Ok();
  }

  // The first input's shape, keeping whatever inference did know (element
  // type, static dims). False when there is nothing consistent to inject.
  bool FallbackType(const onnx::NodeProto& node, const std::string& out,
                    onnx::TypeProto* type) {
    const onnx::TypeProto* src = nullptr;
    for (const auto& in : node.input()) {
      if (in.empty()) continue;
      src = StaticType(in);
      break;
    }
    if (src == nullptr) return node.input_size() == 0 && SetScalar(out, type);
    *type = *src;
    auto it = types_.find(out);
    if (it == types_.end() || !it->second->has_tensor_type()) return true;
    const auto& partial = it->second->tensor_type();
    if (partial.elem_type() != onnx::TensorProto::UNDEFINED) {
      type->mutable_tensor_type()->set_elem_type(partial.elem_type());
    }
    if (!partial.has_shape()) return true;
    if (partial.shape().dim_size() != type->tensor_type().shape().dim_size()) {
      return false;
    }
    for (int i = 0; i < partial.shape().dim_size(); ++i) {
      const auto& d = partial.shape().dim(i);
      if (d.has_dim_value() && d.dim_value() >= 0) {
        type->mutable_tensor_type()
            ->mutable_shape()
            ->mutable_dim(i)
            ->set_dim_value(d.dim_value());
      }
    }
    return true;
  }

  bool SetScalar(const std::string& out, onnx::TypeProto* type) {
    auto it = types_.find(out);
    int32_t elem = onnx::TensorProto::FLOAT;
    if (it != types_.end() && it->second->has_tensor_type() &&
        it->second->tensor_type().elem_type() != onnx::TensorProto::UNDEFINED) {
      elem = it->second->tensor_type().elem_type();
    }
    type->mutable_tensor_type()->set_elem_type(elem);
    type->mutable_tensor_type()->mutable_shape();
    return true;
  }

  void SetType(const std::string& name, onnx::TypeProto type) {
    for (auto& v : *graph_->mutable_output()) {
      if (v.name() == name) {
        *v.mutable_type() = std::move(type);
        return;
      }
    }
    for (auto& v : *graph_->mutable_value_info()) {
      if (v.name() == name) {
        *v.mutable_type() = std::move(type);
        return;
      }
    }
    auto* vi = graph_->add_value_info();
    vi->set_name(name);
    *vi->mutable_type() = std::move(type);
  }

  Result<TensorInfo> MakeTensor(const std::string& name,
                                const std::string& where, TensorRole role) {
    const onnx::TypeProto* type = StaticType(name);
    if (type == nullptr) {
      auto it = types_.find(name);
      const onnx::TypeProto* partial =
          it == types_.end() ? nullptr : it->second;
      if (partial == nullptr && inits_.count(name) == 0 &&
          producer_.count(name) == 0) {
        return InvalidArgument(
            where + ": tensor '" + name +
            "' is neither produced by a node nor a graph input");
      }
      return InvalidArgument(where + ": tensor '" + name + "' " +
                             WhyNotStatic(partial) + " after shape inference");
    }
    TensorInfo t;
    t.name = name;
    t.dtype = FromOnnxType(type->tensor_type().elem_type());
    for (const auto& d : type->tensor_type().shape().dim())
      t.shape.push_back(d.dim_value());
    t.role = role;
    FRUGAL_RETURN_IF_ERROR(
        CheckSize(t.shape, where + ": tensor '" + name + "'"));
    return t;
  }

  TensorRole InputRole(const onnx::NodeProto& node, int index) const {
    const std::string& name = node.input(index);
    auto init = inits_.find(name);
    if (init != inits_.end()) {
      if (!IsFloatType(init->second->data_type())) return TensorRole::kConstant;
      // Running mean and variance: updated by the op, not by the optimizer.
      if (node.op_type() == "BatchNormalization" &&
          (index == 3 || index == 4)) {
        return TensorRole::kBuffer;
      }
      return TensorRole::kParameter;
    }
    if (constant_outputs_.count(name) != 0) return TensorRole::kConstant;
    return TensorRole::kActivation;
  }

  static void CopyAttributes(const onnx::NodeProto& node, Attributes* attrs) {
    for (const auto& a : node.attribute()) {
      switch (a.type()) {
        case onnx::AttributeProto::INT:
          attrs->ints[a.name()] = {a.i()};
          break;
        case onnx::AttributeProto::INTS:
          attrs->ints[a.name()] =
              std::vector<int64_t>(a.ints().begin(), a.ints().end());
          break;
        case onnx::AttributeProto::FLOAT:
          attrs->floats[a.name()] = a.f();
          break;
        case onnx::AttributeProto::STRING:
          attrs->strings[a.name()] = a.s();
          break;
        default:  // tensors, graphs, float lists: no cost formula reads them
          break;
      }
    }
  }

  // ONNX defaults made explicit, so that cost models need not know them.
  static void FillConvDefaults(Op* op) {
    if (op->inputs.size() < 2 || op->inputs[1].shape.size() < 3) return;
    const auto& w = op->inputs[1].shape;
    const size_t spatial = w.size() - 2;
    auto& ints = op->attrs.ints;
    if (ints.count("kernel_shape") == 0)
      ints["kernel_shape"].assign(w.begin() + 2, w.end());
    if (ints.count("strides") == 0) ints["strides"].assign(spatial, 1);
    if (ints.count("dilations") == 0) ints["dilations"].assign(spatial, 1);
    if (ints.count("group") == 0) ints["group"] = {1};
    auto pad = op->attrs.strings.find("auto_pad");
    bool explicit_pads =
        pad == op->attrs.strings.end() || pad->second == "NOTSET";
    if (ints.count("pads") == 0 && explicit_pads)
      ints["pads"].assign(2 * spatial, 0);
  }

  Result<Op> MakeOp(int index, std::set<std::string>* used_names) {
    const onnx::NodeProto& node = graph_->node(index);
    Op op;
    op.type = node.op_type();
    op.name = node.name();
    if (op.name.empty() || used_names->count(op.name) != 0) {
      op.name = node.op_type() + "_" + std::to_string(index);
      while (used_names->count(op.name) != 0) op.name += "_";
    }
    used_names->insert(op.name);
    op.kind = OpKindFromOnnx(node.op_type());
    CopyAttributes(node, &op.attrs);
    if (!IsDefaultDomain(node.domain()))
      op.attrs.strings["domain"] = node.domain();
    const std::string where =
        path_ + ": op '" + op.name + "' (" + op.type + ")";

    for (int i = 0; i < node.input_size(); ++i) {
      if (node.input(i).empty()) continue;  // omitted optional input
      FRUGAL_ASSIGN_OR_RETURN(
          TensorInfo t, MakeTensor(node.input(i), where, InputRole(node, i)));
      op.inputs.push_back(std::move(t));
    }
    const bool may_fall_back = MayFallBack(node, op.kind);
    const bool is_batch_norm = node.op_type() == "BatchNormalization";
    for (int i = 0; i < node.output_size(); ++i) {
      const std::string& out = node.output(i);
      if (out.empty()) continue;
      // Training-mode BatchNorm's extra outputs are the updated running stats.
      TensorRole role = TensorRole::kActivation;
      if (constant_outputs_.count(out) != 0) {
        role = TensorRole::kConstant;
      } else if (is_batch_norm && i > 0) {
        role = TensorRole::kBuffer;
      }
      Result<TensorInfo> t = MakeTensor(out, where, role);
      if (!t.ok() && may_fall_back) {
        // Nothing consistent could be injected (rank disagrees, or inputs
        // unknown): keep the op with its first input's shape.
        TensorInfo fb;
        fb.name = out;
        fb.role = role;
        if (!op.inputs.empty()) {
          fb.dtype = op.inputs[0].dtype;
          fb.shape = op.inputs[0].shape;
        }
        t = std::move(fb);
        fallback_outputs_.insert(out);
      }
      if (!t.ok()) return t.status();
      if (fallback_outputs_.count(out) != 0)
        op.attrs.strings["note"] = kNotInferredNote;
      op.outputs.push_back(std::move(*t));
    }

    // Data is a trainable table or weight: the op is a layer, not a data op.
    const bool second_is_param =
        node.input_size() > 1 && InputRole(node, 1) == TensorRole::kParameter;
    const bool first_is_param = node.input_size() > 0 &&
                                !node.input(0).empty() &&
                                InputRole(node, 0) == TensorRole::kParameter;
    if (node.op_type() == "MatMul" && second_is_param)
      op.kind = OpKind::kMatMul;
    if (node.op_type() == "Gather" && first_is_param)
      op.kind = OpKind::kEmbedding;

    if (op.kind == OpKind::kConv) FillConvDefaults(&op);
    return op;
  }

  // One edge per (producer, consumer, tensor); graph inputs and initializers
  // are not ops and so start no edge.
  void AddEdges(OpGraph* g) const {
    std::set<std::pair<int, std::string>> seen;
    for (int v = 0; v < g->num_ops(); ++v) {
      seen.clear();
      for (const TensorInfo& t : g->ops[v].inputs) {
        auto it = producer_.find(t.name);
        if (it == producer_.end() || !seen.emplace(it->second, t.name).second)
          continue;
        g->AddEdge(it->second, v, t.Bytes(), t.name);
      }
    }
  }

  const std::string path_;
  onnx::ModelProto* model_;
  onnx::GraphProto* graph_;
  InitMap inits_;
  std::map<std::string, int> opsets_;
  TypeMap types_;
  std::unordered_map<std::string, onnx::TypeProto> init_types_;
  std::set<std::string> constant_outputs_;
  std::set<std::string> fallback_outputs_;
  std::unordered_map<std::string, int> producer_;
};

}  // namespace

bool DetectOnnx(const std::string& path, std::string_view) {
  return FileExtension(path) == "onnx";
}

Result<OpGraph> ImportOnnx(const std::string& path, std::string_view contents,
                           const ImportOptions& options) {
  onnx::ModelProto model;
  if (contents.size() > static_cast<size_t>(INT_MAX)) {
    return InvalidArgument(path +
                           ": ONNX file over 2 GiB (the protobuf limit); "
                           "store the weights as external data");
  }
  if (contents.empty() ||
      !model.ParseFromArray(contents.data(),
                            static_cast<int>(contents.size()))) {
    return InvalidArgument(
        path + ": not a valid ONNX model (truncated or corrupt protobuf)");
  }
  if (!model.has_graph() || model.graph().node_size() == 0) {
    return InvalidArgument(path + ": not a valid ONNX model (no graph nodes)");
  }
  try {
    return OnnxGraphBuilder(path, &model).Run(options);
  } catch (const std::exception& e) {
    // protobuf and ONNX helpers may throw (bad_alloc on absurd inputs).
    return InvalidArgument(path + ": ONNX import failed: " + OneLine(e.what()));
  }
}

}  // namespace frugal::importers
