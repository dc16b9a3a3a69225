#include "frugal/share/slowdown.h"

#include <algorithm>
#include <vector>

namespace frugal::share {
namespace {

class AnalyticSlowdown final : public SlowdownModel {
 public:
  explicit AnalyticSlowdown(AnalyticSlowdownOptions o) : o_(o) {}
  const char* name() const override { return "analytic"; }

  double Speed(const ColoJobInfo& self, const ColoJobInfo& other,
               const GpuSpec&) const override {
    const double solo = self.solo_ms();
    if (solo <= 0) return 1;
    const double u = std::clamp(other.gpu_util, 0.0, 1.0);
    double t = solo;
    switch (self.mechanism) {
      case Mechanism::kExclusive:
        t = solo;
        break;
      case Mechanism::kMps:
        t = self.compute_ms / std::max(self.share, 1e-3) +
            self.memory_ms * (1 + u * other.memory_fraction());
        break;
      case Mechanism::kTimeSlice:
        t = solo * (1 + u) + u * o_.slice_ms;
        break;
      case Mechanism::kMig:
        t = self.compute_ms / std::max(self.share, 1e-3) +
            self.memory_ms / std::max(self.mem_bw_share, 1e-3);
        break;
    }
    return std::clamp(solo / t, 1e-6, 1.0);
  }

 private:
  AnalyticSlowdownOptions o_;
};

}  // namespace

double SlowdownModel::SpeedAlone(const ColoJobInfo& self, const GpuSpec& gpu) const {
  ColoJobInfo idle;
  idle.gpu_util = 0;
  return Speed(self, idle, gpu);
}

std::unique_ptr<SlowdownModel> NewAnalyticSlowdown(AnalyticSlowdownOptions options) {
  return std::make_unique<AnalyticSlowdown>(options);
}

ColoJobInfo CombineCoRunners(std::span<const ColoJobInfo> others) {
  ColoJobInfo c;
  c.gpu_util = 0;
  if (others.empty()) return c;
  double duty = 0, mem_weighted = 0, compute = 0, memory = 0, bytes = 0;
  for (const ColoJobInfo& o : others) {
    duty += o.gpu_util;
    mem_weighted += o.gpu_util * o.memory_fraction();
    compute += o.compute_ms;
    memory += o.memory_ms;
    bytes += o.mem_bytes;
  }
  c = others.front();
  c.gpu_util = std::min(1.0, duty);
  // Keep the step times' scale but the duty-weighted memory-bound fraction.
  const double total = compute + memory;
  const double frac = duty > 0 ? mem_weighted / duty : 0;
  c.memory_ms = total * frac;
  c.compute_ms = total - c.memory_ms;
  c.mem_bytes = bytes;
  return c;
}

double ColocatedSpeed(const SlowdownModel& model, const ColoJobInfo& self,
                      std::span<const ColoJobInfo> others, const GpuSpec& gpu) {
  if (others.empty()) return model.SpeedAlone(self, gpu);
  if (others.size() == 1) return model.Speed(self, others.front(), gpu);
  return model.Speed(self, CombineCoRunners(others), gpu);
}

}  // namespace frugal::share
