#include "frugal/perf/features.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace frugal {
namespace {

constexpr double kBytesPerElem = 4;  // the measurements are fp32

double L2(double x) { return std::log2(std::max(x, 1e-30)); }
double CeilDiv(double a, double b) { return std::ceil(a / b); }

// The GEMM an op runs as (conv: implicit GEMM); rows/cols/depth.
struct Gemm {
  double m = 1, n = 1, k = 1, batch = 1;
};

Gemm GemmOf(const OpShape& s) {
  Gemm g;
  switch (s.op) {
    case PerfOp::kConv: {
      double out = static_cast<double>(s.ConvOutSize());
      g.m = static_cast<double>(s.b) * out * out;
      g.n = static_cast<double>(s.out_channels);
      g.k = static_cast<double>(s.in_channels * s.kernel * s.kernel);
      break;
    }
    case PerfOp::kLinear:
      g.m = static_cast<double>(s.b * s.m);
      g.n = static_cast<double>(s.n);
      g.k = static_cast<double>(s.k);
      break;
    case PerfOp::kBmm:
      g.batch = static_cast<double>(s.b);
      g.m = static_cast<double>(s.m);
      g.n = static_cast<double>(s.n);
      g.k = static_cast<double>(s.k);
      break;
    default:
      g.m = static_cast<double>(s.b);
      g.n = static_cast<double>(s.h);
      break;
  }
  return g;
}

// Batch, the GEMM view's M, N and K, and conv's kernel, stride, padding,
// image and output size: the shape features both tree models use.
void AppendShapeDims(const OpShape& s, const Gemm& g, std::vector<double>* f) {
  f->insert(f->end(), {L2(static_cast<double>(s.b)), L2(g.m), L2(g.n), L2(g.k),
                       static_cast<double>(s.kernel), static_cast<double>(s.stride),
                       static_cast<double>(s.padding), L2(static_cast<double>(s.image)),
                       L2(static_cast<double>(s.ConvOutSize()))});
}

double ElementwiseFlops(PerfOp op) {
  switch (op) {
    case PerfOp::kSoftmax:
      return 5;
    case PerfOp::kLayerNorm:
      return 8;
    case PerfOp::kGelu:
      return 10;
    case PerfOp::kTanh:
      return 5;
    case PerfOp::kPow:
    case PerfOp::kPowScalar:
      return 4;
    default:
      return 1;
  }
}

int64_t Elems(const TensorInfo& t) { return t.NumElements(); }

const TensorInfo* FirstParam(const Op& op) {
  for (const auto& t : op.inputs) {
    if (t.role == TensorRole::kParameter) return &t;
  }
  return nullptr;
}

// Last dim and the product of the others; {1, 1} for a scalar.
std::pair<int64_t, int64_t> RowsCols(const TensorInfo& t) {
  if (t.shape.empty()) return {1, 1};
  int64_t cols = t.shape.back();
  int64_t rows = cols > 0 ? t.NumElements() / cols : 0;
  return {rows, cols};
}

int64_t AttrAt(const Op& op, const char* name, size_t i, int64_t def) {
  std::vector<int64_t> v = op.attrs.GetInts(name);
  return i < v.size() ? v[i] : def;
}

int64_t GeoMean(int64_t a, int64_t b) {
  return std::max<int64_t>(1,
                           std::llround(std::sqrt(static_cast<double>(a) * b)));
}

OpQuery NoShape(std::string why) {
  OpQuery q;
  q.basis = std::move(why);
  return q;
}

OpQuery WithShape(OpShape s, std::string basis, int64_t repeat = 1) {
  if (!s.Validate().ok()) {
    return NoShape("shape outside the measured op types (" + s.ToString() +
                   ")");
  }
  OpQuery q;
  q.shape = s;
  q.repeat = repeat;
  q.basis = std::move(basis);
  return q;
}

std::optional<PerfOp> ElementwiseOp(OpKind kind) {
  switch (kind) {
    case OpKind::kAdd:
    case OpKind::kSub:
      return PerfOp::kAdd;
    case OpKind::kMul:
      return PerfOp::kMul;
    case OpKind::kDiv:
      return PerfOp::kDiv;
    case OpKind::kPow:
      return PerfOp::kPow;
    case OpKind::kRelu:
      return PerfOp::kRelu;
    case OpKind::kGelu:
    case OpKind::kGeluTanh:
      return PerfOp::kGelu;
    case OpKind::kTanh:
      return PerfOp::kTanh;
    case OpKind::kWhere:  // a select: a memory-bound pass like `mul` (WhereForm)
      return PerfOp::kMul;
    default:
      return std::nullopt;
  }
}

// where(cond, x, y) moves the bytes of the float operands as large as its
// output (the condition is a byte per element, often a broadcast mask, and
// y often a scalar): one such operand reads and writes like `x * 2` (mulu),
// two like `x * y` (mul).
PerfOp WhereForm(const Op& op) {
  const int64_t out = op.outputs.empty() ? 0 : Elems(op.outputs[0]);
  int full = 0;
  for (const TensorInfo& t : op.inputs) {
    if (t.dtype != DType::kBool && Elems(t) == out) ++full;
  }
  return full >= 2 ? PerfOp::kMul : ScalarFormOf(PerfOp::kMul);
}

// x + 2, x * scale, scores + mask[B, 1, 1, S], ...: a binary op one of
// whose operands is a scalar or a broadcast tensor at most 1/16 of its output
// (it stays in cache while the kernel sweeps the other) reads one tensor
// from memory, not two: the scalar form's pass.
bool HasSmallOperand(const Op& op) {
  if (op.inputs.size() != 2 || op.outputs.empty()) return false;
  const int64_t out = Elems(op.outputs[0]);
  for (const TensorInfo& t : op.inputs) {
    const int64_t n = Elems(t);
    if (n == 1 || n * 16 <= out) return true;
  }
  return false;
}

// A 1-D conv x [N, C, L] (*) w [O, C, k] -> y [N, O, Lo] is the GEMM
// y [N*Lo, O] = cols [N*Lo, C*k] . w^T (implicit im2col), priced as the
// linear layer of those dims; its gradients as the linear gradients.
OpQuery Conv1dAsGemm(const Op& op) {
  const bool backward = op.phase == Phase::kBackward;
  const TensorInfo* w = FirstParam(op);
  const auto three = [](const std::vector<int64_t>& v) { return v.size() == 3; };
  if (op.outputs.empty() || !three(op.outputs[0].shape)) {
    return NoShape("1-D conv without shapes");
  }
  OpShape s;
  s.op = PerfOp::kLinear;
  if (!backward) {
    if (!w || !three(w->shape)) return NoShape("1-D conv without a weight");
    const auto& x = op.inputs[0].shape;
    const auto& y = op.outputs[0].shape;
    s.m = x[0] * y[2];
    s.k = x[1] * w->shape[2];
    s.n = w->shape[0];
    return WithShape(s, "1-D conv as its implicit GEMM (linear)");
  }
  const auto& dy = op.inputs[0].shape;  // [N, O, Lo]
  if (op.grad == GradRole::kWeight) {
    const auto& dw = op.outputs[0].shape;  // [O, C, k]
    // dW [C*k, O] = cols^T [C*k, N*Lo] . dY [N*Lo, O]
    s.m = dw[1] * dw[2];
    s.n = dw[0];
    s.k = dy[0] * dy[2];
    return WithShape(s, "1-D conv weight gradient as the linear weight gradient");
  }
  if (!w || !three(w->shape)) return NoShape("1-D conv data gradient without a weight");
  // dcols [N*Lo, C*k] = dY [N*Lo, O] . W [O, C*k], then col2im
  s.m = dy[0] * dy[2];
  s.n = w->shape[1] * w->shape[2];
  s.k = dy[1];
  return WithShape(s, "1-D conv data gradient as the linear data gradient");
}

// A conv is priced as the 2-D conv the measurements hold. A 3-D conv
// [N, C, D, H, W] runs the implicit GEMM of a 2-D conv whose batch is
// N x output depth and whose channels are C x kernel depth (each output
// slice sums kd input slices): same GEMM rows, columns and depth, so the
// same FLOPs, and the measured 2-D efficiency instead of the peak.
OpQuery ConvQuery(const Op& op) {
  const bool backward = op.phase == Phase::kBackward;
  if (op.attrs.GetInt("group", 1) != 1)
    return NoShape("grouped conv: no measurements");
  for (int64_t d : op.attrs.GetInts("dilations")) {
    if (d != 1) return NoShape("dilated conv: no measurements");
  }
  // Rank of x (forward) or dY (gradients): 4 for 2-D, 5 for 3-D, whose
  // strides and pads list depth first.
  const size_t rank = op.inputs.empty() ? 0 : op.inputs[0].shape.size();
  if (rank == 3) return Conv1dAsGemm(op);
  if (rank != 4 && rank != 5) {
    return NoShape(backward ? "conv gradient that is not 1-D, 2-D or 3-D: no measurements"
                            : "conv that is not 1-D, 2-D or 3-D: no measurements");
  }
  const bool three_d = rank == 5;
  const size_t h = rank - 2, w_dim = rank - 1;  // height and width dims
  const int64_t stride = AttrAt(op, "strides", three_d ? 1 : 0, 1);
  const int64_t pad = AttrAt(op, "pads", three_d ? 1 : 0, 0);
  const std::string as_2d = three_d ? " (3-D as 2-D: output depth in the batch, kernel depth in the channels)" : "";
  auto ranked = [&](const std::vector<int64_t>& shape) { return shape.size() == rank; };
  // Output depth (1 for 2-D) and kernel depth (1 for 2-D).
  auto depth = [&](const std::vector<int64_t>& shape) { return three_d ? shape[2] : int64_t{1}; };
  OpShape s;
  s.op = PerfOp::kConv;
  s.stride = stride;
  s.padding = pad;
  if (!backward) {
    const TensorInfo* w = FirstParam(op);
    if (!w || !ranked(w->shape) ||
        (three_d && (op.outputs.empty() || !ranked(op.outputs[0].shape)))) {
      return NoShape("conv that is not 1-D, 2-D or 3-D: no measurements");
    }
    const auto& x = op.inputs[0].shape;
    s.b = x[0] * (three_d ? op.outputs[0].shape[2] : 1);
    s.in_channels = x[1] * depth(w->shape);
    s.image = GeoMean(x[h], x[w_dim]);
    s.out_channels = w->shape[0];
    s.kernel = GeoMean(w->shape[h], w->shape[w_dim]);
    return WithShape(s, "conv" + as_2d);
  }
  const auto& dy = op.inputs[0].shape;  // [N, O, (Do,) Ho, Wo]
  if (op.grad == GradRole::kWeight) {
    // dW = X (*) dY: the forward product's FLOPs, reducing over the batch.
    const TensorInfo* x = nullptr;
    for (size_t i = 1; i < op.inputs.size(); ++i) {
      if (ranked(op.inputs[i].shape)) x = &op.inputs[i];
    }
    if (op.outputs.empty() || !ranked(op.outputs[0].shape) || !x)
      return NoShape("conv weight gradient without shapes");
    const auto& dw = op.outputs[0].shape;  // [O, C, (kd,) kh, kw]
    s.b = x->shape[0] * depth(dy);
    s.in_channels = x->shape[1] * depth(dw);
    s.image = GeoMean(x->shape[h], x->shape[w_dim]);
    s.out_channels = dw[0];
    s.kernel = GeoMean(dw[h], dw[w_dim]);
    return WithShape(s, "conv weight gradient as its forward conv" + as_2d);
  }
  // dX = dY (*) W^T: a stride-1 "same" conv from O to C channels on the
  // output grid has the same FLOPs.
  const TensorInfo* w = FirstParam(op);
  if (op.outputs.empty() || !ranked(op.outputs[0].shape) || !w || !ranked(w->shape)) {
    return NoShape("conv data gradient without shapes");
  }
  const auto& dx = op.outputs[0].shape;  // [N, C, (D,) H, W]
  s.b = dy[0] * depth(dy);
  s.in_channels = dy[1] * depth(w->shape);
  s.out_channels = dx[1];
  s.kernel = GeoMean(w->shape[h], w->shape[w_dim]);
  s.image = GeoMean(dy[h], dy[w_dim]);
  s.stride = 1;
  s.padding = (s.kernel - 1) / 2;
  return WithShape(s, "conv data gradient as a stride-1 conv O->C" + as_2d);
}

OpQuery MatMulQuery(const Op& op) {
  if (op.inputs.empty() || op.outputs.empty())
    return NoShape("matmul without shapes");
  OpShape s;
  s.op = PerfOp::kLinear;
  if (op.phase != Phase::kBackward) {
    auto [rows, n] = RowsCols(op.outputs[0]);
    const auto& a = op.inputs[0].shape;
    if (a.empty()) return NoShape("matmul of a scalar");
    int64_t k = op.attrs.GetInt("transA", 0) && a.size() == 2 ? a[0] : a.back();
    s.m = rows;
    s.n = n;
    s.k = k;
    return WithShape(s, "linear");
  }
  const int64_t n = RowsCols(op.inputs[0]).second;  // dY [.., N]
  if (op.grad == GradRole::kWeight) {
    // dW[K, N] = X^T[K, M] . dY[M, N]
    if (op.inputs.size() < 2)
      return NoShape("matmul weight gradient without input");
    auto [m, k] = RowsCols(op.inputs[1]);
    s.m = k;
    s.n = n;
    s.k = m;
    return WithShape(s, "linear weight gradient X^T.dY");
  }
  // dX[M, K] = dY[M, N] . W^T[N, K]
  auto [m, k] = RowsCols(op.outputs[0]);
  s.m = m;
  s.n = k;
  s.k = n;
  return WithShape(s, "linear data gradient dY.W^T");
}

OpQuery BatchMatMulQuery(const Op& op) {
  if (op.outputs.empty() || op.outputs[0].shape.size() < 2) {
    return NoShape("batch matmul without a matrix output");
  }
  const auto& out = op.outputs[0].shape;
  OpShape s;
  s.op = PerfOp::kBmm;
  s.m = out[out.size() - 2];
  s.n = out.back();
  s.b = (s.m > 0 && s.n > 0) ? Elems(op.outputs[0]) / (s.m * s.n) : 0;
  if (op.phase != Phase::kBackward && !op.inputs.empty() &&
      !op.inputs[0].shape.empty()) {
    s.k = op.inputs[0].shape.back();
    return WithShape(s, "bmm");
  }
  // Gradients of A.B are products of dC with B^T or A^T: recover the
  // contracted dim from the FLOPs.
  double per = 2.0 * static_cast<double>(s.b) * s.m * s.n;
  s.k = per > 0 ? std::max<int64_t>(1, std::llround(op.flops / per)) : 0;
  return WithShape(s, "bmm gradient as the transposed bmm");
}

}  // namespace

