#include "frugal/graph/op_cost.h"

#include <set>

namespace frugal {
namespace {

int64_t SumBytes(const std::vector<TensorInfo>& ts) {
  int64_t b = 0;
  for (const auto& t : ts) {
    if (t.role != TensorRole::kConstant) b += t.Bytes();
  }
  return b;
}

int64_t Product(const std::vector<int64_t>& v, size_t from = 0) {
  int64_t p = 1;
  for (size_t i = from; i < v.size(); ++i) p *= v[i];
  return p;
}

const TensorInfo* FirstWithRole(const Op& op, TensorRole role, int nth = 0) {
  for (const auto& t : op.inputs) {
    if (t.role == role && nth-- == 0) return &t;
  }
  return nullptr;
}

Status ShapeError(const Op& op, const std::string& what) {
  return InvalidArgument("op '" + op.name + "' (" + OpKindName(op.kind) +
                         "): " + what);
}

Result<double> ConvFlops(const Op& op) {
  // Weight [C_out, C_in / groups, k...]; output [N, C_out, out...].
  const TensorInfo* w = FirstWithRole(op, TensorRole::kParameter);
  if (w == nullptr) w = op.inputs.size() > 1 ? &op.inputs[1] : nullptr;
  if (w == nullptr || w->shape.size() < 3) return ShapeError(op, "conv needs a weight of rank >= 3");
  if (op.outputs.empty()) return ShapeError(op, "conv has no output");
  double out_elems = static_cast<double>(op.outputs[0].NumElements());
  double macs_per_out = static_cast<double>(Product(w->shape, 1));
  double flops = 2.0 * out_elems * macs_per_out;
  // Bias: one add per output element.
  const TensorInfo* b = FirstWithRole(op, TensorRole::kParameter, 1);
  if (b != nullptr && b->shape.size() == 1) flops += out_elems;
  return flops;
}

Result<double> MatMulFlops(const Op& op) {
  // Y = X W (+ b): K is the reduction dim, taken from the activation input.
  if (op.inputs.empty() || op.outputs.empty()) return ShapeError(op, "missing input or output");
  const auto& x = op.inputs[0].shape;
  if (x.empty()) return ShapeError(op, "matmul input is a scalar");
  int64_t k = x.back();
  if (op.attrs.GetInt("transA", 0) != 0 && x.size() >= 2) k = x[x.size() - 2];
  double out_elems = static_cast<double>(op.outputs[0].NumElements());
  double flops = 2.0 * out_elems * static_cast<double>(k);
  int params = 0;
  for (const auto& t : op.inputs) params += t.role == TensorRole::kParameter;
  bool has_bias = op.inputs.size() >= 3 || (params >= 2);
  if (has_bias) flops += out_elems;
  return flops;
}

double PoolWindow(const Op& op) {
  return static_cast<double>(Product(op.attrs.GetInts("kernel_shape")));
}

}  // namespace

Status ComputeForwardCost(Op& op) {
  if (op.kind == OpKind::kProfiled) return Status::Ok();
  op.param_count = 0;
  op.param_bytes = 0;
  for (const auto& t : op.inputs) {
    if (t.role == TensorRole::kParameter) {
      op.param_count += t.NumElements();
      op.param_bytes += t.Bytes();
    }
  }
  const OpCategory cat = CategoryOf(op.kind);
  if (cat == OpCategory::kMeta) {
    op.flops = 0;
    op.bytes_read = op.bytes_written = 0;
    return Status::Ok();
  }
  op.bytes_read = SumBytes(op.inputs);
  op.bytes_written = SumBytes(op.outputs);
  if (cat == OpCategory::kLookup && !op.outputs.empty()) {
    // A lookup reads the rows it gathers, not the whole table.
    op.bytes_read = op.bytes_written;
    for (const auto& t : op.inputs) {
      if (t.dtype == DType::kInt64 || t.dtype == DType::kInt32) op.bytes_read += t.Bytes();
    }
  }
  double out_elems = op.outputs.empty() ? 0 : static_cast<double>(op.outputs[0].NumElements());
  double in_elems = op.inputs.empty() ? 0 : static_cast<double>(op.inputs[0].NumElements());
  switch (cat) {
    case OpCategory::kCompute: {
      Result<double> f = op.kind == OpKind::kConv ? ConvFlops(op) : MatMulFlops(op);
      if (!f.ok()) return f.status();
      op.flops = *f;
      break;
    }
    case OpCategory::kElementwise:
    case OpCategory::kRegularization:
      op.flops = out_elems * ForwardFlopsPerElement(op.kind);
      break;
    case OpCategory::kNormalization:
    case OpCategory::kLoss:
      op.flops = in_elems * ForwardFlopsPerElement(op.kind);
      break;
    case OpCategory::kPooling:
      op.flops = (op.kind == OpKind::kMaxPool || op.kind == OpKind::kAvgPool)
                     ? out_elems * PoolWindow(op)
                     : in_elems;
      break;
    case OpCategory::kReduction:
      op.flops = in_elems;
      break;
    default:  // lookups, data movement, optimizer, unknown: bytes only
      op.flops = 0;
      break;
  }
  return Status::Ok();
}

Status FinalizeForwardCosts(OpGraph& graph) {
  for (Op& op : graph.ops) FRUGAL_RETURN_IF_ERROR(ComputeForwardCost(op));
  FRUGAL_ASSIGN_OR_RETURN(std::vector<int> order, graph.TopologicalOrder());
  std::set<std::string> seen;
  for (int i : order) {
    Op& op = graph.ops[i];
    for (const auto& t : op.inputs) {
      if (t.role != TensorRole::kParameter) continue;
      if (!seen.insert(t.name).second) {
        op.param_count -= t.NumElements();
        op.param_bytes -= t.Bytes();
      }
    }
  }
  return Status::Ok();
}

int64_t TotalParameters(const OpGraph& graph) {
  int64_t n = 0;
  for (const Op& op : graph.ops) n += op.param_count;
  return n;
}

}  // namespace frugal
