// mps-oblivious: MPS with each job's SM share set to what it requests (its
// GPU duty at peak, rounded up to 10 %, at least 10 %), first fit while the
// shares sum to at most 100 % and memory holds; no interference model, no
// latency check.
#include <cmath>

#include <fmt/format.h>

#include "frugal/share/sharing_policy.h"

namespace frugal::share {
namespace {

double Request(const Planner& p, int job) {
  return std::max(0.1, std::ceil(p.PlanDuty(job) * 10 - 1e-9) / 10);
}

class MpsOblivious final : public SharingPolicy {
 public:
  const char* name() const override { return "mps-oblivious"; }
  std::string CannotRun(const Planner& p) const override {
    return p.mps_sm_shares() ? ""
                             : p.gpu().name + " (" + p.gpu().architecture +
                                   ") has no MPS SM limits (Volta or newer)";
  }
  PlaceResult Place(int job, ClusterState* c, const Planner& p) override {
    const double want = Request(p, job);
    for (size_t g = 0; g < c->gpus.size(); ++g) {
      const GpuState& s = c->gpus[g];
      if (s.empty() || static_cast<int>(s.slots.size()) >= p.options().max_jobs_per_gpu) continue;
      double shares = want, mem = p.job(job).mem_bytes;
      for (const Slot& x : s.slots) {
        shares += x.share;
        mem += p.job(x.job).mem_bytes;
      }
      if (shares <= 1.0 + 1e-9 && mem <= p.gpu_mem_bytes()) {
        GpuState n = s;
        n.slots.push_back({job, want, -1});
        c->Put(static_cast<int>(g), std::move(n));
        return {true, ""};
      }
    }
    const int g = c->FreeGpu();
    if (g < 0) return {false, fmt::format("no GPU of {} has {:.0f} % of its SMs free",
                                          c->max_gpus, 100 * want)};
    GpuState n;
    n.mechanism = Mechanism::kMps;
    n.slots.push_back({job, want, -1});
    c->Put(g, std::move(n));
    return {true, ""};
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> NewMpsObliviousPolicy() { return std::make_unique<MpsOblivious>(); }

}  // namespace frugal::share
