// The `cuda` profiler backend, host side: loads the CUDA module
// (libfrugal_cuda.so, cuda_module.h) with dlopen when the backend is asked
// for, so that no other frugal command maps the CUDA runtime, cuBLAS and
// cuDNN. The module is looked for at $FRUGAL_CUDA_MODULE, then beside the
// frugal binary, then where the build wrote it. Without FRUGAL_WITH_CUDA the
// factory reports that the binary was built without CUDA.
#include "frugal/perf/profiler/backends.h"

#ifdef FRUGAL_WITH_CUDA

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "frugal/perf/profiler/cuda_module.h"

namespace frugal {
namespace {

constexpr const char* kModuleName = "libfrugal_cuda.so";

Status ModuleStatus(int code, const char* message) {
  switch (code) {
    case kFrugalCudaOk: return Status::Ok();
    case kFrugalCudaNoDevice: return FailedPrecondition(message);
    case kFrugalCudaBadShape: return Unimplemented(std::string("cuda backend: ") + message);
    default: return Internal(message);
  }
}

std::vector<std::string> ModuleCandidates() {
  std::vector<std::string> paths;
  if (const char* env = std::getenv("FRUGAL_CUDA_MODULE"); env != nullptr && *env != '\0') {
    paths.push_back(env);
    return paths;
  }
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) paths.push_back((exe.parent_path() / kModuleName).string());
  paths.push_back(FRUGAL_CUDA_MODULE_BUILD_PATH);
  return paths;
}

// The loaded module's entry points; the handle stays open for the process.
struct Module {
  FrugalCudaOpenFn open = nullptr;
  FrugalCudaMeasureFn measure = nullptr;
  FrugalCudaCloseFn close = nullptr;
};

Result<Module> LoadModule() {
  std::string tried;
  for (const std::string& path : ModuleCandidates()) {
    if (!std::filesystem::exists(path)) {
      tried += (tried.empty() ? "" : ", ") + path + " (missing)";
      continue;
    }
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      const char* why = dlerror();
      return FailedPrecondition("cannot load the CUDA module " + path + ": " +
                                (why != nullptr ? why : "unknown error"));
    }
    auto version = reinterpret_cast<FrugalCudaVersionFn>(dlsym(h, "frugal_cuda_version"));
    Module m;
    m.open = reinterpret_cast<FrugalCudaOpenFn>(dlsym(h, "frugal_cuda_open"));
    m.measure = reinterpret_cast<FrugalCudaMeasureFn>(dlsym(h, "frugal_cuda_measure"));
    m.close = reinterpret_cast<FrugalCudaCloseFn>(dlsym(h, "frugal_cuda_close"));
    if (version == nullptr || m.open == nullptr || m.measure == nullptr || m.close == nullptr) {
      return FailedPrecondition(path + " is not a frugal CUDA module (missing entry points)");
    }
    if (version() != FRUGAL_CUDA_MODULE_VERSION) {
      return FailedPrecondition(path + " is a CUDA module of another frugal version (" +
                                std::to_string(version()) + ", want " +
                                std::to_string(FRUGAL_CUDA_MODULE_VERSION) + ")");
    }
    return m;
  }
  return FailedPrecondition("the CUDA module " + std::string(kModuleName) +
                            " was not found (tried " + tried +
                            "); set FRUGAL_CUDA_MODULE to its path");
}

Result<FrugalCudaShape> ModuleShape(const OpShape& s) {
  FrugalCudaShape m{};
  m.b = s.b, m.m = s.m, m.n = s.n, m.k = s.k, m.h = s.h;
  m.in_channels = s.in_channels, m.out_channels = s.out_channels, m.kernel = s.kernel;
  m.stride = s.stride, m.padding = s.padding, m.image = s.image;
  switch (s.op) {
    case PerfOp::kLinear:
    case PerfOp::kBmm: m.kind = kFrugalCudaGemm; return m;
    case PerfOp::kConv:
      m.kind = kFrugalCudaConv;
      m.out_size = s.ConvOutSize();
      return m;
    case PerfOp::kSoftmax: m.kind = kFrugalCudaSoftmax; return m;
    case PerfOp::kLayerNorm: m.kind = kFrugalCudaLayerNorm; return m;
    default: break;
  }
  // The module's elementwise codes, in cuda_kernels.h's order.
  static constexpr PerfOp kOrder[] = {PerfOp::kAdd, PerfOp::kMul,  PerfOp::kDiv, PerfOp::kPow,
                                      PerfOp::kRelu, PerfOp::kGelu, PerfOp::kTanh};
  for (int i = 0; i < 7; ++i) {
    if (kOrder[i] == s.op) {
      m.kind = kFrugalCudaElementwise;
      m.elementwise = i;
      return m;
    }
  }
  return Unimplemented(std::string("cuda backend: ") + PerfOpName(s.op));
}

class CudaBackend : public ProfileBackend {
 public:
  CudaBackend(Module module, FrugalCudaContext* ctx, std::string name)
      : module_(module), ctx_(ctx), name_(std::move(name)) {}
  ~CudaBackend() override { module_.close(ctx_); }

  std::string DeviceName() const override { return name_; }

  Result<double> MeasureMs(const OpShape& s, const ProfileOptions& options) override {
    FRUGAL_RETURN_IF_ERROR(s.Validate());
    FRUGAL_ASSIGN_OR_RETURN(const FrugalCudaShape shape, ModuleShape(s));
    std::vector<double> ms(static_cast<size_t>(std::max(options.repetitions, 1)), 0.0);
    char error[512] = "";
    const int code = module_.measure(ctx_, &shape, options.warmup, options.repetitions,
                                     ms.data(), error, sizeof error);
    FRUGAL_RETURN_IF_ERROR(ModuleStatus(code, error));
    ms.resize(static_cast<size_t>(options.repetitions));
    return Median(std::move(ms));
  }

 private:
  Module module_;
  FrugalCudaContext* ctx_;
  std::string name_;
};

}  // namespace

Result<std::unique_ptr<ProfileBackend>> NewCudaBackend() {
  FRUGAL_ASSIGN_OR_RETURN(const Module module, LoadModule());
  FrugalCudaContext* ctx = nullptr;
  char name[256] = "";
  char error[512] = "";
  const int code = module.open(&ctx, name, sizeof name, error, sizeof error);
  FRUGAL_RETURN_IF_ERROR(ModuleStatus(code, error));
  return std::unique_ptr<ProfileBackend>(std::make_unique<CudaBackend>(module, ctx, name));
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
