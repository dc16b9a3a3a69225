// gandiva-pack: Gandiva's packing (OSDI'18): time slicing, a job joins the
// least utilised GPU whose jobs' GPU utilisations (duties) still sum to at
// most 100 % and whose memory holds it; no latency model.
#include <fmt/format.h>

#include "frugal/share/sharing_policy.h"

namespace frugal::share {
namespace {

class GandivaPack final : public SharingPolicy {
 public:
  const char* name() const override { return "gandiva-pack"; }
  PlaceResult Place(int job, ClusterState* c, const Planner& p) override {
    const double duty = p.PlanDuty(job);
    int best = -1;
    double best_util = 2;
    for (size_t g = 0; g < c->gpus.size(); ++g) {
      const GpuState& s = c->gpus[g];
      if (s.empty() || static_cast<int>(s.slots.size()) >= p.options().max_jobs_per_gpu) continue;
      double util = 0, mem = p.job(job).mem_bytes;
      for (const Slot& x : s.slots) {
        util += p.PlanDuty(x.job);
        mem += p.job(x.job).mem_bytes;
      }
      if (util + duty <= 1.0 && mem <= p.gpu_mem_bytes() && util < best_util) {
        best = static_cast<int>(g);
        best_util = util;
      }
    }
    GpuState s;
    if (best >= 0) {
      s = c->gpus[best];
      s.mechanism = Mechanism::kTimeSlice;
    } else {
      best = c->FreeGpu();
      if (best < 0) return {false, fmt::format("no GPU of {} has room", c->max_gpus)};
    }
    s.slots.push_back({job, 1, -1});
    c->Put(best, std::move(s));
    return {true, ""};
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> NewGandivaPackPolicy() { return std::make_unique<GandivaPack>(); }

}  // namespace frugal::share