Result<GpuFeatures> GpuFeaturesOf(const GpuSpec& gpu) {
  if (!gpu.fp32_tflops || *gpu.fp32_tflops <= 0) {
    return InvalidArgument("GPU " + gpu.name +
                           " has no fp32_tflops in the catalog");
  }
  if (gpu.mem_bw_gbps <= 0) {
    return InvalidArgument("GPU " + gpu.name +
                           " has no mem_bw_gbps in the catalog");
  }
  GpuFeatures f;
  f.name = gpu.name;
  f.peak_flops = *gpu.fp32_tflops * 1e12;
  f.mem_bw_bps = gpu.mem_bw_gbps * 1e9;
  f.clock_mhz = gpu.boost_clock_mhz ? *gpu.boost_clock_mhz : 1500;
  // FP32 peak = 2 FLOPs x cores/SM x SMs x clock; 128 cores/SM since Maxwell
  // (64 on P100, V100, T4, A100, whose catalog entries state SMs).
  f.sm_count = gpu.sm_count
                   ? *gpu.sm_count
                   : std::round(f.peak_flops / (2.0 * 128 * f.clock_mhz * 1e6));
  f.l2_bytes = gpu.l2_mib ? *gpu.l2_mib * 1024 * 1024 : 0;
  f.tdp_w = gpu.tdp_w ? *gpu.tdp_w : 0;
  f.benchmarked_flops =
      gpu.benchmarked_fp32_gemm_tflops ? *gpu.benchmarked_fp32_gemm_tflops * 1e12 : 0;
  f.same_chip_benchmarked_flops =
      gpu.same_chip_benchmarked_fraction ? *gpu.same_chip_benchmarked_fraction * f.peak_flops : 0;
  f.architecture = gpu.architecture;
  f.memory_type = gpu.memory_type;
  return f;
}

