#include "frugal/perf/profiler/cpu_kernels.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace frugal::cpu {
namespace {

std::vector<float> Ramp(int64_t n, float scale) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>((i * 7) % 11 - 5);
  return v;
}

TEST(CpuKernels, GemmMatchesNaiveProduct) {
  const int64_t m = 70, n = 33, k = 300;  // not multiples of the blocks
  auto a = Ramp(m * k, 0.1f), b = Ramp(k * n, 0.2f);
  std::vector<float> c(m * n);
  Gemm(a.data(), b.data(), c.data(), m, n, k);
  for (int64_t i = 0; i < m; i += 13) {
    for (int64_t j = 0; j < n; j += 7) {
      double want = 0;
      for (int64_t p = 0; p < k; ++p) want += a[i * k + p] * b[p * n + j];
      EXPECT_NEAR(c[i * n + j], want, 1e-3 * (1 + std::fabs(want)));
    }
  }
}

TEST(CpuKernels, ConvMatchesDirectConvolution) {
  const int64_t n = 2, cin = 3, cout = 4, img = 7, kk = 3, stride = 2, pad = 1;
  const int64_t o = (img + 2 * pad - kk) / stride + 1;
  auto x = Ramp(n * cin * img * img, 0.1f), w = Ramp(cout * cin * kk * kk, 0.3f);
  std::vector<float> y(n * cout * o * o), cols(cin * kk * kk * o * o);
  Conv2d(x.data(), w.data(), y.data(), cols.data(), n, cin, cout, img, kk, stride, pad);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t co = 0; co < cout; ++co) {
      for (int64_t oy = 0; oy < o; ++oy) {
        for (int64_t ox = 0; ox < o; ++ox) {
          double want = 0;
          for (int64_t ci = 0; ci < cin; ++ci) {
            for (int64_t ky = 0; ky < kk; ++ky) {
              for (int64_t kx = 0; kx < kk; ++kx) {
                int64_t iy = oy * stride - pad + ky, ix = ox * stride - pad + kx;
                if (iy < 0 || iy >= img || ix < 0 || ix >= img) continue;
                want += x[((b * cin + ci) * img + iy) * img + ix] *
                        w[((co * cin + ci) * kk + ky) * kk + kx];
              }
            }
          }
          EXPECT_NEAR(y[((b * cout + co) * o + oy) * o + ox], want, 1e-4);
        }
      }
    }
  }
}

TEST(CpuKernels, SoftmaxRowsSumToOneAndLayerNormCentres) {
  const int64_t rows = 3, h = 50;
  auto x = Ramp(rows * h, 0.5f);
  std::vector<float> y(rows * h), g(h, 1.0f), bt(h, 0.0f);
  Softmax(x.data(), y.data(), rows, h);
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t j = 0; j < h; ++j) s += y[r * h + j];
    EXPECT_NEAR(s, 1.0, 1e-5);
  }
  LayerNorm(x.data(), g.data(), bt.data(), y.data(), rows, h);
  double mean = 0;
  for (int64_t j = 0; j < h; ++j) mean += y[j];
  EXPECT_NEAR(mean / h, 0.0, 1e-5);
}

TEST(CpuKernels, ElementwiseOps) {
  std::vector<float> a = {-1.0f, 0.5f, 2.0f}, b = {2.0f, 2.0f, 0.5f}, y(3);
  Elementwise(PerfOp::kAdd, a.data(), b.data(), y.data(), 3);
  EXPECT_FLOAT_EQ(y[0], 1.0f);
  Elementwise(PerfOp::kPow, a.data() + 1, b.data() + 1, y.data(), 2);
  EXPECT_FLOAT_EQ(y[0], 0.25f);
  Elementwise(PerfOp::kRelu, a.data(), nullptr, y.data(), 3);
  EXPECT_FLOAT_EQ(y[0], 0.0f);
  Elementwise(PerfOp::kGelu, a.data(), nullptr, y.data(), 3);
  EXPECT_NEAR(y[2], 1.9545, 1e-3);
}

}  // namespace
}  // namespace frugal::cpu
