// FGD (Weng et al., ATC'23), as its simulator scores: the fragmentation
// (frag.h) of the node before minus after the placement, through a
// sigmoid of (delta / 1000), × 100 and truncated to an integer — so nodes
// whose deltas round alike tie and Kubernetes picks among them at random.
// A sharing pod tries each GPU that fits and takes the first with the
// highest (integer) score; whole-GPU pods take the lowest-numbered free
// GPUs, and their "after" packs onto the least free fitting GPUs.
#include "frugal/share/placement/policies.h"

namespace frugal::share {

NodeScore FgdDescentScore(FragMemo& frag, const NodeState& node, const PodShape& pod,
                          const ScarceSlots* reserve) {
  const double before = frag.Frag(node);
  auto score = [&](GpuSet g) {
    double delta = before - frag.FragAfter(node, pod, g);
    if (reserve != nullptr) delta -= reserve->Loss(node, pod, g);
    return static_cast<double>(FgdSigmoidScore(delta));
  };
  if (pod.IsGpuShare()) {
    NodeScore best{-1, 0};
    for (int i = 0; i < node.num_gpus; ++i) {
      if (node.gpu_left[i] < pod.gpu_milli) continue;
      const GpuSet g = GpuSet{1} << i;
      const double s = score(g);
      if (best.gpus == 0 || s > best.score) best = {s, g};
    }
    return best;
  }
  // Whole GPUs: any fully free GPUs leave the same multiset.
  const GpuSet g = ExclusiveGpus(node, pod);
  return {score(g), g};
}

namespace {

class FgdPolicy final : public PlacementPolicy {
 public:
  NodeScore Score(ScoreContext& ctx, const NodeState& node, const PodShape& pod) override {
    return FgdDescentScore(*ctx.frag, node, pod, nullptr);
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewFgdPolicy() { return std::make_unique<FgdPolicy>(); }

}  // namespace frugal::share
