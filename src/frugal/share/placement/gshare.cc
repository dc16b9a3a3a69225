// G-Share's packer (no interference data exists for Alibaba's pods, so it
// only packs): of two fragmentation descents, the one that simulation on
// this trace says packs better.
//  - FGD's own descent (fgd.cc): its popular shapes, its GPU choice.
//  - The blend descent (gshare_blend.cc): FGD's shapes blended with every
//    shape of the trace, GPU by least exact fragmentation, and a
//    look-ahead that drops shapes no node can host any more.
// Measured on Alibaba's trace variants, the blend wins on most (by up to
// 3 points) and loses on a few (every GPU pod sharing; 40 % multi-GPU)
// by 0.1-0.2 points. Before the first arrival gshare replays both, each
// from the empty cluster over kRollouts arrival sequences of their own
// (drawn from the trace as the experiment draws its runs', with seeds of
// their own), and keeps the blend only if its mean unallocated GPU %,
// paired per sequence, is at or below FGD's at every level of arrived
// workload; else it scores exactly as fgd. The sequences are the same for
// every run, so one experiment decides once per trace: deciding per run
// mixes the two descents across seeds, and the median of that mixture
// measured worse than either (gpushare40: +0.05 over fgd).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "frugal/share/placement/policies.h"

namespace frugal::share {
namespace {

constexpr int kRollouts = 16;

class GsharePolicy final : public PlacementPolicy {
 public:
  GsharePolicy() : active_(NewGshareBlendPolicy()) {}

  NodeScore Score(ScoreContext& ctx, const NodeState& node, const PodShape& pod) override {
    return active_->Score(ctx, node, pod);
  }

  bool Observe(ScoreContext& ctx, const std::vector<NodeState>& nodes) override {
    bool changed = false;
    if (!chosen_ && ctx.rollouts != nullptr) {
      chosen_ = true;
      const double worst = WorstBlendMinusFgd(*ctx.rollouts);
      const bool blend = worst <= 1e-9;
      decision_ = fmt::format(
          "{} descent (over {} rollouts, the blend's mean unallocated GPU % minus fgd's at its "
          "worst level: {:+.3f})",
          blend ? "blend" : "fgd's", kRollouts, worst);
      if (!blend) {
        active_ = NewFgdPolicy();
        changed = true;
      }
    }
    return active_->Observe(ctx, nodes) || changed;
  }

  std::string Decision() const override { return decision_; }

 private:
  // The largest over levels of the blend's mean unallocated GPU % minus
  // FGD's, paired per rollout.
  static double WorstBlendMinusFgd(Rollouts& rollouts) {
    std::vector<RolloutKey> keys;
    for (int k = 0; k < kRollouts; ++k) {
      keys.push_back({&NewGshareBlendPolicy, k});
      keys.push_back({&NewFgdPolicy, k});
    }
    const std::vector<std::vector<double>> runs = rollouts.RunMany(keys);
    std::vector<double> diff;
    for (int k = 0; k < kRollouts; ++k) {
      const std::vector<double>& b = runs[2 * k];
      const std::vector<double>& f = runs[2 * k + 1];
      diff.resize(b.size(), 0.0);
      for (size_t l = 0; l < b.size(); ++l) diff[l] += b[l] - f[l];
    }
    return diff.empty() ? 0.0 : *std::max_element(diff.begin(), diff.end()) / kRollouts;
  }

  std::unique_ptr<PlacementPolicy> active_;
  bool chosen_ = false;
  std::string decision_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewGsharePolicy() { return std::make_unique<GsharePolicy>(); }

}  // namespace frugal::share
