#include "frugal/graph/backward.h"

#include <numeric>

#include "frugal/graph/op_cost.h"

namespace frugal {
namespace {

int64_t Product(const std::vector<int64_t>& v) {
  return std::accumulate(v.begin(), v.end(), int64_t{1}, std::multiplies<>());
}

bool IsActivation(const TensorInfo& t) { return t.role == TensorRole::kActivation; }

bool HasParams(const Op& op) {
  for (const auto& t : op.inputs) {
    if (t.role == TensorRole::kParameter) return true;
  }
  return false;
}

TensorInfo GradOf(const TensorInfo& t) {
  TensorInfo g = t;
  g.name = "grad:" + t.name;
  g.role = TensorRole::kActivation;
  if (g.dtype != DType::kFloat16 && g.dtype != DType::kBFloat16 &&
      g.dtype != DType::kFloat64) {
    g.dtype = DType::kFloat32;
  }
  return g;
}

int64_t SumBytes(const std::vector<TensorInfo>& ts) {
  int64_t b = 0;
  for (const auto& t : ts) b += t.Bytes();
  return b;
}

double OutElems(const Op& op) {
  return op.outputs.empty() ? 0 : static_cast<double>(op.outputs[0].NumElements());
}
double InElems(const Op& op) {
  return op.inputs.empty() ? 0 : static_cast<double>(op.inputs[0].NumElements());
}

// FLOPs of the input gradient of a non-compute op.
double NonComputeBackwardFlops(const Op& op) {
  switch (CategoryOf(op.kind)) {
    case OpCategory::kElementwise:
    case OpCategory::kRegularization:
      return OutElems(op) * BackwardFlopsPerElement(op.kind);
    case OpCategory::kNormalization:
    case OpCategory::kLoss:
      return CountedInputElements(op) * BackwardFlopsPerElement(op.kind);
    case OpCategory::kPooling:
      // Max pooling scatters each output gradient to its argmax; average
      // pooling spreads it over the window (one multiply-add per tap).
      // Resize spreads each output gradient over the taps it read (a
      // multiply-add each, as forward) or, nearest, adds it to its source.
      if (op.kind == OpKind::kResize) return op.flops > 0 ? op.flops : OutElems(op);
      if (op.kind == OpKind::kAvgPool) {
        return OutElems(op) * static_cast<double>(Product(op.attrs.GetInts("kernel_shape")));
      }
      return op.kind == OpKind::kMaxPool ? OutElems(op) : InElems(op);
    case OpCategory::kReduction:
      // TopK scatters the k gradients; the others broadcast the gradient
      // back with a per-element count.
      if (op.kind == OpKind::kTopK) return OutElems(op);
      return InElems(op) * BackwardFlopsPerElement(op.kind);
    case OpCategory::kLookup:
      return OutElems(op);  // scatter-add into the table or the source
    case OpCategory::kDataMovement:
      // Expand / Tile sum the gradient over the copies; reflect and edge
      // padding add the mirrored border gradients back in. Everything else
      // (constant padding included) moves bytes.
      if (op.kind == OpKind::kExpand) return OutElems(op);
      if (op.kind == OpKind::kPad) {
        auto mode = op.attrs.strings.find("mode");
        if (mode != op.attrs.strings.end() && mode->second != "constant") {
          return std::max(0.0, OutElems(op) - InElems(op));
        }
      }
      return 0;
    default:
      return 0;  // unknown ops are bytes-only
  }
}

bool IsFloating(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kBFloat16 ||
         t == DType::kFloat64 || t == DType::kUnknown;
}

Op NewBackward(const Op& fwd, const std::string& suffix, GradRole role) {
  Op b;
  b.name = fwd.name + suffix;
  b.kind = fwd.kind;
  b.type = fwd.type;
  b.phase = Phase::kBackward;
  b.grad = role;
  b.attrs = fwd.attrs;
  for (const auto& t : fwd.outputs) b.inputs.push_back(GradOf(t));
  return b;
}

// A backward op reads its tensors at the forward op's dtypes (the half
// copy of an autocast GEMM's weight included).
void FinishBytes(Op& b) {
  b.bytes_read = 0;
  for (const auto& t : b.inputs) b.bytes_read += TensorBytesMoved(b, t);
  b.bytes_written = SumBytes(b.outputs);
}

// Rows of the per-row statistics a normalisation saves: channels for batch
// norm, (N, C) for instance norm, (N, groups) for group norm, the dims left
// of `axis` for layer and RMS norm.
int64_t NormStatRows(const Op& op) {
  const auto& shape = op.inputs[0].shape;
  const int64_t n = shape.empty() ? 1 : shape[0];
  switch (op.kind) {
    case OpKind::kBatchNorm:
      return shape.size() > 1 ? shape[1] : 1;
    case OpKind::kInstanceNorm:
      return n * (shape.size() > 1 ? shape[1] : 1);
    case OpKind::kGroupNorm:
      return n * op.attrs.GetInt("num_groups", 1);
    default: {
      int64_t axis = op.attrs.GetInt("axis", -1);
      if (axis < 0) axis += static_cast<int64_t>(shape.size());
      int64_t rows = 1;
      for (int64_t i = 0; i < axis && i < static_cast<int64_t>(shape.size()); ++i) {
        rows *= shape[i];
      }
      return rows;
    }
  }
}

// Backpropagation through time: the data-gradient op carries the recurrence
// (dh_{t-1} = dgates * R and the cell derivatives, every step) and the input
// gradient dX = dgates * W; the weight-gradient op dW, dR and the bias sums.
// When no activation needs a gradient the recurrence moves to the weight
// op, which cannot do without it.
std::vector<Op> RnnBackwardOps(const Op& op, const std::vector<int>& act_inputs,
                               const std::vector<bool>& grad_inputs,
                               const std::vector<TensorInfo>& saved) {
  std::vector<Op> ops;
  Result<RnnShape> shape = RnnShapeOf(op);
  if (!shape.ok()) return ops;
  const RnnShape& r = *shape;
  const double cells = r.Cells();
  const double gh = static_cast<double>(r.gates * r.hidden);
  const double recurrence =
      cells * (2.0 * gh * static_cast<double>(r.hidden) +
               r.cell_backward_flops * static_cast<double>(r.hidden));
  const double input_grad = cells * 2.0 * gh * static_cast<double>(r.input);
  const double weight_grad =
      cells * 2.0 * gh * static_cast<double>(r.input + r.hidden) + (r.bias ? cells * gh : 0);
  bool any_data = false;
  Op data = NewBackward(op, ".grad_data", GradRole::kData);
  for (const auto& t : saved) data.inputs.push_back(t);
  for (size_t k = 0; k < act_inputs.size(); ++k) {
    if (k >= grad_inputs.size() || !grad_inputs[k]) continue;
    any_data = true;
    data.outputs.push_back(GradOf(op.inputs[act_inputs[k]]));
  }
  const bool x_grad = !grad_inputs.empty() && grad_inputs[0] && !act_inputs.empty() &&
                      act_inputs[0] == 0;
  // The op holding the recurrence runs its steps in order (SequentialSteps).
  const std::vector<int64_t> steps = {r.seq};
  if (any_data) {
    data.flops = recurrence + (x_grad ? input_grad : 0);
    data.attrs.ints[kSequentialStepsAttr] = steps;
    FinishBytes(data);
    ops.push_back(std::move(data));
  }
  if (HasParams(op)) {
    Op b = NewBackward(op, ".grad_weight", GradRole::kWeight);
    for (const auto& t : saved) b.inputs.push_back(t);
    for (const auto& t : op.inputs) {
      if (t.role == TensorRole::kParameter) b.outputs.push_back(GradOf(t));
    }
    b.flops = weight_grad + (any_data ? 0 : recurrence);
    if (any_data) {
      b.attrs.ints.erase(kSequentialStepsAttr);
    } else {
      b.attrs.ints[kSequentialStepsAttr] = steps;
    }
    FinishBytes(b);
    ops.push_back(std::move(b));
  }
  return ops;
}

}  // namespace

bool HasGradient(const Op& op) {
  if (CategoryOf(op.kind) == OpCategory::kMeta) return false;
  if (op.kind == OpKind::kRound || op.kind == OpKind::kCompare || op.kind == OpKind::kRandom ||
      op.kind == OpKind::kNonZero || op.kind == OpKind::kOneHot) {
    return false;
  }
  if (op.outputs.empty()) return true;
  for (const auto& t : op.outputs) {
    if (IsFloating(t.dtype)) return true;
  }
  return false;
}

std::vector<TensorInfo> SavedForBackward(const Op& op) {
  std::vector<TensorInfo> saved;
  auto activations = [&] {
    for (const auto& t : op.inputs) {
      if (IsActivation(t)) saved.push_back(t);
    }
  };
  switch (op.kind) {
    case OpKind::kConv:
    case OpKind::kConvTranspose:
    case OpKind::kMatMul:
      // The weight gradient needs the input; the data gradient only the weight.
      if (HasParams(op) && !op.inputs.empty() && IsActivation(op.inputs[0])) {
        saved.push_back(op.inputs[0]);
      }
      break;
    case OpKind::kMul: case OpKind::kDiv: case OpKind::kEinsum: {
      // Each input's gradient needs the other input: scaling by a constant
      // saves nothing; an einsum with a weight keeps its input.
      int acts = 0;
      for (const auto& t : op.inputs) acts += IsActivation(t) ? 1 : 0;
      if (acts >= 2 || (op.kind == OpKind::kEinsum && HasParams(op))) activations();
      break;
    }
    case OpKind::kRnn: {
      // The input (for dW) and, per direction and step, the gates and the
      // states the cell derivatives need: LSTM gates + c + h (6H), GRU
      // gates + h + r*h (5H), RNN h.
      if (!op.inputs.empty() && IsActivation(op.inputs[0])) saved.push_back(op.inputs[0]);
      Result<RnnShape> r = RnnShapeOf(op);
      if (r.ok()) {
        const int64_t per_cell = r->gates == 4 ? 6 : (r->gates == 3 ? 5 : 1);
        saved.push_back(TensorInfo{"rnn_states:" + op.name, DType::kFloat32,
                                   {r->dirs, r->seq, r->batch, per_cell * r->hidden}});
      }
      break;
    }
    case OpKind::kWhere:
      // The gradient is routed by the condition alone.
      for (const auto& t : op.inputs) {
        if (IsActivation(t) && t.dtype == DType::kBool) saved.push_back(t);
      }
      break;
    case OpKind::kBatchMatMul:
    case OpKind::kGelu: case OpKind::kGeluTanh: case OpKind::kSilu:
    case OpKind::kErf: case OpKind::kPow:
    case OpKind::kLeakyRelu: case OpKind::kHardSwish: case OpKind::kHardSigmoid:
    case OpKind::kClip: case OpKind::kGlobalMaxPool:
    case OpKind::kReduceMax: case OpKind::kCrossEntropy: case OpKind::kUnknown:
    case OpKind::kPRelu: case OpKind::kSelu: case OpKind::kCelu: case OpKind::kMish:
    case OpKind::kSoftplus: case OpKind::kSoftsign: case OpKind::kAbs: case OpKind::kLog:
    case OpKind::kSinCos: case OpKind::kTrig: case OpKind::kMod:
    case OpKind::kReduceProd: case OpKind::kReduceNorm: case OpKind::kReduceLogSumExp:
      activations();
      break;
    case OpKind::kRelu: case OpKind::kSigmoid: case OpKind::kTanh:
    case OpKind::kExp: case OpKind::kSqrt: case OpKind::kSoftmax:
    case OpKind::kElu: case OpKind::kReciprocal:
      if (!op.outputs.empty()) saved.push_back(op.outputs[0]);
      break;
    case OpKind::kLayerNorm: case OpKind::kRmsNorm: case OpKind::kBatchNorm:
    case OpKind::kInstanceNorm: case OpKind::kGroupNorm: {
      if (op.inputs.empty()) break;
      saved.push_back(op.inputs[0]);
      // Per-row (or per-channel) mean and inverse std, fp32.
      saved.push_back(
          TensorInfo{"stats:" + op.name, DType::kFloat32, {2, NormStatRows(op)}});
      break;
    }
    case OpKind::kTopK:
      // The indices route the k gradients back.
      if (op.outputs.size() > 1) saved.push_back(op.outputs[1]);
      break;
    case OpKind::kMaxPool:
      if (!op.inputs.empty()) saved.push_back(op.inputs[0]);
      if (!op.outputs.empty()) {
        saved.push_back(TensorInfo{"indices:" + op.name, DType::kInt64, op.outputs[0].shape});
      }
      break;
    case OpKind::kEmbedding: case OpKind::kGather: case OpKind::kScatter:
    case OpKind::kNllLoss:
      for (const auto& t : op.inputs) {
        if (!t.IsWeight() && (t.dtype == DType::kInt64 || t.dtype == DType::kInt32)) {
          saved.push_back(t);
        }
      }
      break;
    case OpKind::kDropout:
      if (!op.outputs.empty()) {
        saved.push_back(TensorInfo{"mask:" + op.name, DType::kBool, op.outputs[0].shape});
      }
      break;
    default:
      break;  // add, sub, neg, cast, pooling by average, data movement
  }
  return saved;
}

std::vector<Op> MakeBackwardOps(const Op& op, const std::vector<bool>& grad_inputs,
                                int fan_out) {
  std::vector<Op> ops;
  std::vector<int> act_inputs;  // indices into op.inputs of activations
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    if (IsActivation(op.inputs[i])) act_inputs.push_back(static_cast<int>(i));
  }
  auto needs_grad = [&](size_t k) { return k < grad_inputs.size() && grad_inputs[k]; };
  bool any_data = false;
  for (size_t k = 0; k < act_inputs.size(); ++k) any_data |= needs_grad(k);
  const bool params = HasParams(op);
  if (!any_data && !params) return ops;

