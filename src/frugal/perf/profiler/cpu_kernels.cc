#include "frugal/perf/profiler/cpu_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace frugal::cpu {

void Gemm(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k) {
  std::memset(c, 0, sizeof(float) * m * n);
  // Blocks sized so a panel of b and a row block of c stay in L2.
  constexpr int64_t kBm = 64, kBk = 256;
  for (int64_t i0 = 0; i0 < m; i0 += kBm) {
    const int64_t i1 = std::min(m, i0 + kBm);
    for (int64_t p0 = 0; p0 < k; p0 += kBk) {
      const int64_t p1 = std::min(k, p0 + kBk);
      for (int64_t i = i0; i < i1; ++i) {
        float* crow = c + i * n;
        for (int64_t p = p0; p < p1; ++p) {
          const float av = a[i * k + p];
          const float* brow = b + p * n;
          for (int64_t j = 0; j < n; ++j) crow[j] += av * brow[j];
        }
      }
    }
  }
}

void Conv2d(const float* x, const float* w, float* y, float* cols, int64_t n,
            int64_t cin, int64_t cout, int64_t img, int64_t kernel, int64_t stride,
            int64_t padding) {
  const int64_t o = (img + 2 * padding - kernel) / stride + 1;
  const int64_t patch = cin * kernel * kernel;
  for (int64_t b = 0; b < n; ++b) {
    const float* xb = x + b * cin * img * img;
    for (int64_t c = 0; c < cin; ++c) {
      for (int64_t ky = 0; ky < kernel; ++ky) {
        for (int64_t kx = 0; kx < kernel; ++kx) {
          float* row = cols + ((c * kernel + ky) * kernel + kx) * o * o;
          for (int64_t oy = 0; oy < o; ++oy) {
            const int64_t iy = oy * stride - padding + ky;
            for (int64_t ox = 0; ox < o; ++ox) {
              const int64_t ix = ox * stride - padding + kx;
              const bool in = iy >= 0 && iy < img && ix >= 0 && ix < img;
              row[oy * o + ox] = in ? xb[(c * img + iy) * img + ix] : 0.0f;
            }
          }
        }
      }
    }
    Gemm(w, cols, y + b * cout * o * o, cout, o * o, patch);
  }
}

void Softmax(const float* x, float* y, int64_t rows, int64_t h) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * h;
    float* yr = y + r * h;
    const float mx = *std::max_element(xr, xr + h);
    float sum = 0;
    for (int64_t j = 0; j < h; ++j) sum += (yr[j] = std::exp(xr[j] - mx));
    const float inv = 1.0f / sum;
    for (int64_t j = 0; j < h; ++j) yr[j] *= inv;
  }
}

void LayerNorm(const float* x, const float* gamma, const float* beta, float* y,
               int64_t rows, int64_t h) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * h;
    float* yr = y + r * h;
    float mean = 0, var = 0;
    for (int64_t j = 0; j < h; ++j) mean += xr[j];
    mean /= static_cast<float>(h);
    for (int64_t j = 0; j < h; ++j) var += (xr[j] - mean) * (xr[j] - mean);
    const float rstd = 1.0f / std::sqrt(var / static_cast<float>(h) + 1e-5f);
    for (int64_t j = 0; j < h; ++j) yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
  }
}

void Elementwise(PerfOp op, const float* a, const float* b, float* y, int64_t n) {
  switch (op) {
    case PerfOp::kAdd: for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i]; break;
    case PerfOp::kMul: for (int64_t i = 0; i < n; ++i) y[i] = a[i] * b[i]; break;
    case PerfOp::kDiv: for (int64_t i = 0; i < n; ++i) y[i] = a[i] / b[i]; break;
    case PerfOp::kPow: for (int64_t i = 0; i < n; ++i) y[i] = std::pow(a[i], b[i]); break;
    case PerfOp::kRelu: for (int64_t i = 0; i < n; ++i) y[i] = std::max(a[i], 0.0f); break;
    case PerfOp::kTanh: for (int64_t i = 0; i < n; ++i) y[i] = std::tanh(a[i]); break;
    case PerfOp::kAddScalar: for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[0]; break;
    case PerfOp::kMulScalar: for (int64_t i = 0; i < n; ++i) y[i] = a[i] * b[0]; break;
    case PerfOp::kDivScalar: for (int64_t i = 0; i < n; ++i) y[i] = a[i] / b[0]; break;
    case PerfOp::kPowScalar: for (int64_t i = 0; i < n; ++i) y[i] = std::pow(a[i], b[0]); break;
    case PerfOp::kGelu:
      for (int64_t i = 0; i < n; ++i) {
        y[i] = 0.5f * a[i] * (1.0f + std::erf(a[i] * 0.70710678f));
      }
      break;
    default: break;
  }
}

}  // namespace frugal::cpu
