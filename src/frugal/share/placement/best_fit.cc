// FGD's "Best-fit" baseline: the node with the least (CPU, GPU) left after
// the placement, each divided by the largest node spec (128 CPUs, 8 GPUs),
// weighted 1/2 each; score (1 - that) × 100, truncated. GPUs: best fit.
#include "frugal/share/placement/policies.h"

namespace frugal::share {
namespace {

class BestFitPolicy final : public PlacementPolicy {
 public:
  NodeScore Score(ScoreContext&, const NodeState& node, const PodShape& pod) override {
    const double left =
        static_cast<double>(node.cpu_left - pod.cpu_milli) / kMaxSpecCpuMilli * 0.5 +
        static_cast<double>(node.GpuLeftTotal() - pod.TotalGpuMilli()) / kMaxSpecGpuMilli * 0.5;
    return {static_cast<double>(static_cast<int64_t>((1.0 - left) * kMaxNodeScore)),
            BestFitGpus(node, pod)};
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewBestFitPolicy() { return std::make_unique<BestFitPolicy>(); }

}  // namespace frugal::share