OpWork WorkOf(const OpShape& s) {
  OpWork w;
  const double b = static_cast<double>(s.b);
  switch (s.op) {
    case PerfOp::kConv: {
      double out = static_cast<double>(s.ConvOutSize());
      double taps = static_cast<double>(s.in_channels) * s.kernel * s.kernel;
      w.input_elems = b * s.in_channels * s.image * s.image;
      w.weight_elems = static_cast<double>(s.out_channels) * taps;
      w.output_elems = b * s.out_channels * out * out;
      w.flops = 2 * w.output_elems * taps;
      break;
    }
    case PerfOp::kLinear:
      w.input_elems = b * s.m * s.k;
      w.weight_elems = static_cast<double>(s.k) * s.n;
      w.output_elems = b * s.m * s.n;
      w.flops = 2 * w.output_elems * s.k;
      break;
    case PerfOp::kBmm:
      w.input_elems = b * s.m * s.k + b * s.k * s.n;
      w.output_elems = b * s.m * s.n;
      w.flops = 2 * w.output_elems * s.k;
      break;
    case PerfOp::kAdd:
    case PerfOp::kMul:
    case PerfOp::kDiv:
    case PerfOp::kPow:
      w.input_elems = 2 * b * s.h;
      w.output_elems = b * s.h;
      w.flops = ElementwiseFlops(s.op) * w.output_elems;
      break;
    case PerfOp::kLayerNorm:
      w.weight_elems = 2.0 * s.h;
      [[fallthrough]];
    default:
      w.input_elems = b * s.h;
      w.output_elems = b * s.h;
      w.flops = ElementwiseFlops(s.op) * w.output_elems;
      break;
  }
  w.bytes = kBytesPerElem * (w.input_elems + w.weight_elems + w.output_elems);
  return w;
}

