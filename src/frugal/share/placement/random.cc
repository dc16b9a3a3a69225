// FGD's "Random-fit": a uniformly random node among those that fit, and a
// uniformly random fitting GPU for a sharing pod (GPU selection "random").
#include "frugal/share/placement/policies.h"

namespace frugal::share {
namespace {

class RandomPolicy final : public PlacementPolicy {
 public:
  NodeScore Score(ScoreContext& ctx, const NodeState& node, const PodShape& pod) override {
    if (!pod.IsGpuShare()) return {0, ExclusiveGpus(node, pod)};
    // Reservoir sampling over the fitting GPUs, as the simulator does.
    GpuSet pick = 0;
    uint64_t seen = 0;
    for (int i = 0; i < node.num_gpus; ++i) {
      if (node.gpu_left[i] >= pod.gpu_milli && ctx.rng->Below(++seen) == 0) pick = GpuSet{1} << i;
    }
    return {0, pick};
  }
  bool cacheable() const override { return false; }
  bool random_node() const override { return true; }
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewRandomPolicy() { return std::make_unique<RandomPolicy>(); }

}  // namespace frugal::share