  const std::vector<TensorInfo> saved = SavedForBackward(op);
  if (op.kind == OpKind::kRnn) {
    ops = RnnBackwardOps(op, act_inputs, grad_inputs, saved);
  } else if (CategoryOf(op.kind) == OpCategory::kCompute) {
    // Each gradient of a product costs one product of the same size: the
    // forward FLOPs less the bias adds.
    const double bias = BiasAddFlops(op);
    const double product = op.flops - bias;
    for (size_t k = 0; k < act_inputs.size(); ++k) {
      if (!needs_grad(k)) continue;
      Op b = NewBackward(op, act_inputs.size() > 1 ? ".grad_in" + std::to_string(k)
                                                    : ".grad_data",
                         GradRole::kData);
      for (const auto& t : op.inputs) {
        if (&t != &op.inputs[act_inputs[k]]) b.inputs.push_back(t);
      }
      b.outputs.push_back(GradOf(op.inputs[act_inputs[k]]));
      b.flops = product;
      FinishBytes(b);
      ops.push_back(std::move(b));
    }
    if (params) {
      Op b = NewBackward(op, ".grad_weight", GradRole::kWeight);
      for (const auto& t : saved) b.inputs.push_back(t);
      for (const auto& t : op.inputs) {
        if (t.role == TensorRole::kParameter) b.outputs.push_back(GradOf(t));
      }
      b.flops = product + bias;  // bias gradient: reduce over the output
      FinishBytes(b);
      ops.push_back(std::move(b));
    }
  } else {
    Op b = NewBackward(op, ".grad", any_data ? GradRole::kData : GradRole::kWeight);
    for (const auto& t : saved) b.inputs.push_back(t);
    for (size_t k = 0; k < act_inputs.size(); ++k) {
      if (needs_grad(k)) b.outputs.push_back(GradOf(op.inputs[act_inputs[k]]));
    }
    for (const auto& t : op.inputs) {
      if (t.role == TensorRole::kParameter) b.outputs.push_back(GradOf(t));
    }
    b.flops = any_data ? NonComputeBackwardFlops(op) : 0;
    if (params) {
      // Parameter gradients of norms and lookups reduce over the batch.
      b.flops += op.kind == OpKind::kEmbedding ? OutElems(op) : InElems(op) * 2;
    }
    FinishBytes(b);
    ops.push_back(std::move(b));
  }
  if (fan_out > 1 && !op.outputs.empty() && !ops.empty()) {
    // Autograd sums the gradients arriving from several consumers.
    ops.front().flops += (fan_out - 1) * OutElems(op);
  }
  return ops;
}

}  // namespace frugal