double RooflineCoreMs(double flops, double bytes, const GpuFeatures& gpu) {
  return 1e3 * std::max(flops / gpu.peak_flops, bytes / gpu.mem_bw_bps);
}

double RooflineMs(const OpShape& shape, const GpuFeatures& gpu) {
  OpWork w = WorkOf(shape);
  return RooflineCoreMs(w.flops, w.bytes, gpu) + kLaunchOverheadMs;
}

const std::vector<std::string>& FeatureNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"log2_roofline_us",
                                  "log2_compute_us",
                                  "log2_memory_us",
                                  "log2_flops",
                                  "log2_bytes",
                                  "log2_intensity",
                                  "log2_intensity_over_ridge",
                                  "log2_bytes_over_l2",
                                  "log2_b",
                                  "log2_gemm_m",
                                  "log2_gemm_n",
                                  "log2_gemm_k",
                                  "kernel",
                                  "stride",
                                  "padding",
                                  "log2_image",
                                  "log2_out_size",
                                  "log2_cycles_per_sm"};
    for (const char* t : {"128x128", "128x64", "64x64", "32x128"}) {
      n.push_back(std::string("log2_waves_") + t);
      n.push_back(std::string("wave_eff_") + t);
      n.push_back(std::string("tile_eff_") + t);
    }
    n.insert(n.end(), {"align4_k", "align4_n", "log2_elems_per_sm",
                       "log2_blocks512_per_sm", "rows_per_sm"});
    n.insert(n.end(), {"log2_tdp_w", "log2_fp32_flops_per_watt"});
    return n;
  }();
  return names;
}

