// The C interface between frugal and its CUDA profiler module
// (libfrugal_cuda.so, cuda_module.cc). The module holds everything that
// touches the CUDA runtime, cuBLAS and cuDNN, and frugal loads it with
// dlopen only when the `cuda` backend is asked for (cuda_backend.cc): linked
// into the binary, those libraries cost every frugal command ~0.35 s and
// ~220 MB of start-up. Plain C types only, so the module links none of
// frugal's libraries. Internal to the profiler.
#ifndef FRUGAL_PERF_PROFILER_CUDA_MODULE_H_
#define FRUGAL_PERF_PROFILER_CUDA_MODULE_H_

#include <stddef.h>
#include <stdint.h>

extern "C" {

// Bumped whenever the structs or signatures below change; the loader
// refuses a module of another version.
#define FRUGAL_CUDA_MODULE_VERSION 1

enum FrugalCudaKind {
  kFrugalCudaGemm = 0,         // linear / bmm: b batched (m x k) . (k x n)
  kFrugalCudaConv = 1,         // 2-D convolution, NCHW, square image and kernel
  kFrugalCudaSoftmax = 2,      // b rows of h
  kFrugalCudaLayerNorm = 3,    // b rows of h
  kFrugalCudaElementwise = 4,  // b * h elements; `elementwise` picks the op
};

struct FrugalCudaShape {
  int kind;         // FrugalCudaKind
  int elementwise;  // 0 add, 1 mul, 2 div, 3 pow, 4 relu, 5 gelu, 6 tanh
  int64_t b, m, n, k, h;
  int64_t in_channels, out_channels, kernel, stride, padding, image, out_size;
};

// Status codes of the calls below.
enum FrugalCudaStatus {
  kFrugalCudaOk = 0,
  kFrugalCudaNoDevice = 1,  // no CUDA device (FailedPrecondition)
  kFrugalCudaError = 2,     // a CUDA, cuBLAS or cuDNN call failed (Internal)
  kFrugalCudaBadShape = 3,  // a shape the module cannot run (Unimplemented)
};

struct FrugalCudaContext;

// The functions the module exports, by these names.
typedef int (*FrugalCudaVersionFn)(void);
// Creates handles on GPU 0; writes the device name. On failure *ctx is null
// and `error` holds the message.
typedef int (*FrugalCudaOpenFn)(FrugalCudaContext** ctx, char* device_name, size_t name_len,
                                char* error, size_t error_len);
// Runs `warmup` untimed then `repetitions` timed launches of `shape`, each
// timed with CUDA events, into times_ms[0 .. repetitions).
typedef int (*FrugalCudaMeasureFn)(FrugalCudaContext* ctx, const FrugalCudaShape* shape,
                                   int warmup, int repetitions, double* times_ms, char* error,
                                   size_t error_len);
typedef void (*FrugalCudaCloseFn)(FrugalCudaContext* ctx);

}  // extern "C"

#endif  // FRUGAL_PERF_PROFILER_CUDA_MODULE_H_
