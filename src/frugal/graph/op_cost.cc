#include "frugal/graph/op_cost.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "frugal/graph/einsum.h"

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
  return 2.0 * out_elems * macs_per_out + BiasAddFlops(op);
}

Result<double> ConvTransposeFlops(const Op& op) {
  // Weight [C_in, C_out / groups, k...]: every input element is multiplied
  // by C_out / groups * prod(k) weights and scattered into the output, so
  // the count follows the input, whatever the strides, pads and
  // output_padding (which only decide where the products land).
  if (op.inputs.size() < 2 || op.inputs[1].shape.size() < 3) {
    return ShapeError(op, "conv_transpose needs a weight of rank >= 3");
  }
  const auto& x = op.inputs[0].shape;
  const auto& w = op.inputs[1].shape;
  if (x.size() != w.size() || x[1] != w[0]) {
    return ShapeError(op, "conv_transpose input " + ShapeString(x) +
                              " does not match weight " + ShapeString(w));
  }
  if (op.outputs.empty()) return ShapeError(op, "conv_transpose has no output");
  return 2.0 * static_cast<double>(op.inputs[0].NumElements()) *
             static_cast<double>(Product(w, 1)) +
         BiasAddFlops(op);
}

Result<double> RnnFlops(const Op& op) {
  FRUGAL_ASSIGN_OR_RETURN(RnnShape r, RnnShapeOf(op));
  // Per cell: the input and recurrent products, the add joining them, the
  // gate nonlinearities and state update.
  const double gh = static_cast<double>(r.gates * r.hidden);
  const double per_cell =
      2.0 * gh * static_cast<double>(r.input + r.hidden) + gh +
      r.cell_flops * static_cast<double>(r.hidden);
  return r.Cells() * per_cell + BiasAddFlops(op);
}

Result<double> EinsumOpFlops(const Op& op) {
  auto eq = op.attrs.strings.find("equation");
  if (eq == op.attrs.strings.end()) return ShapeError(op, "einsum without an equation");
  std::vector<std::vector<int64_t>> shapes;
  for (const auto& t : op.inputs) shapes.push_back(t.shape);
  Result<double> f = EinsumFlops(eq->second, shapes);
  if (!f.ok()) return ShapeError(op, f.status().message());
  return f;
}

Result<double> MatMulFlops(const Op& op) {
  // Y = X W (+ b): K is the reduction dim, taken from the activation input.
  if (op.inputs.empty() || op.outputs.empty()) return ShapeError(op, "missing input or output");
  const auto& x = op.inputs[0].shape;
  if (x.empty()) return ShapeError(op, "matmul input is a scalar");
  int64_t k = x.back();
  if (op.attrs.GetInt("transA", 0) != 0 && x.size() >= 2) k = x[x.size() - 2];
  double out_elems = static_cast<double>(op.outputs[0].NumElements());
  return 2.0 * out_elems * static_cast<double>(k) + BiasAddFlops(op);
}

Result<double> ComputeFlops(const Op& op) {
  switch (op.kind) {
    case OpKind::kConv: return ConvFlops(op);
    case OpKind::kConvTranspose: return ConvTransposeFlops(op);
    case OpKind::kRnn: return RnnFlops(op);
    case OpKind::kEinsum: return EinsumOpFlops(op);
    default: return MatMulFlops(op);
  }
}

double PoolWindow(const Op& op) {
  return static_cast<double>(Product(op.attrs.GetInts("kernel_shape")));
}

// Taps per output element along each resized dim: nearest 1, (bi/tri)linear
// 2, cubic 4; a multiply-add per tap. Dims whose size does not change are
// copied.
double ResizeFlops(const Op& op) {
  if (op.inputs.empty() || op.outputs.empty()) return 0;
  auto mode = op.attrs.strings.find("mode");
  const std::string m = mode == op.attrs.strings.end() ? "nearest" : mode->second;
  double taps = 1;
  if (m == "linear" || m == "bilinear") taps = 2;
  if (m == "cubic") taps = 4;
  if (taps == 1) return 0;
  const auto& in = op.inputs[0].shape;
  const auto& out = op.outputs[0].shape;
  int resized = 0;
  for (size_t i = 0; i < std::min(in.size(), out.size()); ++i) {
    resized += in[i] != out[i] ? 1 : 0;
  }
  if (resized == 0) return 0;
  return static_cast<double>(op.outputs[0].NumElements()) * 2 *
         std::pow(taps, resized);
}

