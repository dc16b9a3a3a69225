#include "frugal/graph/graph_json.h"

#include <cstdint>
#include <limits>
#include <type_traits>

#include "frugal/base/file_io.h"

namespace frugal {
namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

ojson TensorToJson(const TensorInfo& t) {
  return ojson{{"name", t.name},
              {"dtype", DTypeName(t.dtype)},
              {"shape", t.shape},
              {"role", TensorRoleName(t.role)}};
}

ojson AttrsToJson(const Attributes& a) {
  ojson j = ojson::object();
  if (!a.ints.empty()) j["ints"] = a.ints;
  if (!a.floats.empty()) j["floats"] = a.floats;
  if (!a.strings.empty()) j["strings"] = a.strings;
  return j;
}

// Reads typed fields and turns nlohmann's type errors into one-line
// messages naming the field.
class Reader {
 public:
  explicit Reader(std::string what) : what_(std::move(what)) {}

  template <typename T>
  Status Get(const json& obj, const char* key, T* out, bool required = true) {
    if (!obj.is_object()) return InvalidArgument(what_ + ": expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (!required) return Status::Ok();
      return InvalidArgument(what_ + ": missing field '" + key + "'");
    }
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      // nlohmann would truncate an out-of-range integer or cast a float.
      const bool fits = it->is_number_unsigned()
                            ? it->get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max())
                            : it->is_number_integer() && it->get<int64_t>() >= std::numeric_limits<T>::min() &&
                                  it->get<int64_t>() <= std::numeric_limits<T>::max();
      if (!fits) {
        return InvalidArgument(what_ + ": field '" + key + "' is " + it->dump() + ", not an integer in [" +
                               std::to_string(std::numeric_limits<T>::min()) + ", " +
                               std::to_string(std::numeric_limits<T>::max()) + "]");
      }
    }
    try {
      *out = it->get<T>();
    } catch (const json::exception&) {
      return InvalidArgument(what_ + ": field '" + key + "' has the wrong type");
    }
    return Status::Ok();
  }

  Status Tensor(const json& j, TensorInfo* t) {
    std::string dtype = "float32", role = "activation";
    FRUGAL_RETURN_IF_ERROR(Get(j, "name", &t->name));
    FRUGAL_RETURN_IF_ERROR(Get(j, "dtype", &dtype));
    FRUGAL_RETURN_IF_ERROR(Get(j, "shape", &t->shape));
    FRUGAL_RETURN_IF_ERROR(Get(j, "role", &role, false));
    if (!ParseDType(dtype, &t->dtype)) return Bad("unknown dtype '" + dtype + "'");
    if (!ParseTensorRole(role, &t->role)) return Bad("unknown tensor role '" + role + "'");
    return Status::Ok();
  }

  Status Tensors(const json& op, const char* key, std::vector<TensorInfo>* out) {
    json arr = json::array();
    FRUGAL_RETURN_IF_ERROR(Get(op, key, &arr, false));
    if (!arr.is_array()) return Bad(std::string("'") + key + "' is not an array");
    for (const json& t : arr) {
      out->emplace_back();
      FRUGAL_RETURN_IF_ERROR(Tensor(t, &out->back()));
    }
    return Status::Ok();
  }

  Status Bad(const std::string& m) { return InvalidArgument(what_ + ": " + m); }
  void SetWhat(std::string w) { what_ = std::move(w); }

 private:
  std::string what_;
};

}  // namespace

ojson GraphToJson(const OpGraph& g) {
  ojson ops = ojson::array();
  for (const Op& op : g.ops) {
    ojson j{{"name", op.name},
           {"kind", OpKindName(op.kind)},
           {"type", op.type},
           {"phase", PhaseName(op.phase)},
           {"grad", GradRoleName(op.grad)},
           {"forward_op", op.forward_op},
           {"attrs", AttrsToJson(op.attrs)},
           {"param_count", op.param_count},
           {"param_bytes", op.param_bytes},
           {"flops", op.flops},
           {"bytes_read", op.bytes_read},
           {"bytes_written", op.bytes_written},
           {"measured_time_ms", op.measured_time_ms},
           {"measured_cpu_time_ms", op.measured_cpu_time_ms},
           {"measured_mem_bytes", op.measured_mem_bytes},
           {"color_class", op.color_class}};
    j["inputs"] = ojson::array();
    for (const auto& t : op.inputs) j["inputs"].push_back(TensorToJson(t));
    j["outputs"] = ojson::array();
    for (const auto& t : op.outputs) j["outputs"].push_back(TensorToJson(t));
    ops.push_back(std::move(j));
  }
  ojson edges = ojson::array();
  for (const Edge& e : g.edges) {
    edges.push_back(ojson{{"src", e.src},
                         {"dst", e.dst},
                         {"bytes", e.bytes},
                         {"tensor", e.tensor},
                         {"measured_cost_ms", e.measured_cost_ms}});
  }
  return ojson{{"format", kGraphFormatTag},
              {"version", kGraphFormatVersion},
              {"name", g.name},
              {"source_format", g.source_format},
              {"batch", g.batch},
              {"seq_len", g.seq_len},
              {"module_prefix", g.module_prefix},
              {"device_mem_bytes", g.device_mem_bytes},
              {"ops", std::move(ops)},
              {"edges", std::move(edges)}};
}

