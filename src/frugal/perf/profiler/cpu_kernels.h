// Plain fp32 CPU kernels the CPU profiler backend times: a cache-blocked
// GEMM, im2col convolution, row softmax and layer norm, elementwise ops.
// Row-major layouts; callers own all buffers. Stateless; thread-safe.
#ifndef FRUGAL_PERF_PROFILER_CPU_KERNELS_H_
#define FRUGAL_PERF_PROFILER_CPU_KERNELS_H_

#include <cstdint>

#include "frugal/perf/dataset.h"

namespace frugal::cpu {

// c[m, n] = a[m, k] · b[k, n] (overwrites c).
void Gemm(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k);

// y[n, cout, o, o] = conv(x[n, cin, img, img], w[cout, cin, kh, kw]) with
// square stride and zero padding; `cols` holds cin*k*k*o*o floats.
void Conv2d(const float* x, const float* w, float* y, float* cols, int64_t n,
            int64_t cin, int64_t cout, int64_t img, int64_t kernel, int64_t stride,
            int64_t padding);

// Row-wise over `rows` rows of length h.
void Softmax(const float* x, float* y, int64_t rows, int64_t h);
void LayerNorm(const float* x, const float* gamma, const float* beta, float* y,
               int64_t rows, int64_t h);

// y = op(a, b) for binary ops (add, mul, div, pow) and y = op(a) for unary
// ones (relu, gelu, tanh), over n elements. REQUIRES: an elementwise op.
void Elementwise(PerfOp op, const float* a, const float* b, float* y, int64_t n);

}  // namespace frugal::cpu

#endif  // FRUGAL_PERF_PROFILER_CPU_KERNELS_H_
