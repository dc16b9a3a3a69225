// gshare: SLO-aware sharing. An arriving job joins the GPU where the best
// configuration of its jobs plus the new one (mechanism MPS, MIG or time
// slicing; MPS shares: each service the least SM share at which its
// predicted p99 at peak rate stays within headroom x SLO, training jobs the
// rest by duty) is feasible -- every service's predicted p99 within target,
// every training job at or above the speed floor, memory fits -- and
// tightest (highest load), else a GPU of its own. After a departure it
// tries to empty one lightly used GPU by moving its jobs (at most
// max_moves) onto others; each moved job is a migration.
#include <algorithm>

#include <fmt/format.h>

#include "frugal/share/sharing_policy.h"

namespace frugal::share {
namespace {

constexpr int kMaxMoves = 3;     // jobs moved per departure
constexpr int kMaxSources = 12;   // GPUs tried for emptying per departure

std::vector<int> JobsOf(const GpuState& g) {
  std::vector<int> j;
  for (const Slot& s : g.slots) j.push_back(s.job);
  return j;
}

// The best shared placement of `job` on a GPU other than `skip`; -1 when none.
int BestShared(int job, const ClusterState& c, const Planner& p, int skip, Config* out) {
  int best = -1;
  const double mem_new = p.job(job).mem_bytes;
  for (size_t g = 0; g < c.gpus.size(); ++g) {
    const GpuState& s = c.gpus[g];
    if (static_cast<int>(g) == skip || s.empty() ||
        static_cast<int>(s.slots.size()) >= p.options().max_jobs_per_gpu) {
      continue;
    }
    double mem = mem_new, duty = p.PlanDuty(job);
    for (const Slot& x : s.slots) {
      mem += p.job(x.job).mem_bytes;
      duty += p.PlanDuty(x.job);
    }
    // Cheap necessary conditions before the search.
    if (mem > p.gpu_mem_bytes() || duty > 1.6) continue;
    std::vector<int> jobs = JobsOf(s);
    jobs.push_back(job);
    Config cfg = BestConfig(p, jobs);
    if (!cfg.ok) continue;
    if (best < 0 || cfg.load > out->load) {
      best = static_cast<int>(g);
      *out = std::move(cfg);
    }
  }
  return best;
}

class Gshare final : public SharingPolicy {
 public:
  const char* name() const override { return "gshare"; }
  bool uses_targets() const override { return true; }

  PlaceResult Place(int job, ClusterState* c, const Planner& p) override {
    Config cfg;
    const int g = BestShared(job, *c, p, -1, &cfg);
    if (g >= 0) {
      c->Put(g, std::move(cfg.state));
      return {true, ""};
    }
    const int f = c->FreeGpu();
    if (f < 0) {
      return {false, fmt::format("no GPU of {} can take it within the SLOs and the {:.2f} "
                                 "speed floor",
                                 c->max_gpus, p.options().min_training_speed)};
    }
    Config alone = BestConfig(p, {job});
    c->Put(f, std::move(alone.state));
    return {true, ""};
  }

  void AfterDeparture(int, ClusterState* c, const Planner& p) override {
    // Sources: GPUs with the fewest jobs, then the lightest.
    std::vector<int> src;
    for (size_t g = 0; g < c->gpus.size(); ++g) {
      const auto n = c->gpus[g].slots.size();
      if (n > 0 && static_cast<int>(n) <= kMaxMoves) src.push_back(static_cast<int>(g));
    }
    auto load = [&](int g) {
      double d = 0;
      for (const Slot& s : c->gpus[g].slots) d += p.PlanDuty(s.job);
      return d;
    };
    std::stable_sort(src.begin(), src.end(), [&](int a, int b) {
      const auto na = c->gpus[a].slots.size(), nb = c->gpus[b].slots.size();
      return na != nb ? na < nb : load(a) < load(b);
    });
    for (int k = 0; k < static_cast<int>(src.size()) && k < kMaxSources; ++k) {
      ClusterState trial = *c;
      const std::vector<int> jobs = JobsOf(trial.gpus[src[k]]);
      bool all = true;
      for (int j : jobs) {
        trial.Remove(j);
        Config cfg;
        const int g = BestShared(j, trial, p, src[k], &cfg);
        if (g < 0) {
          all = false;
          break;
        }
        trial.Put(g, std::move(cfg.state));
      }
      if (!all) continue;
      trial.migrations += static_cast<int64_t>(jobs.size());
      trial.moved.insert(trial.moved.end(), jobs.begin(), jobs.end());
      *c = std::move(trial);
      return;
    }
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> NewGshareSharingPolicy() { return std::make_unique<Gshare>(); }

}  // namespace frugal::share
