// The `cuda` profiler backend: cuBLAS GEMMs, cuDNN convolution and softmax,
// and frugal's own kernels for layer norm and elementwise ops, timed with
// CUDA events on GPU 0. Without FRUGAL_WITH_CUDA the factory reports that
// the binary was built without CUDA.
#include "frugal/perf/profiler/backends.h"

#ifdef FRUGAL_WITH_CUDA

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <functional>
#include <vector>

#include "frugal/perf/profiler/cuda_kernels.h"

namespace frugal {
namespace {

Status CudaError(const char* what, cudaError_t e) {
  return Internal(std::string(what) + ": " + cudaGetErrorString(e));
}

#define FRUGAL_CUDA(call)                                          \
  do {                                                             \
    cudaError_t e_ = (call);                                       \
    if (e_ != cudaSuccess) return CudaError(#call, e_);            \
  } while (0)
#define FRUGAL_CUBLAS(call)                                                   \
  do {                                                                        \
    if ((call) != CUBLAS_STATUS_SUCCESS) return Internal(#call " failed");    \
  } while (0)
#define FRUGAL_CUDNN(call)                                                    \
  do {                                                                        \
    cudnnStatus_t s_ = (call);                                                \
    if (s_ != CUDNN_STATUS_SUCCESS) {                                         \
      return Internal(std::string(#call ": ") + cudnnGetErrorString(s_));     \
    }                                                                         \
  } while (0)

// Device buffers freed on scope exit.
class DeviceBuffers {
 public:
  ~DeviceBuffers() {
    for (void* p : ptrs_) cudaFree(p);
  }
  Result<float*> Alloc(int64_t floats) {
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, sizeof(float) * std::max<int64_t>(floats, 1));
    if (e != cudaSuccess) return CudaError("cudaMalloc", e);
    ptrs_.push_back(p);
    // Values near 1 keep pow and div on their fast paths.
    std::vector<float> host(static_cast<size_t>(std::max<int64_t>(floats, 1)), 1.0f);
    e = cudaMemcpy(p, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice);
    if (e != cudaSuccess) return CudaError("cudaMemcpy", e);
    return static_cast<float*>(p);
  }
  Result<void*> Raw(size_t bytes) {
    void* p = nullptr;
    if (bytes == 0) return p;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess) return CudaError("cudaMalloc", e);
    ptrs_.push_back(p);
    return p;
  }

 private:
  std::vector<void*> ptrs_;
};

class CudaBackend : public ProfileBackend {
 public:
  ~CudaBackend() override {
    if (blas_) cublasDestroy(blas_);
    if (dnn_) cudnnDestroy(dnn_);
  }

  Status Init() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
      return FailedPrecondition("no CUDA device found");
    }
    cudaDeviceProp prop;
    FRUGAL_CUDA(cudaGetDeviceProperties(&prop, 0));
    name_ = prop.name;
    FRUGAL_CUBLAS(cublasCreate(&blas_));
    // Full fp32, as the shared timings (no TF32 tensor cores).
    FRUGAL_CUBLAS(cublasSetMathMode(blas_, CUBLAS_DEFAULT_MATH));
    FRUGAL_CUDNN(cudnnCreate(&dnn_));
    return Status::Ok();
  }

  std::string DeviceName() const override { return name_; }

  Result<double> MeasureMs(const OpShape& s, const ProfileOptions& options) override {
    FRUGAL_RETURN_IF_ERROR(s.Validate());
    DeviceBuffers mem;
    std::function<Status()> run;
    const float one = 1.0f, zero = 0.0f;
    cudnnTensorDescriptor_t xd = nullptr, yd = nullptr;
    cudnnFilterDescriptor_t wd = nullptr;
    cudnnConvolutionDescriptor_t cd = nullptr;
    struct Cleanup {
      cudnnTensorDescriptor_t* x;
      cudnnTensorDescriptor_t* y;
      cudnnFilterDescriptor_t* w;
      cudnnConvolutionDescriptor_t* c;
      ~Cleanup() {
        if (*x) cudnnDestroyTensorDescriptor(*x);
        if (*y) cudnnDestroyTensorDescriptor(*y);
        if (*w) cudnnDestroyFilterDescriptor(*w);
        if (*c) cudnnDestroyConvolutionDescriptor(*c);
      }
    } cleanup{&xd, &yd, &wd, &cd};

    switch (s.op) {
      case PerfOp::kLinear:
      case PerfOp::kBmm: {
        FRUGAL_ASSIGN_OR_RETURN(float* a, mem.Alloc(s.b * s.m * s.k));
        FRUGAL_ASSIGN_OR_RETURN(float* b, mem.Alloc(s.b * s.k * s.n));
        FRUGAL_ASSIGN_OR_RETURN(float* c, mem.Alloc(s.b * s.m * s.n));
        // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ.
        run = [=, this]() -> Status {
          FRUGAL_CUBLAS(cublasSgemmStridedBatched(
              blas_, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(s.n), static_cast<int>(s.m),
              static_cast<int>(s.k), &one, b, static_cast<int>(s.n), s.k * s.n, a,
              static_cast<int>(s.k), s.m * s.k, &zero, c, static_cast<int>(s.n), s.m * s.n,
              static_cast<int>(s.b)));
          return Status::Ok();
        };
        break;
      }
      case PerfOp::kConv: {
        const int64_t o = s.ConvOutSize();
        FRUGAL_ASSIGN_OR_RETURN(float* x, mem.Alloc(s.b * s.in_channels * s.image * s.image));
        FRUGAL_ASSIGN_OR_RETURN(float* w,
                                mem.Alloc(s.out_channels * s.in_channels * s.kernel * s.kernel));
        FRUGAL_ASSIGN_OR_RETURN(float* y, mem.Alloc(s.b * s.out_channels * o * o));
        auto i32 = [](int64_t v) { return static_cast<int>(v); };
        FRUGAL_CUDNN(cudnnCreateTensorDescriptor(&xd));
        FRUGAL_CUDNN(cudnnCreateTensorDescriptor(&yd));
        FRUGAL_CUDNN(cudnnCreateFilterDescriptor(&wd));
        FRUGAL_CUDNN(cudnnCreateConvolutionDescriptor(&cd));
        FRUGAL_CUDNN(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                                i32(s.b), i32(s.in_channels), i32(s.image),
                                                i32(s.image)));
        FRUGAL_CUDNN(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
                                                i32(s.out_channels), i32(s.in_channels),
                                                i32(s.kernel), i32(s.kernel)));
        FRUGAL_CUDNN(cudnnSetConvolution2dDescriptor(cd, i32(s.padding), i32(s.padding),
                                                     i32(s.stride), i32(s.stride), 1, 1,
                                                     CUDNN_CROSS_CORRELATION,
                                                     CUDNN_DATA_FLOAT));
        FRUGAL_CUDNN(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                                i32(s.b), i32(s.out_channels), i32(o), i32(o)));
        cudnnConvolutionFwdAlgoPerf_t perf[8];
        int found = 0;
        FRUGAL_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(dnn_, xd, wd, cd, yd, 8, &found,
                                                            perf));
        if (found == 0) return Internal("cuDNN offers no convolution algorithm");
        const cudnnConvolutionFwdAlgo_t algo = perf[0].algo;
        size_t ws_bytes = 0;
        FRUGAL_CUDNN(cudnnGetConvolutionForwardWorkspaceSize(dnn_, xd, wd, cd, yd, algo,
                                                             &ws_bytes));
        FRUGAL_ASSIGN_OR_RETURN(void* ws, mem.Raw(ws_bytes));
        run = [=, this]() -> Status {
          FRUGAL_CUDNN(cudnnConvolutionForward(dnn_, &one, xd, x, wd, w, cd, algo, ws,
                                               ws_bytes, &zero, yd, y));
          return Status::Ok();
        };
        break;
      }
      case PerfOp::kSoftmax: {
        FRUGAL_ASSIGN_OR_RETURN(float* x, mem.Alloc(s.b * s.h));
        FRUGAL_ASSIGN_OR_RETURN(float* y, mem.Alloc(s.b * s.h));
        FRUGAL_CUDNN(cudnnCreateTensorDescriptor(&xd));
        FRUGAL_CUDNN(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                                static_cast<int>(s.b), static_cast<int>(s.h),
                                                1, 1));
        run = [=, this]() -> Status {
          FRUGAL_CUDNN(cudnnSoftmaxForward(dnn_, CUDNN_SOFTMAX_ACCURATE,
                                           CUDNN_SOFTMAX_MODE_INSTANCE, &one, xd, x, &zero,
                                           xd, y));
          return Status::Ok();
        };
        break;
      }
      case PerfOp::kLayerNorm: {
        FRUGAL_ASSIGN_OR_RETURN(float* x, mem.Alloc(s.b * s.h));
        FRUGAL_ASSIGN_OR_RETURN(float* g, mem.Alloc(s.h));
        FRUGAL_ASSIGN_OR_RETURN(float* bt, mem.Alloc(s.h));
        FRUGAL_ASSIGN_OR_RETURN(float* y, mem.Alloc(s.b * s.h));
        run = [=]() -> Status {
          cuda::LaunchLayerNorm(x, g, bt, y, s.b, s.h);
          return Status::Ok();
        };
        break;
      }
      default: {
        static constexpr PerfOp kOrder[] = {PerfOp::kAdd, PerfOp::kMul, PerfOp::kDiv,
                                            PerfOp::kPow, PerfOp::kRelu, PerfOp::kGelu,
                                            PerfOp::kTanh};
        int code = -1;
        for (int i = 0; i < 7; ++i) code = kOrder[i] == s.op ? i : code;
        if (code < 0) return Unimplemented(std::string("cuda backend: ") + PerfOpName(s.op));
        FRUGAL_ASSIGN_OR_RETURN(float* a, mem.Alloc(s.b * s.h));
        FRUGAL_ASSIGN_OR_RETURN(float* b, mem.Alloc(s.b * s.h));
        FRUGAL_ASSIGN_OR_RETURN(float* y, mem.Alloc(s.b * s.h));
        run = [=]() -> Status {
          cuda::LaunchElementwise(code, a, b, y, s.b * s.h);
          return Status::Ok();
        };
        break;
      }
    }
    for (int i = 0; i < options.warmup; ++i) FRUGAL_RETURN_IF_ERROR(run());
    FRUGAL_CUDA(cudaDeviceSynchronize());
    cudaEvent_t start, stop;
    FRUGAL_CUDA(cudaEventCreate(&start));
    FRUGAL_CUDA(cudaEventCreate(&stop));
    std::vector<double> ms;
    Status st;
    for (int r = 0; r < options.repetitions && st.ok(); ++r) {
      cudaEventRecord(start);
      st = run();
      cudaEventRecord(stop);
      cudaEventSynchronize(stop);
      float t = 0;
      cudaEventElapsedTime(&t, start, stop);
      ms.push_back(t);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    FRUGAL_RETURN_IF_ERROR(st);
    FRUGAL_CUDA(cudaGetLastError());
    return Median(std::move(ms));
  }

 private:
  std::string name_;
  cublasHandle_t blas_ = nullptr;
  cudnnHandle_t dnn_ = nullptr;
};

}  // namespace

Result<std::unique_ptr<ProfileBackend>> NewCudaBackend() {
  auto b = std::make_unique<CudaBackend>();
  FRUGAL_RETURN_IF_ERROR(b->Init());
  return std::unique_ptr<ProfileBackend>(std::move(b));
}

}  // namespace frugal

#else  // !FRUGAL_WITH_CUDA

namespace frugal {

Result<std::unique_ptr<ProfileBackend>> NewCudaBackend() {
  return Unimplemented(
      "this frugal was built without CUDA (configure with the CUDA toolkit at "
      "/usr/local/cuda and -DFRUGAL_WITH_CUDA=ON)");
}

}  // namespace frugal

#endif  // FRUGAL_WITH_CUDA