// One compare per input element (table), plus sorting the k results when
// `sorted` (default 1): k log2 k compares per selected row.
double TopKSortFlops(const Op& op) {
  if (op.outputs.empty() || op.attrs.GetInt("sorted", 1) == 0) return 0;
  const auto& y = op.outputs[0].shape;
  if (y.empty()) return 0;
  int64_t axis = op.attrs.GetInt("axis", -1);
  if (axis < 0) axis += static_cast<int64_t>(y.size());
  if (axis < 0 || axis >= static_cast<int64_t>(y.size())) return 0;
  const double k = static_cast<double>(y[axis]);
  return k > 1 ? static_cast<double>(op.outputs[0].NumElements()) * std::log2(k) : 0;
}

// ScatterND / ScatterElements with reduction add / mul / max / min combine
// each update with the element it lands on.
double ScatterFlops(const Op& op) {
  auto r = op.attrs.strings.find("reduction");
  if (r == op.attrs.strings.end() || r->second == "none" || op.inputs.empty()) return 0;
  return static_cast<double>(op.inputs.back().NumElements());
}

}  // namespace

double CountedInputElements(const Op& op) {
  if (op.inputs.empty()) return 0;
  const auto& x = op.inputs[0];
  const double elems = static_cast<double>(x.NumElements());
  if (op.kind != OpKind::kNllLoss || x.shape.size() < 2 || x.shape[1] == 0) return elems;
  return elems / static_cast<double>(x.shape[1]);
}

double BiasAddFlops(const Op& op) {
  const double out_elems =
      op.outputs.empty() ? 0 : static_cast<double>(op.outputs[0].NumElements());
  switch (op.kind) {
    case OpKind::kConv:
    case OpKind::kConvTranspose: {
      // Bias [C_out]: one add per output element.
      const TensorInfo* b = FirstWithRole(op, TensorRole::kParameter, 1);
      if (b == nullptr && op.inputs.size() >= 3) b = &op.inputs[2];
      return b != nullptr && b->shape.size() == 1 ? out_elems : 0;
    }
    case OpKind::kMatMul: {
      int params = 0;
      for (const auto& t : op.inputs) params += t.role == TensorRole::kParameter;
      return op.inputs.size() >= 3 || params >= 2 ? out_elems : 0;
    }
    case OpKind::kRnn: {
      // ONNX's B holds the input and the recurrent bias: two adds per gate.
      Result<RnnShape> r = RnnShapeOf(op);
      if (!r.ok() || !r->bias) return 0;
      return r->Cells() * 2.0 * static_cast<double>(r->gates * r->hidden);
    }
    default:
      return 0;
  }
}

