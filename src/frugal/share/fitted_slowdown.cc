#include "frugal/share/fitted_slowdown.h"

#include <algorithm>
#include <utility>

namespace frugal::share {
namespace {

class FittedSlowdown final : public SlowdownModel {
 public:
  FittedSlowdown(InterferenceModel m, std::unique_ptr<SlowdownModel> fallback)
      : model_(std::move(m)), fallback_(std::move(fallback)) {}
  const char* name() const override { return "fitted"; }

  double Speed(const ColoJobInfo& self, const ColoJobInfo& other,
               const GpuSpec& gpu) const override {
    const double analytic = fallback_->Speed(self, other, gpu);
    if (!self.training || self.mechanism != Mechanism::kTimeSlice || other.gpu_util <= 0 ||
        self.solo_ms() <= 0 || other.solo_ms() <= 0) {
      return analytic;
    }
    const double fitted = model_.PredictNormalizedTput(ToColoJob(self), ToColoJob(other), gpu);
    // A co-runner that keeps the GPU busy only part of the time slows the job
    // in proportion: the pairs were measured with both jobs always busy.
    const double duty = std::clamp(other.gpu_util, 0.0, 1.0);
    const double speed = 1 - duty * (1 - std::min(fitted, 1.0));
    return std::clamp(std::min(speed, fallback_->SpeedAlone(self, gpu)), 1e-6, 1.0);
  }

 private:
  InterferenceModel model_;
  std::unique_ptr<SlowdownModel> fallback_;
};

}  // namespace

ColoJob ToColoJob(const ColoJobInfo& j) {
  ColoJob c;
  c.family = j.family;
  c.model = j.family;
  c.batch = std::max<double>(1, static_cast<double>(j.batch));
  c.solo_tput = 1000.0 / j.solo_ms();
  c.gpu_util = 100 * std::clamp(j.gpu_util, 0.0, 1.0);
  if (j.mem_bytes > 0) c.mem_gib = j.mem_bytes / (1024.0 * 1024 * 1024);
  c.compute_share = 1 - j.memory_fraction();
  return c;
}

std::unique_ptr<SlowdownModel> NewFittedSlowdown(InterferenceModel model,
                                                 std::unique_ptr<SlowdownModel> fallback) {
  return std::make_unique<FittedSlowdown>(std::move(model), std::move(fallback));
}

}  // namespace frugal::share
