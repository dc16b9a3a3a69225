// ONNX importer: one op per node, shapes from ONNX's own shape inference, so
// that files with stripped weights (dims but no data) import exactly. The
// symbolic dims of the data inputs are set from ImportOptions before
// inference (onnx_inputs.h); shape computations are folded between rounds
// of inference until nothing changes (onnx_fold.h); every other dim must then
// be static. Unknown op types are kept with bytes-only cost.
#include <climits>
#include <exception>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "frugal/base/file_io.h"
#include "frugal/graph/einsum.h"
#include "frugal/graph/importers/importers.h"
#include "frugal/graph/importers/onnx_control_flow.h"
#include "frugal/graph/importers/onnx_fold.h"
#include "frugal/graph/importers/onnx_guards.h"
#include "frugal/graph/importers/onnx_inputs.h"
#include "frugal/graph/importers/onnx_weight_views.h"
#include "frugal/graph/op_cost.h"
#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

namespace frugal::importers {
namespace {

using TypeMap = OnnxTypeMap;
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

// A normalization's weights must fit the input as resized (--batch, --dim):
// ONNX's shape inference does not compare them, so a symbolic dim set to a
// value the weights were not built for would import and be priced.
Status CheckNormalizationWeights(const OpGraph& g, const std::string& path) {
  for (const Op& op : g.ops) {
    if (op.inputs.size() < 2 || op.inputs[0].role != TensorRole::kActivation) continue;
    const std::vector<int64_t>& x = op.inputs[0].shape;
    const int rank = static_cast<int>(x.size());
    std::vector<int64_t> want;  // the dims the scale covers
    if (op.kind == OpKind::kLayerNorm) {
      int64_t axis = op.attrs.GetInt("axis", -1);
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank) continue;
      want.assign(x.begin() + axis, x.end());
    } else if (op.kind == OpKind::kBatchNorm || op.kind == OpKind::kInstanceNorm) {
      if (rank < 2) continue;
      want = {x[1]};
    } else {
      continue;
    }
    const TensorInfo& scale = op.inputs[1];
    if (scale.role != TensorRole::kParameter && scale.role != TensorRole::kBuffer) continue;
    const std::vector<int64_t>& s = scale.shape;
    bool fits = s.size() <= want.size();
    for (size_t k = 0; fits && k < s.size(); ++k) {
      const int64_t a = s[s.size() - 1 - k], b = want[want.size() - 1 - k];
      fits = a == b || a == 1;
    }
    if (!fits) {
      return InvalidArgument(fmt::format(
          "{}: {} ({}): its scale {} does not fit the dims {} it normalizes (input {}); check "
          "--batch / --dim",
          path, op.name, OpKindName(op.kind), ShapeString(s), ShapeString(want), ShapeString(x)));
    }
  }
  return Status::Ok();
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
    RebuildInits();
    for (const auto& opset : model->opset_import()) {
      opsets_[IsDefaultOnnxDomain(opset.domain()) ? "" : opset.domain()] =
          static_cast<int>(opset.version());
    }
    // Shape inference aborts on a custom domain without an opset import;
    // such ops have no schema anyway and fall back like unknown ops.
    for (const auto& node : graph_->node()) {
      if (IsDefaultOnnxDomain(node.domain()) || opsets_.count(node.domain()) != 0)
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
    int weight_inputs = 0;
    FRUGAL_ASSIGN_OR_RETURN(
        g.batch, PrepareInputs(graph_, options, path_, &weight_inputs));
    if (weight_inputs > 0) RebuildInits();
    // Sequences never reduce to tensors; reject them before inference gives
    // their outputs fallback tensor types.
    FRUGAL_RETURN_IF_ERROR(RejectControlFlow(/*sequences_only=*/true));
    FRUGAL_RETURN_IF_ERROR(GuardShapeInference(graph_, DefaultOpset(), path_));
    FRUGAL_RETURN_IF_ERROR(InferWithFallbacks());
    FRUGAL_RETURN_IF_ERROR(RejectControlFlow(/*sequences_only=*/false));
    FRUGAL_RETURN_IF_ERROR(CheckOutputsProduced());
    RemoveDeadNodes(graph_);
    if (graph_->node_size() == 0) {
      return InvalidArgument(path_ + ": no node computes the graph's outputs (nothing to price)");
    }
    for (const auto& node : graph_->node()) {
      for (const auto& in : node.input()) read_.insert(in);
    }
    for (const auto& out : graph_->output()) read_.insert(out.name());
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
    views_ = FindWeightViews(
        *graph_, [&](const std::string& n) { return inits_.count(n) != 0 && !IsConstantInit(n); },
        [&](const std::string& n) {
          return constant_outputs_.count(n) != 0 || (inits_.count(n) != 0 && IsConstantInit(n));
        });
    std::set<std::string> used_names;
    for (int i = 0; i < graph_->node_size(); ++i) {
      FRUGAL_ASSIGN_OR_RETURN(Op op, MakeOp(i, &used_names));
      g.AddOp(std::move(op));
    }
    AddEdges(&g);
    FRUGAL_RETURN_IF_ERROR(CheckNormalizationWeights(g, path_));
    Status costs = FinalizeForwardCosts(g);
    if (!costs.ok()) return costs.WithPrefix(path_);
    return g;
  }