Result<OpGraph> GraphFromJson(const json& j, const std::string& what) {
  Reader r(what);
  if (!j.is_object()) return r.Bad("top level is not an object");
  std::string format;
  int version = 0;
  FRUGAL_RETURN_IF_ERROR(r.Get(j, "format", &format));
  if (format != kGraphFormatTag) return r.Bad("not a frugal graph (format '" + format + "')");
  FRUGAL_RETURN_IF_ERROR(r.Get(j, "version", &version));
  if (version != kGraphFormatVersion) {
    return r.Bad("unsupported version " + std::to_string(version));
  }
  OpGraph g;
  FRUGAL_RETURN_IF_ERROR(r.Get(j, "name", &g.name));
  FRUGAL_RETURN_IF_ERROR(r.Get(j, "source_format", &g.source_format, false));
  FRUGAL_RETURN_IF_ERROR(r.Get(j, "batch", &g.batch, false));
  FRUGAL_RETURN_IF_ERROR(r.Get(j, "seq_len", &g.seq_len, false));
  FRUGAL_RETURN_IF_ERROR(r.Get(j, "module_prefix", &g.module_prefix, false));
  FRUGAL_RETURN_IF_ERROR(r.Get(j, "device_mem_bytes", &g.device_mem_bytes, false));
  json ops, edges;
  FRUGAL_RETURN_IF_ERROR(r.Get(j, "ops", &ops));
  FRUGAL_RETURN_IF_ERROR(r.Get(j, "edges", &edges));
  if (!ops.is_array() || !edges.is_array()) return r.Bad("'ops' and 'edges' must be arrays");
  if (ops.empty()) return r.Bad("'ops' is empty: there is nothing to price");
  for (size_t i = 0; i < ops.size(); ++i) {
    r.SetWhat(what + ": op " + std::to_string(i));
    const json& o = ops[i];
    Op op;
    std::string kind, phase = "forward", grad = "none";
    FRUGAL_RETURN_IF_ERROR(r.Get(o, "name", &op.name));
    FRUGAL_RETURN_IF_ERROR(r.Get(o, "kind", &kind));
    FRUGAL_RETURN_IF_ERROR(r.Get(o, "type", &op.type, false));
    FRUGAL_RETURN_IF_ERROR(r.Get(o, "phase", &phase, false));
    FRUGAL_RETURN_IF_ERROR(r.Get(o, "grad", &grad, false));
    if (!ParseOpKind(kind, &op.kind)) return r.Bad("unknown kind '" + kind + "'");
    if (!ParsePhase(phase, &op.phase)) return r.Bad("unknown phase '" + phase + "'");
    if (!ParseGradRole(grad, &op.grad)) return r.Bad("unknown grad role '" + grad + "'");
    FRUGAL_RETURN_IF_ERROR(r.Get(o, "forward_op", &op.forward_op, false));
    json attrs = json::object();
    FRUGAL_RETURN_IF_ERROR(r.Get(o, "attrs", &attrs, false));
    FRUGAL_RETURN_IF_ERROR(r.Get(attrs, "ints", &op.attrs.ints, false));
    FRUGAL_RETURN_IF_ERROR(r.Get(attrs, "floats", &op.attrs.floats, false));
    FRUGAL_RETURN_IF_ERROR(r.Get(attrs, "strings", &op.attrs.strings, false));
    FRUGAL_RETURN_IF_ERROR(r.Get(o, "param_count", &op.param_count, false));
    FRUGAL_RETURN_IF_ERROR(r.Get(o, "param_bytes", &op.param_bytes, false));
    FRUGAL_RETURN_IF_ERROR(r.Get(o, "flops", &op.flops, false));
    FRUGAL_RETURN_IF_ERROR(r.Get(o, "bytes_read", &op.bytes_read, false));
    FRUGAL_RETURN_IF_ERROR(r.Get(o, "bytes_written", &op.bytes_written, false));
    FRUGAL_RETURN_IF_ERROR(r.Get(o, "measured_time_ms", &op.measured_time_ms, false));
    FRUGAL_RETURN_IF_ERROR(r.Get(o, "measured_cpu_time_ms", &op.measured_cpu_time_ms, false));
    FRUGAL_RETURN_IF_ERROR(r.Get(o, "measured_mem_bytes", &op.measured_mem_bytes, false));
    FRUGAL_RETURN_IF_ERROR(r.Get(o, "color_class", &op.color_class, false));
    FRUGAL_RETURN_IF_ERROR(r.Tensors(o, "inputs", &op.inputs));
    FRUGAL_RETURN_IF_ERROR(r.Tensors(o, "outputs", &op.outputs));
    g.AddOp(std::move(op));
  }
  for (size_t i = 0; i < edges.size(); ++i) {
    r.SetWhat(what + ": edge " + std::to_string(i));
    Edge e;
    FRUGAL_RETURN_IF_ERROR(r.Get(edges[i], "src", &e.src));
    FRUGAL_RETURN_IF_ERROR(r.Get(edges[i], "dst", &e.dst));
    FRUGAL_RETURN_IF_ERROR(r.Get(edges[i], "bytes", &e.bytes, false));
    FRUGAL_RETURN_IF_ERROR(r.Get(edges[i], "tensor", &e.tensor, false));
    FRUGAL_RETURN_IF_ERROR(r.Get(edges[i], "measured_cost_ms", &e.measured_cost_ms, false));
    g.edges.push_back(std::move(e));
  }
  return g;
}

Status WriteGraphJson(const OpGraph& g, const std::string& path) {
  return WriteStringToFile(path, GraphToJson(g).dump(1) + "\n");
}

}  // namespace frugal
