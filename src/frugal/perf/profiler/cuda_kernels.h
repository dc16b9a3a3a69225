// Launchers of the profiler's own CUDA kernels (cuda_kernels.cu). Built only
// with FRUGAL_WITH_CUDA. Launches go to the default stream.
#ifndef FRUGAL_PERF_PROFILER_CUDA_KERNELS_H_
#define FRUGAL_PERF_PROFILER_CUDA_KERNELS_H_

#include <cstdint>

namespace frugal::cuda {

// op: 0 add, 1 mul, 2 div, 3 pow, 4 relu, 5 gelu, 6 tanh.
void LaunchElementwise(int op, const float* a, const float* b, float* y, int64_t n);
void LaunchLayerNorm(const float* x, const float* g, const float* b, float* y, int64_t rows,
                     int64_t h);

}  // namespace frugal::cuda

#endif  // FRUGAL_PERF_PROFILER_CUDA_KERNELS_H_
