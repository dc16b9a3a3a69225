#include "frugal/plan/precision.h"

#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "frugal/base/enum_names.h"
#include "frugal/graph/op_cost.h"

namespace frugal {
namespace {

constexpr const char* kPrecisionNames[] = {"fp32", "tf32", "fp16", "bf16", "amp-fp16", "amp-bf16"};

// torch.amp's "CUDA ops that can autocast to float16": matmul / linear / mm
// / bmm / baddbmm / addmm, conv*d and conv_transpose*d, the RNN cells, prelu.
bool AutocastToHalf(OpKind k) { return RunsOnTensorCores(k) || k == OpKind::kPRelu; }

// torch.amp's "CUDA ops that can autocast to float32" that frugal has a
// kind for: pow, exp, log, reciprocal, softplus, softmax / log_softmax,
// layer_norm, group_norm, norm (RMS norm is computed as one), sum, prod,
// cumsum, logsumexp, cross_entropy, nll_loss.
bool AutocastToFloat(OpKind k) {
  switch (k) {
    case OpKind::kPow: case OpKind::kExp: case OpKind::kLog: case OpKind::kReciprocal:
    case OpKind::kSoftplus: case OpKind::kSoftmax: case OpKind::kLayerNorm:
    case OpKind::kGroupNorm: case OpKind::kRmsNorm: case OpKind::kReduceSum:
    case OpKind::kReduceProd: case OpKind::kReduceNorm: case OpKind::kReduceLogSumExp:
    case OpKind::kCumSum: case OpKind::kCrossEntropy: case OpKind::kNllLoss:
      return true;
    default:
      return false;
  }
}

// PyTorch type promotion among floats: float64 > float32 > the half types;
// float16 with bfloat16 promotes to float32.
DType Promote(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::kFloat64 || b == DType::kFloat64) return DType::kFloat64;
  return DType::kFloat32;
}

struct Sides {
  double in = 0, out = 0, params = 0;
};

Sides BytesOf(const Op& op) {
  Sides s;
  for (const auto& t : op.inputs) {
    s.in += static_cast<double>(TensorBytesMoved(op, t));
    if (t.role == TensorRole::kParameter) s.params += static_cast<double>(t.Bytes());
  }
  for (const auto& t : op.outputs) s.out += static_cast<double>(TensorBytesMoved(op, t));
  return s;
}

int64_t Scaled(int64_t bytes, double before, double after) {
  if (before <= 0 || bytes <= 0) return bytes;
  return static_cast<int64_t>(std::llround(static_cast<double>(bytes) * after / before));
}

// autocast: dtypes flow from producers; the op lists decide outputs.
void AutocastOp(Op& op, DType half, std::map<std::string, DType>& produced) {
  for (auto& t : op.inputs) {
    if (t.role != TensorRole::kActivation) continue;
    auto it = produced.find(t.name);
    if (it != produced.end() && IsFloatDType(t.dtype) && IsFloatDType(it->second)) t.dtype = it->second;
  }
  std::optional<DType> out;
  if (AutocastToHalf(op.kind)) {
    // The op reads the half copies autocast makes of its float inputs
    // (parameters: see TensorBytesMoved).
    for (auto& t : op.inputs) {
      if (t.role == TensorRole::kActivation && IsFloatDType(t.dtype)) t.dtype = half;
    }
    out = half;
  } else if (AutocastToFloat(op.kind)) {
    out = DType::kFloat32;
  } else {
    for (const auto& t : op.inputs) {
      if (t.role != TensorRole::kActivation || !IsFloatDType(t.dtype)) continue;
      out = out ? Promote(*out, t.dtype) : t.dtype;
    }
  }
  for (auto& t : op.outputs) {
    if (out && IsFloatDType(t.dtype)) t.dtype = *out;
    produced[t.name] = t.dtype;
  }
}

void CastModel(Op& op, DType half) {
  for (auto* ts : {&op.inputs, &op.outputs}) {
    for (auto& t : *ts) {
      if (t.dtype == DType::kFloat32 || t.dtype == DType::kFloat64) t.dtype = half;
    }
  }
}

}  // namespace

const char* PrecisionName(Precision p) { return EnumName(kPrecisionNames, p); }

bool ParsePrecision(std::string_view name, Precision* out) {
  return ParseEnumName(name, kPrecisionNames, out);
}

