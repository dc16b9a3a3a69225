// FGD's "GPU Clustering" baseline: pods of one kind (CPU-only, sharing, or
// k whole GPUs) are kept together. Score bands, best first: a node whose
// pods all share the pod's kind (75..100), a mixed node with that kind
// (50..75), an empty node (25..50), a node of other kinds (0..25); within
// a band, less free GPU is better (integer arithmetic, as in Kubernetes).
// CPU-only pods score 0 everywhere. GPUs: best fit.
#include "frugal/share/placement/policies.h"

namespace frugal::share {
namespace {

class GpuClusteringPolicy final : public PlacementPolicy {
 public:
  NodeScore Score(ScoreContext&, const NodeState& node, const PodShape& pod) override {
    const int tag = AffinityOf(pod);
    if (tag == 0) return {0, 0};
    const int64_t in_band = kMaxNodeScore / 4 * (kMaxSpecGpuMilli - node.GpuLeftTotal()) / kMaxSpecGpuMilli;
    const int kinds = node.NumAffinities();
    int64_t band;
    if (node.affinity[tag] > 0) {
      band = kinds == 1 ? kMaxNodeScore * 3 / 4 : kMaxNodeScore * 2 / 4;
    } else {
      band = kinds == 0 ? kMaxNodeScore / 4 : 0;
    }
    return {static_cast<double>(in_band + band), BestFitGpus(node, pod)};
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewGpuClusteringPolicy() {
  return std::make_unique<GpuClusteringPolicy>();
}

}  // namespace frugal::share
