#include "frugal/graph/backward.h"

#include <numeric>

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
      return InElems(op) * BackwardFlopsPerElement(op.kind);
    case OpCategory::kPooling:
      // Max pooling scatters each output gradient to its argmax; average
      // pooling spreads it over the window (one multiply-add per tap).
      if (op.kind == OpKind::kAvgPool) {
        return OutElems(op) * static_cast<double>(Product(op.attrs.GetInts("kernel_shape")));
      }
      return op.kind == OpKind::kMaxPool ? OutElems(op) : InElems(op);
    case OpCategory::kReduction:
      return InElems(op);  // broadcast the gradient back
    case OpCategory::kLookup:
      return OutElems(op);  // scatter-add into the table or the source
    default:
      return 0;  // data movement moves bytes; unknown ops are bytes-only
  }
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

void FinishBytes(Op& b) {
  b.bytes_read = SumBytes(b.inputs);
  b.bytes_written = SumBytes(b.outputs);
}

}  // namespace

std::vector<TensorInfo> SavedForBackward(const Op& op) {
  std::vector<TensorInfo> saved;
  auto activations = [&] {
    for (const auto& t : op.inputs) {
      if (IsActivation(t)) saved.push_back(t);
    }
  };
  switch (op.kind) {
    case OpKind::kConv:
    case OpKind::kMatMul:
      // The weight gradient needs the input; the data gradient only the weight.
      if (HasParams(op) && !op.inputs.empty() && IsActivation(op.inputs[0])) {
        saved.push_back(op.inputs[0]);
      }
      break;
    case OpKind::kMul: case OpKind::kDiv: {
      // Each input's gradient needs the other input: scaling by a constant
      // saves nothing.
      int acts = 0;
      for (const auto& t : op.inputs) acts += IsActivation(t) ? 1 : 0;
      if (acts >= 2) activations();
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
      activations();
      break;
    case OpKind::kRelu: case OpKind::kSigmoid: case OpKind::kTanh:
    case OpKind::kExp: case OpKind::kSqrt: case OpKind::kSoftmax:
      if (!op.outputs.empty()) saved.push_back(op.outputs[0]);
      break;
    case OpKind::kLayerNorm: case OpKind::kRmsNorm: case OpKind::kBatchNorm: {
      if (op.inputs.empty()) break;
      saved.push_back(op.inputs[0]);
      // Per-row (or per-channel) mean and inverse std, fp32.
      const auto& shape = op.inputs[0].shape;
      int64_t rows = op.kind == OpKind::kBatchNorm
                         ? (shape.size() > 1 ? shape[1] : 1)
                         : (shape.empty() || shape.back() == 0
                                ? 0
                                : op.inputs[0].NumElements() / shape.back());
      saved.push_back(TensorInfo{"stats:" + op.name, DType::kFloat32, {2, rows}});
      break;
    }
    case OpKind::kMaxPool:
      if (!op.inputs.empty()) saved.push_back(op.inputs[0]);
      if (!op.outputs.empty()) {
        saved.push_back(TensorInfo{"indices:" + op.name, DType::kInt64, op.outputs[0].shape});
      }
      break;
    case OpKind::kEmbedding: case OpKind::kGather:
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
  if (CategoryOf(op.kind) == OpCategory::kCompute) {
    // Each gradient of a product costs one product of the same size: the
    // forward FLOPs less the bias adds.
    double bias = 0;
    int nparams = 0;
    for (const auto& t : op.inputs) nparams += t.role == TensorRole::kParameter;
    if (op.kind == OpKind::kConv ? nparams >= 2 : (nparams >= 2 || op.inputs.size() >= 3)) {
      bias = OutElems(op);
    }
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
  if (fan_out > 1 && !op.outputs.empty()) {
    // Autograd sums the gradients arriving from several consumers.
    ops.front().flops += (fan_out - 1) * OutElems(op);
  }
  return ops;
}

}  // namespace frugal