 private:
  // Ops whose shapes ONNX cannot infer by design: unknown to frugal, or
  // without an ONNX schema (custom domains).
  bool MayFallBack(const onnx::NodeProto& node, OpKind kind) const {
    if (kind == OpKind::kUnknown) return true;
    std::string domain = IsDefaultOnnxDomain(node.domain()) ? "" : node.domain();
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

  void RebuildInits() {
    inits_.clear();
    for (const auto& init : graph_->initializer()) inits_[init.name()] = &init;
  }

  int DefaultOpset() const {
    auto it = opsets_.find("");
    return it == opsets_.end() ? 1 : it->second;
  }

  // Folds the shape computations inference has made computable, then the
  // If / Loop ops the known values make reducible; true when the graph
  // changed (inference must run again).
  Result<bool> Fold() {
    ValueMap values = PropagateValues(*graph_, DefaultOpset(), types_);
    bool changed = WriteBackValues(values, graph_, &folded_) > 0;
    if (!changed) {
      FRUGAL_ASSIGN_OR_RETURN(changed,
                              ReduceControlFlow(values, DefaultOpset(), path_, graph_));
    }
    if (changed) RebuildInits();
    return changed;
  }

  // Control flow and sequences: costed only when the importer could reduce
  // them (there are none left here), else one error naming the op.
  Status RejectControlFlow(bool sequences_only) const {
    for (const auto& node : graph_->node()) {
      if (!IsDefaultOnnxDomain(node.domain())) continue;
      const std::string& t = node.op_type();
      const bool sequence = t.rfind("Sequence", 0) == 0 || t == "SplitToSequence" ||
                            t == "ConcatFromSequence";
      if (!sequence && (sequences_only || (t != "Loop" && t != "If" && t != "Scan"))) continue;
      std::string name = node.name().empty() ? t : node.name();
      std::string why =
          sequence ? "sequence ops are not supported"
          : t == "Scan"
              ? "Scan is not supported"
              : t == "If" ? "its condition is not a constant; frugal prices If only with a "
                            "constant condition"
                          : "its trip count is not a constant; frugal prices Loop only "
                            "with a constant trip count";
      return InvalidArgument(path_ + ": op '" + name + "' (" + t + "): " + why);
    }
    return Status::Ok();
  }

  // Outputs that inference left without a static shape, on nodes allowed to
  // fall back, get the first input's shape; inference then runs again so
  // that the ops downstream see it. Between rounds, shape computations are
  // folded. Each round folds at least one input or settles at least the
  // first fallback node whose input is known, so the loop ends.
  Status InferWithFallbacks() {
    const int max_rounds = 2 * graph_->node_size() + 2;
    for (int round = 0; round <= max_rounds; ++round) {
      FRUGAL_RETURN_IF_ERROR(InferShapes(model_, path_));
      types_ = BuildTypeMap(*graph_);
      init_types_.clear();
      FRUGAL_ASSIGN_OR_RETURN(bool folded, Fold());
      if (folded) continue;
      std::vector<std::pair<std::string, onnx::TypeProto>> fallbacks;
      bool inferred_einsum = false;
      for (const auto& node : graph_->node()) {
        if (node.op_type() == "Einsum" && IsDefaultOnnxDomain(node.domain())) {
          onnx::TypeProto type;
          if (EinsumType(node, &type)) {
            SetType(node.output(0), std::move(type));
            inferred_einsum = true;
          }
          continue;
        }
        if (!MayFallBack(node, OpKindFromOnnx(node.op_type()))) continue;
        for (const auto& out : node.output()) {
          if (out.empty() || StaticType(out) != nullptr) continue;
          onnx::TypeProto type;
          if (FallbackType(node, out, &type)) fallbacks.emplace_back(out, type);
        }
      }
      if (fallbacks.empty() && !inferred_einsum) return Status::Ok();
      for (auto& [name, type] : fallbacks) {
        fallback_outputs_.insert(name);
        SetType(name, std::move(type));
      }
    }
    return Status::Ok();
  }

  // ONNX infers only an Einsum's rank; its dims follow from the equation.
  // False when the output is known already or the operands are not.
  bool EinsumType(const onnx::NodeProto& node, onnx::TypeProto* type) {
    if (node.output_size() != 1 || StaticType(node.output(0)) != nullptr) return false;
    std::string equation;
    for (const auto& a : node.attribute()) {
      if (a.name() == "equation") equation = a.s();
    }
    std::vector<std::vector<int64_t>> shapes;
    int32_t elem = onnx::TensorProto::FLOAT;
    for (const auto& in : node.input()) {
      const onnx::TypeProto* t = StaticType(in);
      if (t == nullptr) return false;
      elem = t->tensor_type().elem_type();
      shapes.emplace_back();
      for (const auto& d : t->tensor_type().shape().dim()) shapes.back().push_back(d.dim_value());
    }
    Result<std::vector<int64_t>> dims = EinsumOutputShape(equation, shapes);
    if (!dims.ok()) return false;
    type->mutable_tensor_type()->set_elem_type(elem);
    auto* shape = type->mutable_tensor_type()->mutable_shape();
    for (int64_t d : *dims) shape->add_dim()->set_dim_value(d);
    return true;
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
    // A layer owns the weights torch transposes or reorders on their way to
    // it; the layout ops between own none.
    if (IsWeightSlot(node.op_type(), index) && views_.at_slots.count(name) != 0)
      return TensorRole::kParameter;
    if (inits_.count(name) != 0) {
      if (IsConstantInit(name) || InWeightChain(node)) return TensorRole::kConstant;
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

  // Every graph output must come from somewhere: a node, an input or an
  // initializer (otherwise dead-node removal would keep nothing for it).
  Status CheckOutputsProduced() const {
    std::set<std::string> made;
    for (const auto& v : graph_->input()) made.insert(v.name());
    for (const auto& init : graph_->initializer()) made.insert(init.name());
    for (const auto& node : graph_->node()) made.insert(node.output().begin(), node.output().end());
    for (const auto& out : graph_->output()) {
      if (made.count(out.name()) == 0) {
        return InvalidArgument(path_ + ": graph output '" + out.name() +
                               "' is produced by no node, input or initializer");
      }
    }
    return Status::Ok();
  }

  // An initializer that is never a weight: integer, or a folded value.
  // REQUIRES: `name` is an initializer.
  bool IsConstantInit(const std::string& name) const {
    return !IsFloatElemType(inits_.at(name)->data_type()) || folded_.count(name) != 0;
  }

  bool InWeightChain(const onnx::NodeProto& node) const {
    for (const auto& out : node.output()) {
      if (views_.chain.count(out) != 0) return true;
    }
    return false;
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
    if (!IsDefaultOnnxDomain(node.domain()))
      op.attrs.strings["domain"] = node.domain();
    const std::string where =
        path_ + ": op '" + op.name + "' (" + op.type + ")";

    for (int i = 0; i < node.input_size(); ++i) {
      if (node.input(i).empty()) continue;  // omitted optional input
      FRUGAL_ASSIGN_OR_RETURN(
          TensorInfo t, MakeTensor(node.input(i), where, InputRole(node, i)));
      if (t.role == TensorRole::kParameter) {
        if (auto tied = views_.tied_view_of.find(t.name); tied != views_.tied_view_of.end()) {
          tied_reads_[index].push_back({tied->first, t.Bytes()});  // keeps the view's edge
          t.name = tied->second;
        }
      }
      op.inputs.push_back(std::move(t));
    }
    // PyTorch reads such weights in place: the layout ops launch nothing.
    if (InWeightChain(node)) op.attrs.ints["view"] = {1};
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
      if (!t.ok() && read_.count(out) == 0) {
        // Nobody reads it (training BatchNorm's running stats at opsets 11
        // and 13 come without types): it costs no bytes downstream.
        continue;
      }
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
      if (auto tied = tied_reads_.find(v); tied != tied_reads_.end()) {
        for (const auto& [view, bytes] : tied->second) {
          auto it = producer_.find(view);
          if (it != producer_.end() && seen.emplace(it->second, view).second)
            g->AddEdge(it->second, v, bytes, view);
        }
      }
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
  std::set<std::string> folded_;  // initializers holding folded values
  WeightViews views_;  // weights reaching their slot through layout ops
  // Per op, the tied views it reads under their weight's name, and bytes.
  std::map<int, std::vector<std::pair<std::string, int64_t>>> tied_reads_;
  std::set<std::string> read_;    // tensors some node or the graph outputs read
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
