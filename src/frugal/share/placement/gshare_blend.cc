// G-Share's blend descent, one of the three descents gshare (gshare.cc)
// chooses between. Fragmentation gradient descent with four changes to FGD:
//  - Target workload: BlendTypicalPods (frag.h), FGD's popular shapes
//    blended half and half with the whole trace distribution. FGD's 95 %
//    cut drops every multi-GPU shape and most GPU-model constraints from
//    the default trace, so it breaks up 8-GPU nodes and scarce-model nodes
//    as readily as any other; the blend keeps them in view.
//  - GPU choice inside a node: the fitting GPU that leaves the least
//    (exact) fragmentation plus reservation loss, ties to the least free
//    GPU; FGD compares its rounded node scores and takes the first GPU
//    among equals.
//  - The reservation (scarce_slots.h): the expected GPU-milli of future
//    pods the placement turns away is added to the fragmentation after.
//  - Look-ahead over the remaining pods (Observe): every 5 % of arrived
//    workload, shapes of the target workload that no node can host any
//    more get weight 0 and the rest are renormalised, so the score stops
//    counting fragments against pods that can no longer be placed.
// The node score keeps FGD's sigmoid rounded to 0..100 and the scheduler's
// first-of-equals choice: measured, the exact delta scores worse (the
// rounding makes small differences ties and the tie rule packs nodes in
// list order). Valid for any trace: nothing depends on the seed or file.
#include <algorithm>
#include <cmath>
#include <memory>

#include "frugal/share/placement/policies.h"

namespace frugal::share {
namespace {

class GshareBlendPolicy final : public PlacementPolicy {
 public:
  NodeScore Score(ScoreContext& ctx, const NodeState& node, const PodShape& pod) override {
    FragMemo& frag = live_memo_ ? *live_memo_ : ctx.blend_frag != nullptr ? *ctx.blend_frag : *ctx.frag;
    const double before = frag.Frag(node);
    // What the placement leaves: fragmentation plus the reservation's loss.
    auto cost = [&](GpuSet g) { return frag.FragAfter(node, pod, g) + reserve_.Loss(node, pod, g); };
    GpuSet gpus = 0;
    double after = 0;
    if (pod.IsGpuShare()) {
      int best_left = 0;
      for (int i = 0; i < node.num_gpus; ++i) {
        const int left = node.gpu_left[i];
        if (left < pod.gpu_milli) continue;
        const GpuSet g = GpuSet{1} << i;
        const double f = cost(g);
        if (gpus == 0 || f < after - 1e-9 || (std::abs(f - after) <= 1e-9 && left < best_left)) {
          gpus = g;
          after = f;
          best_left = left;
        }
      }
    } else {
      gpus = ExclusiveGpus(node, pod);
      after = cost(gpus);
    }
    return {static_cast<double>(FgdSigmoidScore(before - after)), gpus};
  }

  // Look-ahead over the pods still to come: a shape that no node can host
  // any more (too little CPU, no GPU of its model with room) cannot arrive
  // and be placed, so it leaves the target workload; the rest are
  // renormalised. Refreshed every kObserveStepPct % of arrived workload.
  bool Observe(ScoreContext& ctx, const std::vector<NodeState>& nodes) override {
    if (ctx.blend_frag == nullptr) return false;
    const bool repriced = ctx.trace_shapes != nullptr && reserve_.Update(*ctx.trace_shapes, nodes, ctx.remaining_milli);
    std::vector<TypicalPod> next = ctx.blend_frag->typical();
    double sum = 0;
    for (TypicalPod& t : next) {
      const PodShape& p = t.shape;
      if (p.gpu_milli > 0) {
        const bool hostable = std::any_of(nodes.begin(), nodes.end(), [&](const NodeState& n) {
          return n.num_gpus > 0 && n.cpu_left >= p.cpu_milli && n.ModelAllowed(p.models) &&
                 n.GpusCanHost(p);
        });
        if (!hostable) t.weight = 0;
      }
      sum += t.weight;
    }
    for (TypicalPod& t : next) t.weight = sum > 0 ? t.weight / sum : 0;
    const bool same = live_memo_ && live_.size() == next.size() &&
                      std::equal(live_.begin(), live_.end(), next.begin(),
                                 [](const TypicalPod& x, const TypicalPod& y) { return x.weight == y.weight; });
    if (same) return repriced;
    live_ = std::move(next);
    live_memo_ = std::make_unique<FragMemo>(&live_);
    return true;
  }

 private:
  ScarceSlots reserve_;
  std::vector<TypicalPod> live_;
  std::unique_ptr<FragMemo> live_memo_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewGshareBlendPolicy() { return std::make_unique<GshareBlendPolicy>(); }

}  // namespace frugal::share
