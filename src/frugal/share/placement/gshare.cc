// G-Share's packer (no interference data exists for Alibaba's pods, so it
// packs only): fragmentation gradient descent without FGD's rounding.
//  - Node score: the exact drop in the target workload's expected
//    fragmentation (FGD rounds sigmoid(delta) to an integer 0..100, which
//    ties nodes whose deltas differ by hundreds of milli-GPU and leaves
//    the choice to chance).
//  - Ties on that drop go to the tightest fit: least (CPU, GPU) left after
//    the placement, as best-fit measures it.
//  - GPU choice inside the node: the fitting GPU whose use leaves the
//    least fragmentation, ties to the least free GPU.
#include <cmath>

#include "frugal/share/placement/policies.h"

namespace frugal::share {
namespace {

constexpr double kMaxSpecCpuMilli = 128000;
constexpr double kMaxSpecGpuMilli = 8000;
// The tie-break term stays far below one milli-GPU of fragmentation.
constexpr double kTieBreakWeight = 1e-3;

class GsharePolicy final : public PlacementPolicy {
 public:
  NodeScore Score(ScoreContext& ctx, const NodeState& node, const PodShape& pod) override {
    const double before = ctx.frag->Frag(node);
    GpuSet gpus = 0;
    double after = 0;
    if (pod.IsGpuShare()) {
      int best_left = 0;
      for (int i = 0; i < node.num_gpus; ++i) {
        const int left = node.gpu_left[i];
        if (left < pod.gpu_milli) continue;
        const GpuSet g = GpuSet{1} << i;
        const double f = ctx.frag->FragAfter(node, pod, g);
        if (gpus == 0 || f < after - 1e-9 || (std::abs(f - after) <= 1e-9 && left < best_left)) {
          gpus = g;
          after = f;
          best_left = left;
        }
      }
    } else {
      gpus = ExclusiveGpus(node, pod);
      after = ctx.frag->FragAfter(node, pod, gpus);
    }
    const double left =
        static_cast<double>(node.cpu_left - pod.cpu_milli) / kMaxSpecCpuMilli * 0.5 +
        static_cast<double>(node.GpuLeftTotal() - pod.TotalGpuMilli()) / kMaxSpecGpuMilli * 0.5;
    return {(before - after) - kTieBreakWeight * left, gpus};
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewGsharePolicy() { return std::make_unique<GsharePolicy>(); }

}  // namespace frugal::share