std::vector<float> LearnedFeatures(const OpShape& s, const GpuFeatures& gpu) {
  const OpWork w = WorkOf(s);
  const Gemm g = GemmOf(s);
  const double compute_us = 1e6 * w.flops / gpu.peak_flops;
  const double memory_us = 1e6 * w.bytes / gpu.mem_bw_bps;
  const double sms = std::max(gpu.sm_count, 1.0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> f = {
      L2(std::max(compute_us, memory_us)),
      L2(compute_us),
      L2(memory_us),
      L2(w.flops),
      L2(w.bytes),
      L2(w.flops / w.bytes),
      L2((w.flops / w.bytes) / (gpu.peak_flops / gpu.mem_bw_bps)),
      gpu.l2_bytes > 0 ? L2(w.bytes / gpu.l2_bytes) : nan};
  AppendShapeDims(s, g, &f);
  f.push_back(L2(w.flops / (sms * gpu.clock_mhz * 1e6)));
  const std::pair<double, double> tiles[] = {
      {128, 128}, {128, 64}, {64, 64}, {32, 128}};
  for (auto [tm, tn] : tiles) {
    double t = g.batch * CeilDiv(g.m, tm) * CeilDiv(g.n, tn);
    f.push_back(L2(t / sms));
    f.push_back(t / (CeilDiv(t, sms) * sms));
    f.push_back(g.m * g.n / (CeilDiv(g.m, tm) * tm * CeilDiv(g.n, tn) * tn));
  }
  const double elems = w.output_elems;
  auto k_like =
      static_cast<int64_t>(s.op == PerfOp::kConv ? s.in_channels : s.k);
  auto n_like = static_cast<int64_t>(s.op == PerfOp::kConv
                                         ? s.out_channels
                                         : (IsHeavyPerfOp(s.op) ? s.n : s.h));
  f.push_back(k_like % 4 == 0 ? 1 : 0);
  f.push_back(n_like % 4 == 0 ? 1 : 0);
  f.push_back(L2(elems / sms));
  f.push_back(L2(CeilDiv(elems, 512) / sms));
  f.push_back(static_cast<double>(s.b) / sms);
  // Board power bounds the sustained clock of GEMM-like kernels (70-75 W
  // cards reach a fraction of their boost-clock peak); light ops are
  // memory- or launch-bound, so they do not see it.
  const bool heavy = IsHeavyPerfOp(s.op) && gpu.tdp_w > 0;
  f.push_back(heavy ? L2(gpu.tdp_w) : nan);
  f.push_back(heavy ? L2(gpu.peak_flops / gpu.tdp_w) : nan);
  return std::vector<float>(f.begin(), f.end());
}

namespace {

// cuBLAS / cuDNN FP32 tile shapes (rows x cols of the output) and how many
// of each one SM runs at once.
struct Tile {
  double m, n, per_sm;
  const char* name;
};
constexpr Tile kTiles[] = {{64, 64, 4, "64x64"},
                           {128, 64, 2, "128x64"},
                           {128, 128, 1, "128x128"},
                           {256, 128, 1, "256x128"}};

}  // namespace

bool PreVolta(const std::string& architecture) {
  return architecture == "kepler" || architecture == "maxwell" ||
         architecture == "pascal";
}

const std::vector<std::string>& EfficiencyFeatureNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {
        "log2_sustained_roofline_us", "log2_sustained_compute_us",
        "log2_sustained_memory_us",   "log2_flops",
        "log2_bytes",                 "log2_intensity",
        "log2_intensity_over_sustained_ridge",
        "log2_bytes_over_l2",         "fits_l2",
        "log2_b",                     "log2_gemm_m",
        "log2_gemm_n",                "log2_gemm_k",
        "kernel",                     "stride",
        "padding",                    "log2_image",
        "log2_out_size"};
    for (const Tile& t : kTiles) {
      n.push_back(std::string("log2_waves_") + t.name);
      n.push_back(std::string("last_wave_fill_") + t.name);
      n.push_back(std::string("tile_eff_") + t.name);
    }
    n.insert(n.end(), {"align4_k", "align4_n", "log2_elems_per_sm",
                       "log2_blocks512_per_sm", "log2_rows_per_sm",
                       "volta_or_later", "log2_row_bytes_over_l2_per_sm"});
    return n;
  }();
  return names;
}

