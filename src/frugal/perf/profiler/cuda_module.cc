// libfrugal_cuda.so: the `cuda` profiler backend's device side. cuBLAS
// GEMMs, cuDNN convolution and softmax, and frugal's own kernels for layer
// norm and elementwise ops, timed with CUDA events on GPU 0. Exports the C
// functions of cuda_module.h; links the CUDA libraries and nothing of
// frugal's, so the binary pays for them only when it loads this module.
#include "frugal/perf/profiler/cuda_module.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "frugal/perf/profiler/cuda_kernels.h"

struct FrugalCudaContext {
  cublasHandle_t blas = nullptr;
  cudnnHandle_t dnn = nullptr;
};

namespace {

// A failed call: the status code and its message; code 0 is success.
struct Failure {
  int code = kFrugalCudaOk;
  std::string message;
  bool ok() const { return code == kFrugalCudaOk; }
};

Failure Fail(int code, std::string message) { return {code, std::move(message)}; }

#define FRUGAL_CUDA(call)                                                              \
  do {                                                                                 \
    cudaError_t e_ = (call);                                                           \
    if (e_ != cudaSuccess) return Fail(kFrugalCudaError, std::string(#call ": ") + cudaGetErrorString(e_)); \
  } while (0)
#define FRUGAL_CUBLAS(call)                                                          \
  do {                                                                               \
    if ((call) != CUBLAS_STATUS_SUCCESS) return Fail(kFrugalCudaError, #call " failed"); \
  } while (0)
#define FRUGAL_CUDNN(call)                                                                     \
  do {                                                                                         \
    cudnnStatus_t s_ = (call);                                                                 \
    if (s_ != CUDNN_STATUS_SUCCESS) return Fail(kFrugalCudaError, std::string(#call ": ") + cudnnGetErrorString(s_)); \
  } while (0)
#define FRUGAL_TRY(expr)          \
  do {                            \
    Failure f_ = (expr);          \
    if (!f_.ok()) return f_;      \
  } while (0)

int Report(const Failure& f, char* error, size_t error_len) {
  if (!f.ok() && error != nullptr && error_len > 0) {
    std::snprintf(error, error_len, "%s", f.message.c_str());
  }
  return f.code;
}

// Device buffers freed on scope exit.
class DeviceBuffers {
 public:
  ~DeviceBuffers() {
    for (void* p : ptrs_) cudaFree(p);
  }
  Failure Alloc(int64_t floats, float** out) {
    const size_t count = static_cast<size_t>(std::max<int64_t>(floats, 1));
    void* p = nullptr;
    FRUGAL_CUDA(cudaMalloc(&p, sizeof(float) * count));
    ptrs_.push_back(p);
    // Values near 1 keep pow and div on their fast paths.
    std::vector<float> host(count, 1.0f);
    FRUGAL_CUDA(cudaMemcpy(p, host.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    *out = static_cast<float*>(p);
    return {};
  }
  Failure Raw(size_t bytes, void** out) {
    *out = nullptr;
    if (bytes == 0) return {};
    FRUGAL_CUDA(cudaMalloc(out, bytes));
    ptrs_.push_back(*out);
    return {};
  }

 private:
  std::vector<void*> ptrs_;
};

struct Descriptors {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  ~Descriptors() {
    if (x) cudnnDestroyTensorDescriptor(x);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
  }
};

Failure Open(FrugalCudaContext* ctx, std::string* name) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    return Fail(kFrugalCudaNoDevice, "no CUDA device found");
  }
  cudaDeviceProp prop;
  FRUGAL_CUDA(cudaGetDeviceProperties(&prop, 0));
  *name = prop.name;
  FRUGAL_CUBLAS(cublasCreate(&ctx->blas));
  // Full fp32, as the shared timings (no TF32 tensor cores).
  FRUGAL_CUBLAS(cublasSetMathMode(ctx->blas, CUBLAS_DEFAULT_MATH));
  FRUGAL_CUDNN(cudnnCreate(&ctx->dnn));
  return {};
}

// Sets *run to one launch of `s` on buffers it allocates in `mem`.
Failure Prepare(FrugalCudaContext* ctx, const FrugalCudaShape& s, DeviceBuffers& mem,
                Descriptors& d, std::function<Failure()>* run) {
  static const float kOne = 1.0f, kZero = 0.0f;
  auto i32 = [](int64_t v) { return static_cast<int>(v); };
  switch (s.kind) {
    case kFrugalCudaGemm: {
      float *a = nullptr, *b = nullptr, *c = nullptr;
      FRUGAL_TRY(mem.Alloc(s.b * s.m * s.k, &a));
      FRUGAL_TRY(mem.Alloc(s.b * s.k * s.n, &b));
      FRUGAL_TRY(mem.Alloc(s.b * s.m * s.n, &c));
      // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ.
      *run = [=]() -> Failure {
        FRUGAL_CUBLAS(cublasSgemmStridedBatched(
            ctx->blas, CUBLAS_OP_N, CUBLAS_OP_N, i32(s.n), i32(s.m), i32(s.k), &kOne, b,
            i32(s.n), s.k * s.n, a, i32(s.k), s.m * s.k, &kZero, c, i32(s.n), s.m * s.n,
            i32(s.b)));
        return {};
      };
      return {};
    }
    case kFrugalCudaConv: {
      const int64_t o = s.out_size;
      float *x = nullptr, *w = nullptr, *y = nullptr;
      FRUGAL_TRY(mem.Alloc(s.b * s.in_channels * s.image * s.image, &x));
      FRUGAL_TRY(mem.Alloc(s.out_channels * s.in_channels * s.kernel * s.kernel, &w));
      FRUGAL_TRY(mem.Alloc(s.b * s.out_channels * o * o, &y));
      FRUGAL_CUDNN(cudnnCreateTensorDescriptor(&d.x));
      FRUGAL_CUDNN(cudnnCreateTensorDescriptor(&d.y));
      FRUGAL_CUDNN(cudnnCreateFilterDescriptor(&d.w));
      FRUGAL_CUDNN(cudnnCreateConvolutionDescriptor(&d.conv));
      FRUGAL_CUDNN(cudnnSetTensor4dDescriptor(d.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, i32(s.b),
                                              i32(s.in_channels), i32(s.image), i32(s.image)));
      FRUGAL_CUDNN(cudnnSetFilter4dDescriptor(d.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
                                              i32(s.out_channels), i32(s.in_channels),
                                              i32(s.kernel), i32(s.kernel)));
      FRUGAL_CUDNN(cudnnSetConvolution2dDescriptor(d.conv, i32(s.padding), i32(s.padding),
                                                   i32(s.stride), i32(s.stride), 1, 1,
                                                   CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
      FRUGAL_CUDNN(cudnnSetTensor4dDescriptor(d.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, i32(s.b),
                                              i32(s.out_channels), i32(o), i32(o)));
      cudnnConvolutionFwdAlgoPerf_t perf[8];
      int found = 0;
      FRUGAL_CUDNN(
          cudnnGetConvolutionForwardAlgorithm_v7(ctx->dnn, d.x, d.w, d.conv, d.y, 8, &found, perf));
      if (found == 0) return Fail(kFrugalCudaError, "cuDNN offers no convolution algorithm");
      const cudnnConvolutionFwdAlgo_t algo = perf[0].algo;
      size_t ws_bytes = 0;
      FRUGAL_CUDNN(cudnnGetConvolutionForwardWorkspaceSize(ctx->dnn, d.x, d.w, d.conv, d.y, algo,
                                                           &ws_bytes));
      void* ws = nullptr;
      FRUGAL_TRY(mem.Raw(ws_bytes, &ws));
      const Descriptors* dp = &d;
      *run = [=]() -> Failure {
        FRUGAL_CUDNN(cudnnConvolutionForward(ctx->dnn, &kOne, dp->x, x, dp->w, w, dp->conv, algo,
                                             ws, ws_bytes, &kZero, dp->y, y));
        return {};
      };
      return {};
    }
    case kFrugalCudaSoftmax: {
      float *x = nullptr, *y = nullptr;
      FRUGAL_TRY(mem.Alloc(s.b * s.h, &x));
      FRUGAL_TRY(mem.Alloc(s.b * s.h, &y));
      FRUGAL_CUDNN(cudnnCreateTensorDescriptor(&d.x));
      FRUGAL_CUDNN(cudnnSetTensor4dDescriptor(d.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, i32(s.b),
                                              i32(s.h), 1, 1));
      const Descriptors* dp = &d;
      *run = [=]() -> Failure {
        FRUGAL_CUDNN(cudnnSoftmaxForward(ctx->dnn, CUDNN_SOFTMAX_ACCURATE,
                                         CUDNN_SOFTMAX_MODE_INSTANCE, &kOne, dp->x, x, &kZero,
                                         dp->x, y));
        return {};
      };
      return {};
    }
    case kFrugalCudaLayerNorm: {
      float *x = nullptr, *g = nullptr, *bt = nullptr, *y = nullptr;
      FRUGAL_TRY(mem.Alloc(s.b * s.h, &x));
      FRUGAL_TRY(mem.Alloc(s.h, &g));
      FRUGAL_TRY(mem.Alloc(s.h, &bt));
      FRUGAL_TRY(mem.Alloc(s.b * s.h, &y));
      *run = [=]() -> Failure {
        frugal::cuda::LaunchLayerNorm(x, g, bt, y, s.b, s.h);
        return {};
      };
      return {};
    }
    case kFrugalCudaElementwise: {
      if (s.elementwise < 0 || s.elementwise > 6) {
        return Fail(kFrugalCudaBadShape, "unknown elementwise op " + std::to_string(s.elementwise));
      }
      float *a = nullptr, *b = nullptr, *y = nullptr;
      FRUGAL_TRY(mem.Alloc(s.b * s.h, &a));
      FRUGAL_TRY(mem.Alloc(s.b * s.h, &b));
      FRUGAL_TRY(mem.Alloc(s.b * s.h, &y));
      const int code = s.elementwise;
      *run = [=]() -> Failure {
        frugal::cuda::LaunchElementwise(code, a, b, y, s.b * s.h);
        return {};
      };
      return {};
    }
    default:
      return Fail(kFrugalCudaBadShape, "unknown op kind " + std::to_string(s.kind));
  }
}

Failure Measure(FrugalCudaContext* ctx, const FrugalCudaShape& s, int warmup, int repetitions,
                double* times_ms) {
  DeviceBuffers mem;
  Descriptors d;
  std::function<Failure()> run;
  FRUGAL_TRY(Prepare(ctx, s, mem, d, &run));
  for (int i = 0; i < warmup; ++i) FRUGAL_TRY(run());
  FRUGAL_CUDA(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  FRUGAL_CUDA(cudaEventCreate(&start));
  FRUGAL_CUDA(cudaEventCreate(&stop));
  Failure failed;
  for (int r = 0; r < repetitions && failed.ok(); ++r) {
    cudaEventRecord(start);
    failed = run();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    times_ms[r] = t;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  FRUGAL_TRY(failed);
  FRUGAL_CUDA(cudaGetLastError());
  return {};
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int frugal_cuda_version(void) {
  return FRUGAL_CUDA_MODULE_VERSION;
}

__attribute__((visibility("default"))) int frugal_cuda_open(FrugalCudaContext** ctx,
                                                           char* device_name, size_t name_len,
                                                           char* error, size_t error_len) {
  *ctx = nullptr;
  auto* c = new FrugalCudaContext;
  std::string name;
  const Failure f = Open(c, &name);
  if (!f.ok()) {
    if (c->blas) cublasDestroy(c->blas);
    if (c->dnn) cudnnDestroy(c->dnn);
    delete c;
    return Report(f, error, error_len);
  }
  if (name_len > 0) std::snprintf(device_name, name_len, "%s", name.c_str());
  *ctx = c;
  return kFrugalCudaOk;
}

__attribute__((visibility("default"))) int frugal_cuda_measure(FrugalCudaContext* ctx,
                                                              const FrugalCudaShape* shape,
                                                              int warmup, int repetitions,
                                                              double* times_ms, char* error,
                                                              size_t error_len) {
  return Report(Measure(ctx, *shape, warmup, repetitions, times_ms), error, error_len);
}

__attribute__((visibility("default"))) void frugal_cuda_close(FrugalCudaContext* ctx) {
  if (ctx == nullptr) return;
  if (ctx->blas) cublasDestroy(ctx->blas);
  if (ctx->dnn) cudnnDestroy(ctx->dnn);
  delete ctx;
}

}  // extern "C"