std::string PrecisionList() {
  std::string s;
  for (const char* n : kPrecisionNames) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

bool IsAmp(Precision p) { return p == Precision::kAmpFp16 || p == Precision::kAmpBf16; }

DType HalfDTypeOf(Precision p) {
  switch (p) {
    case Precision::kFp16: case Precision::kAmpFp16: return DType::kFloat16;
    case Precision::kBf16: case Precision::kAmpBf16: return DType::kBFloat16;
    default: return DType::kFloat32;
  }
}

const char* MathModeOf(Precision p) {
  switch (p) {
    case Precision::kTf32: return "tf32";
    case Precision::kFp16: case Precision::kAmpFp16: return "fp16";
    case Precision::kBf16: case Precision::kAmpBf16: return "bf16";
    default: return "";
  }
}

Result<OpGraph> ApplyPrecision(const OpGraph& forward, Precision p) {
  if (forward.IsTraining()) {
    return InvalidArgument("graph '" + forward.name +
                           "' has backward or optimizer ops: precision applies to a forward "
                           "graph, before the training step is derived");
  }
  for (const Op& op : forward.ops) {
    if (op.kind == OpKind::kProfiled || op.measured_time_ms >= 0) {
      return InvalidArgument(fmt::format(
          "graph '{}': op '{}' has a measured time, taken at the precision it was profiled "
          "at; --precision {} cannot re-price it",
          forward.name, op.name, PrecisionName(p)));
    }
  }
  if (p == Precision::kFp32) return forward;
  FRUGAL_ASSIGN_OR_RETURN(std::vector<int> order, forward.TopologicalOrder());
  OpGraph g = forward;
  const DType half = HalfDTypeOf(p);
  std::map<std::string, DType> produced;
  for (int u : order) {
    Op& op = g.ops[u];
    if (RunsOnTensorCores(op.kind)) op.attrs.strings["math"] = MathModeOf(p);
    if (p == Precision::kTf32) continue;
    if (IsAmp(p)) {
      AutocastOp(op, half, produced);
    } else {
      CastModel(op, half);
    }
    const Sides before = BytesOf(forward.ops[u]);
    const Sides after = BytesOf(op);
    op.bytes_read = Scaled(op.bytes_read, before.in, after.in);
    op.bytes_written = Scaled(op.bytes_written, before.out, after.out);
    op.param_bytes = Scaled(op.param_bytes, before.params, after.params);
  }
  // An edge carries its tensor at the producer's new dtype.
  for (Edge& e : g.edges) {
    const Op& old_src = forward.ops[e.src];
    const Op& new_src = g.ops[e.src];
    double before = 0, after = 0;
    for (size_t i = 0; i < new_src.outputs.size(); ++i) {
      if (!e.tensor.empty() && new_src.outputs[i].name != e.tensor) continue;
      before += static_cast<double>(old_src.outputs[i].Bytes());
      after += static_cast<double>(new_src.outputs[i].Bytes());
    }
    e.bytes = Scaled(e.bytes, before, after);
  }
  return g;
}

Status CheckPrecisionSupported(const GpuSpec& gpu, Precision p, std::string* note) {
  std::string n;
  switch (p) {
    case Precision::kFp32:
      break;
    case Precision::kTf32:
      if (!gpu.tf32_tensor_tflops) {
        n = fmt::format("--precision tf32: {} has no TF32 tensor cores; GEMM / conv run as fp32",
                        gpu.name);
      }
      break;
    case Precision::kFp16: case Precision::kAmpFp16:
      if (!gpu.fp16_tensor_tflops) {
        n = fmt::format("--precision {}: {} has no fp16 tensor cores; GEMM / conv priced at "
                        "the FP32 rate with half the bytes",
                        PrecisionName(p), gpu.name);
      }
      break;
    case Precision::kBf16: case Precision::kAmpBf16:
      if (!gpu.bf16_tensor_tflops) {
        return InvalidArgument(fmt::format("--precision {}: {} has no bf16 tensor cores",
                                           PrecisionName(p), gpu.name));
      }
      break;
  }
  if (note != nullptr) *note = n;
  return Status::Ok();
}

std::optional<Precision> PrecisionForTorchDtype(std::string_view torch_dtype, bool training) {
  if (torch_dtype == "float16") return training ? Precision::kAmpFp16 : Precision::kFp16;
  if (torch_dtype == "bfloat16") return training ? Precision::kAmpBf16 : Precision::kBf16;
  if (torch_dtype == "float32") return Precision::kFp32;
  return std::nullopt;
}

std::optional<double> PeakTflops(const GpuSpec& gpu, Precision p) {
  std::optional<double> tc;
  switch (p) {
    case Precision::kFp32: break;
    case Precision::kTf32: tc = gpu.tf32_tensor_tflops; break;
    case Precision::kFp16:
    case Precision::kAmpFp16: tc = gpu.fp16_tensor_tflops; break;
    case Precision::kBf16:
    case Precision::kAmpBf16: tc = gpu.bf16_tensor_tflops; break;
  }
  return tc ? tc : gpu.fp32_tflops;
}

Result<Precision> GraphPrecision(const OpGraph& g) {
  std::set<DType> math, params, all;
  for (const Op& op : g.ops) {
    const bool gemm = RunsOnTensorCores(op.kind);
    for (const auto* side : {&op.inputs, &op.outputs}) {
      for (const TensorInfo& t : *side) {
        if (!IsFloatDType(t.dtype)) continue;
        all.insert(t.dtype);
        if (t.role == TensorRole::kParameter) params.insert(t.dtype);
        if (gemm && t.role == TensorRole::kActivation) math.insert(t.dtype);
      }
    }
  }
  const std::set<DType>& judged = math.empty() ? all : math;
  if (judged.count(DType::kFloat64)) {
    return InvalidArgument(
        "the model computes in float64; frugal prices fp32, tf32, fp16 and bf16 (export it in "
        "float32)");
  }
  const bool fp16 = judged.count(DType::kFloat16) > 0, bf16 = judged.count(DType::kBFloat16) > 0;
  if (fp16 && bf16) return InvalidArgument("the model mixes float16 and bfloat16 math");
  if (!fp16 && !bf16) return Precision::kFp32;
  const DType half = fp16 ? DType::kFloat16 : DType::kBFloat16;
  const bool pure = params.empty() ? !judged.count(DType::kFloat32)
                                   : params.size() == 1 && params.count(half);
  if (fp16) return pure ? Precision::kFp16 : Precision::kAmpFp16;
  return pure ? Precision::kBf16 : Precision::kAmpBf16;
}

}  // namespace frugal