std::vector<float> EfficiencyFeatures(const OpShape& s, const GpuFeatures& gpu,
                                      const SustainedRates& rates) {
  const OpWork w = WorkOf(s);
  const Gemm g = GemmOf(s);
  const double compute_us = 1e6 * w.flops / rates.flops;
  const double memory_us = 1e6 * w.bytes / rates.bw_bps;
  const double sms = std::max(gpu.sm_count, 1.0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const bool heavy = IsHeavyPerfOp(s.op);
  std::vector<double> f = {
      L2(std::max(compute_us, memory_us)),
      L2(compute_us),
      L2(memory_us),
      L2(w.flops),
      L2(w.bytes),
      L2(w.flops / w.bytes),
      // A light op's intensity is a constant, so over the ridge point it
      // would name the GPU: trees would memorise the trained GPUs by it.
      heavy ? L2((w.flops / w.bytes) / (rates.flops / rates.bw_bps)) : nan,
      gpu.l2_bytes > 0 ? L2(w.bytes / gpu.l2_bytes) : nan,
      gpu.l2_bytes > 0 ? (w.bytes <= gpu.l2_bytes ? 1.0 : 0.0) : nan};
  AppendShapeDims(s, g, &f);
  for (const Tile& t : kTiles) {
    if (!heavy) {
      f.insert(f.end(), {nan, nan, nan});
      continue;
    }
    const double tiles = g.batch * CeilDiv(g.m, t.m) * CeilDiv(g.n, t.n);
    const double slots = sms * t.per_sm;
    const double waves = CeilDiv(tiles, slots);
    f.push_back(L2(tiles / slots));
    f.push_back((tiles - (waves - 1) * slots) / slots);  // last wave's fill
    f.push_back(g.m * g.n / (CeilDiv(g.m, t.m) * t.m * CeilDiv(g.n, t.n) * t.n));
  }
  auto k_like = static_cast<int64_t>(s.op == PerfOp::kConv ? s.in_channels : s.k);
  auto n_like = static_cast<int64_t>(
      s.op == PerfOp::kConv ? s.out_channels : (heavy ? s.n : s.h));
  f.push_back(heavy ? (k_like % 4 == 0 ? 1 : 0) : nan);
  f.push_back(n_like % 4 == 0 ? 1 : 0);
  f.push_back(L2(w.output_elems / sms));
  f.push_back(L2(CeilDiv(w.output_elems, 512) / sms));
  f.push_back(L2(static_cast<double>(s.b) / sms));
  // cuBLAS / cuDNN pick kernels per architecture: Kepler to Pascal run the
  // maxwell_* kernel family, Volta and later the volta_* / ampere_* ones,
  // whose tiles suit other shapes (Pascal's large-N GEMMs are 2-3x slower).
  f.push_back(PreVolta(gpu.architecture) ? 0.0 : 1.0);
  // Softmax and layer norm reduce along a row: over 1024 elements PyTorch's
  // kernels pass over each row several times (max, sum, write), and the
  // later passes run at L2 speed only while the rows an SM holds fit in its
  // share of L2. Measured (transformer shapes, rows over 1024): softmax
  // reaches 0.54 of the elementwise bandwidth on P100 (73 KB of L2 per SM),
  // 0.68 on V100 (77 KB), 0.77 / 0.89 on P4 / T4 (102 KB), 0.79 on A100
  // (379 KB).
  const bool norm = s.op == PerfOp::kSoftmax || s.op == PerfOp::kLayerNorm;
  f.push_back(norm && gpu.l2_bytes > 0
                  ? L2(kBytesPerElem * static_cast<double>(s.h) / (gpu.l2_bytes / sms))
                  : nan);
  return std::vector<float>(f.begin(), f.end());
}

OpQuery QueryForOp(const Op& op) {
  OpQuery q;
  switch (op.kind) {
    case OpKind::kConv:
      q = ConvQuery(op);
      break;
    case OpKind::kMatMul:
      q = MatMulQuery(op);
      break;
    case OpKind::kBatchMatMul:
      q = BatchMatMulQuery(op);
      break;
    case OpKind::kSoftmax:
    case OpKind::kLayerNorm: {
      if (op.phase == Phase::kBackward) {
        q = NoShape(std::string(OpKindName(op.kind)) +
                    " backward: no measurements");
        break;
      }
      if (op.inputs.empty()) {
        q = NoShape("normalisation without input");
        break;
      }
      auto [rows, cols] = RowsCols(op.inputs[0]);
      OpShape s;
      s.op =
          op.kind == OpKind::kSoftmax ? PerfOp::kSoftmax : PerfOp::kLayerNorm;
      s.b = rows;
      s.h = cols;
      q = WithShape(s, PerfOpName(s.op));
      break;
    }
    default: {
      std::optional<PerfOp> e = ElementwiseOp(op.kind);
      if (!e || op.outputs.empty()) {
        q = NoShape(std::string("no measurements for ") + OpKindName(op.kind));
        break;
      }
      if (op.phase == Phase::kBackward) {
        // Each gradient output is one pass reading two tensors (the incoming
        // gradient and a saved one) and writing one: a `mul` of its size.
        const TensorInfo* big = &op.outputs[0];
        for (const auto& t : op.outputs) {
          if (Elems(t) > Elems(*big)) big = &t;
        }
        auto [rows, cols] = RowsCols(*big);
        OpShape s;
        s.op = PerfOp::kMul;
        s.b = rows;
        s.h = cols;
        q = WithShape(s, std::string(OpKindName(op.kind)) + " backward as mul",
                      static_cast<int64_t>(op.outputs.size()));
        break;
      }
      auto [rows, cols] = RowsCols(op.outputs[0]);
      OpShape s;
      const bool where = op.kind == OpKind::kWhere;
      if (where) {
        s.op = WhereForm(op);
      } else {
        s.op = HasSmallOperand(op) ? ScalarFormOf(*e) : *e;
      }
      s.b = rows;
      s.h = cols;
      q = WithShape(s, (where ? "where as " : "") + std::string(PerfOpName(s.op)));
      break;
    }
  }
  if (q.shape && op.phase == Phase::kOptimizer) {
    q = NoShape("optimizer update: no measurements");
  }
  if (q.shape) {
    for (const auto& t : op.outputs) {
      if (t.dtype == DType::kFloat16 || t.dtype == DType::kBFloat16) {
        q.basis += " (priced from fp32 measurements)";
        break;
      }
    }
  }
  return q;
}

}  // namespace frugal
