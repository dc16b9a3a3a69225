// The `cpu` profiler backend: times cpu_kernels on one thread.
#include <chrono>
#include <cmath>
#include <functional>
#include <fstream>
#include <string>
#include <vector>

#include "frugal/perf/profiler/backends.h"
#include "frugal/perf/profiler/cpu_kernels.h"

namespace frugal {
namespace {

std::string CpuModelName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        size_t start = line.find_first_not_of(' ', colon + 1);
        return start == std::string::npos ? "cpu" : line.substr(start);
      }
    }
  }
  return "cpu";
}

// Inputs are filled with values in (0.5, 1.5) so pow, div and the
// transcendental ops stay on their common fast paths.
std::vector<float> Filled(int64_t n, float phase) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    v[static_cast<size_t>(i)] = 1.0f + 0.5f * std::sin(0.1f * static_cast<float>(i) + phase);
  }
  return v;
}

class CpuBackend : public ProfileBackend {
 public:
  std::string DeviceName() const override { return "cpu:" + CpuModelName(); }

  Result<double> MeasureMs(const OpShape& s, const ProfileOptions& options) override {
    FRUGAL_RETURN_IF_ERROR(s.Validate());
    std::function<void()> run;
    std::vector<float> a, b, c, d;
    switch (s.op) {
      case PerfOp::kConv: {
        const int64_t o = s.ConvOutSize();
        a = Filled(s.b * s.in_channels * s.image * s.image, 0);
        b = Filled(s.out_channels * s.in_channels * s.kernel * s.kernel, 1);
        c.resize(static_cast<size_t>(s.b * s.out_channels * o * o));
        d.resize(static_cast<size_t>(s.in_channels * s.kernel * s.kernel * o * o));
        run = [&] {
          cpu::Conv2d(a.data(), b.data(), c.data(), d.data(), s.b, s.in_channels,
                      s.out_channels, s.image, s.kernel, s.stride, s.padding);
        };
        break;
      }
      case PerfOp::kLinear:
      case PerfOp::kBmm:
        a = Filled(s.b * s.m * s.k, 0);
        b = Filled(s.b * s.k * s.n, 1);
        c.resize(static_cast<size_t>(s.b * s.m * s.n));
        run = [&] {
          for (int64_t i = 0; i < s.b; ++i) {
            cpu::Gemm(a.data() + i * s.m * s.k, b.data() + i * s.k * s.n,
                      c.data() + i * s.m * s.n, s.m, s.n, s.k);
          }
        };
        break;
      case PerfOp::kSoftmax:
        a = Filled(s.b * s.h, 0);
        c.resize(a.size());
        run = [&] { cpu::Softmax(a.data(), c.data(), s.b, s.h); };
        break;
      case PerfOp::kLayerNorm:
        a = Filled(s.b * s.h, 0);
        b = Filled(s.h, 1);
        d = Filled(s.h, 2);
        c.resize(a.size());
        run = [&] { cpu::LayerNorm(a.data(), b.data(), d.data(), c.data(), s.b, s.h); };
        break;
      default:
        a = Filled(s.b * s.h, 0);
        b = Filled(s.b * s.h, 1);
        c.resize(a.size());
        run = [&] { cpu::Elementwise(s.op, a.data(), b.data(), c.data(), s.b * s.h); };
        break;
    }
    using Clock = std::chrono::steady_clock;
    auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
    for (int i = 0; i < options.warmup; ++i) run();
    // Short ops repeat inside one timed sample so the clock's resolution
    // does not dominate: aim for >= 0.2 ms per sample.
    auto t0 = Clock::now();
    run();
    const double once = seconds(Clock::now() - t0);
    const int inner = once >= 2e-4 ? 1 : static_cast<int>(2e-4 / std::max(once, 1e-8)) + 1;
    std::vector<double> ms;
    for (int r = 0; r < options.repetitions; ++r) {
      t0 = Clock::now();
      for (int i = 0; i < inner; ++i) run();
      ms.push_back(1e3 * seconds(Clock::now() - t0) / inner);
    }
    return Median(std::move(ms));
  }
};

}  // namespace

Result<std::unique_ptr<ProfileBackend>> NewCpuBackend() {
  return std::unique_ptr<ProfileBackend>(std::make_unique<CpuBackend>());
}

}  // namespace frugal