Result<RnnShape> RnnShapeOf(const Op& op) {
  if (op.inputs.size() < 3 || op.inputs[0].shape.size() != 3 ||
      op.inputs[1].shape.size() != 3 || op.inputs[2].shape.size() != 3) {
    return ShapeError(op, "rnn needs X, W and R of rank 3");
  }
  const auto& x = op.inputs[0].shape;
  const auto& w = op.inputs[1].shape;
  const auto& rr = op.inputs[2].shape;
  RnnShape r;
  const bool batch_first = op.attrs.GetInt("layout", 0) == 1;
  r.seq = batch_first ? x[1] : x[0];
  r.batch = batch_first ? x[0] : x[1];
  r.input = x[2];
  r.dirs = w[0];
  r.hidden = rr[2];
  if (op.type == "LSTM") r.gates = 4;
  if (op.type == "GRU") r.gates = 3;
  if (op.type == "RNN") r.gates = 1;
  if (r.gates == 0 && r.hidden > 0) r.gates = w[1] / r.hidden;
  if (r.gates != 1 && r.gates != 3 && r.gates != 4) {
    return ShapeError(op, "rnn of type '" + op.type + "' with W " + ShapeString(w) +
                              " is not an LSTM, GRU or RNN");
  }
  const int64_t h_attr = op.attrs.GetInt("hidden_size", r.hidden);
  if (r.hidden <= 0 || h_attr != r.hidden || w[1] != r.gates * r.hidden ||
      w[2] != r.input || rr[0] != r.dirs || rr[1] != w[1] || r.dirs < 1 ||
      r.dirs > 2) {
    return ShapeError(op, "rnn shapes disagree: X " + ShapeString(x) + ", W " +
                              ShapeString(w) + ", R " + ShapeString(rr) +
                              ", hidden_size " + std::to_string(h_attr));
  }
  auto dir = op.attrs.strings.find("direction");
  const int64_t want_dirs =
      dir != op.attrs.strings.end() && dir->second == "bidirectional" ? 2 : 1;
  if (want_dirs != r.dirs) {
    return ShapeError(op, "rnn direction disagrees with W " + ShapeString(w));
  }
  // Optional inputs are told apart by shape: B [dirs, 2*gates*H], P
  // [dirs, 3*H] (initial states are rank 3, sequence_lens rank 1).
  for (size_t i = 3; i < op.inputs.size(); ++i) {
    const auto& s = op.inputs[i].shape;
    if (s.size() != 2 || s[0] != r.dirs) continue;
    if (s[1] == 2 * r.gates * r.hidden) r.bias = true;
    if (r.gates == 4 && s[1] == 3 * r.hidden) r.peepholes = true;
  }
  // Cell arithmetic per hidden unit (sigmoid 4, tanh 1):
  //  LSTM: i, f, o sigmoids 12, g tanh 1, c = f*c + i*g 3, h = o*tanh(c) 2;
  //        backward: tanh(c) again 1, do / dc 5, df / di / dg / dc_prev 4,
  //        gate derivatives 3 * 3 + 3 = 12.
  //  GRU:  z, r sigmoids 8, r*(Rh + Rb) 1, tanh 1, h = (1-z)*n + z*h 4;
  //        backward: 20 (the same steps' derivatives).
  //  RNN:  tanh 1; backward g*(1-h^2) 3.
  switch (r.gates) {
    case 4: r.cell_flops = 18; r.cell_backward_flops = 22; break;
    case 3: r.cell_flops = 14; r.cell_backward_flops = 20; break;
    default: r.cell_flops = 1; r.cell_backward_flops = 3; break;
  }
  if (r.peepholes) {
    r.cell_flops += 6;  // three peephole multiply-adds
    r.cell_backward_flops += 6;
  }
  return r;
}

int64_t SequentialSteps(const Op& op) {
  if (op.kind != OpKind::kRnn) return 0;
  if (op.phase == Phase::kForward) {
    Result<RnnShape> r = RnnShapeOf(op);
    return r.ok() ? r->seq : 0;
  }
  return op.attrs.GetInt(kSequentialStepsAttr, 0);
}

Status ComputeForwardCost(Op& op) {
  if (op.kind == OpKind::kProfiled) return Status::Ok();
  if (!LaterInputsMayBeTrained(op.kind)) {
    // Resize scales, Clip bounds, Pad values held as float initializers are
    // constants of the graph, not weights.
    for (size_t i = 1; i < op.inputs.size(); ++i) {
      if (op.inputs[i].role == TensorRole::kParameter) op.inputs[i].role = TensorRole::kConstant;
    }
  }
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
      Result<double> f = ComputeFlops(op);
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
      op.flops = CountedInputElements(op) * ForwardFlopsPerElement(op.kind);
      break;
    case OpCategory::kPooling:
      if (op.kind == OpKind::kResize) {
        op.flops = ResizeFlops(op);
      } else {
        op.flops = (op.kind == OpKind::kMaxPool || op.kind == OpKind::kAvgPool)
                       ? out_elems * PoolWindow(op)
                       : in_elems;
      }
      break;
    case OpCategory::kReduction:
      op.flops = in_elems * ForwardFlopsPerElement(op.kind);
      if (op.kind == OpKind::kTopK) op.flops += TopKSortFlops(op);
      break;
    case OpCategory::kDataMovement:
      op.flops = op.kind == OpKind::kScatter ? ScatterFlops(op) : 0;
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

int64_t TensorBytesMoved(const Op& op, const TensorInfo& t) {
  if (t.role != TensorRole::kParameter || t.dtype != DType::kFloat32) return t.Bytes();
  auto math = op.attrs.strings.find("math");
  if (math == op.attrs.strings.end() || (math->second != "fp16" && math->second != "bf16")) {
    return t.Bytes();
  }
  return t.NumElements() * 2;
}

}  // namespace frugal
