// mig-static: every GPU is cut once into the same MIG layout (3g + 2g + 1g +
// 1g: 7 compute and 8 memory slices, a layout NVIDIA's placement rules
// allow); a job takes the smallest free slice that holds its memory and
// meets its target (service p99, training speed floor), else the largest
// free slice that holds it. Slices are never re-cut.
#include <fmt/format.h>

#include "frugal/share/sharing_policy.h"

namespace frugal::share {
namespace {

// The layout's compute slices per position; each position takes the first
// (smallest-memory) profile of that many compute slices: 3g.20gb, 2g.10gb,
// 1g.5gb, 1g.5gb on an A100 40 GB.
constexpr int kLayoutSlices[] = {3, 2, 1, 1};

// Indices into the GPU's profile list, or empty when a size is missing.
std::vector<int> LayoutOf(const std::vector<MigProfile>& mig) {
  std::vector<int> layout;
  for (int want : kLayoutSlices) {
    for (size_t k = 0; k < mig.size(); ++k) {
      if (mig[k].compute_slices == want) {
        layout.push_back(static_cast<int>(k));
        break;
      }
    }
  }
  if (layout.size() != std::size(kLayoutSlices)) layout.clear();
  return layout;
}

class MigStatic final : public SharingPolicy {
 public:
  const char* name() const override { return "mig-static"; }
  bool uses_targets() const override { return true; }
  bool co_locates() const override { return false; }
  std::string CannotRun(const Planner& p) const override {
    return LayoutOf(p.mig_profiles()).empty()
               ? p.gpu().name + " has no MIG 3g + 2g + 1g layout (MIG: A100, H100, H200)"
               : "";
  }
  PlaceResult Place(int job, ClusterState* c, const Planner& p) override {
    const auto& mig = p.mig_profiles();
    const std::vector<int> layout = LayoutOf(mig);
    if (layout.empty()) return {false, p.gpu().name + " has no MIG 3g + 2g + 1g layout"};
    const JobProfile& j = p.job(job);
    auto meets = [&](int k) {
      GpuState one;
      one.mechanism = Mechanism::kMig;
      one.slots.push_back({job, 1, k});
      GpuEval e = p.Evaluate(one, nullptr, j.service ? 0 : Planner::kProbeNone);
      if (!e.ok) return false;
      return j.service ? e.slots[0].p99_ms <= p.options().slo_headroom * j.slo_ms
                       : e.slots[0].training_speed >= p.options().min_training_speed;
    };
    auto holds = [&](int k) { return j.mem_bytes <= mig[k].mem_gib * 1024.0 * 1024 * 1024; };
    // Free slices: (gpu, layout position), existing GPUs first.
    struct Free {
      int gpu, pos, profile;
    };
    std::vector<Free> free;
    for (size_t g = 0; g < c->gpus.size(); ++g) {
      if (c->gpus[g].empty()) continue;
      for (int pos = 0; pos < 4; ++pos) {
        bool used = false;
        for (const Slot& s : c->gpus[g].slots) used |= s.mig_pos == pos;
        if (!used) free.push_back({static_cast<int>(g), pos, layout[pos]});
      }
    }
    const int fresh = static_cast<int>(free.size());
    for (int pos = 0; pos < 4; ++pos) free.push_back({-1, pos, layout[pos]});
    int pick = -1;
    for (int pass = 0; pass < 2 && pick < 0; ++pass) {
      // Pass 0: existing GPUs; pass 1: a new GPU. Smallest meeting slice.
      const int lo = pass == 0 ? 0 : fresh, hi = pass == 0 ? fresh : static_cast<int>(free.size());
      for (int i = lo; i < hi; ++i) {
        if (!holds(free[i].profile) || !meets(free[i].profile)) continue;
        if (pick < 0 || mig[free[i].profile].compute_slices < mig[free[pick].profile].compute_slices) {
          pick = i;
        }
      }
    }
    if (pick < 0) {
      for (int i = 0; i < static_cast<int>(free.size()); ++i) {
        if (!holds(free[i].profile)) continue;
        if (pick < 0 || mig[free[i].profile].compute_slices > mig[free[pick].profile].compute_slices) {
          pick = i;
        }
      }
    }
    if (pick < 0) {
      return {false, fmt::format("needs {:.1f} GiB; the largest slice of the static layout, {}, "
                                 "has {:.1f} GiB",
                                 j.mem_bytes / (1 << 30), mig[layout[0]].name,
                                 mig[layout[0]].mem_gib)};
    }
    int g = free[pick].gpu;
    if (g < 0) {
      g = c->FreeGpu();
      if (g < 0) return {false, fmt::format("no MIG slice free on {} GPUs", c->max_gpus)};
    }
    GpuState s = c->gpus[g];
    s.mechanism = Mechanism::kMig;
    s.slots.push_back({job, 1, free[pick].profile, free[pick].pos});
    c->Put(g, std::move(s));
    return {true, ""};
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> NewMigStaticPolicy() { return std::make_unique<MigStatic>(); }

}  // namespace frugal::share
