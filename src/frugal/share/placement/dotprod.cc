// FGD's "DotProd" baseline (Tetris, SIGCOMM'14), as FGD ran it: the node's
// free (CPU, total GPU) and the pod's request, both divided by the largest
// node spec (128 CPUs, 8 GPUs), dot product halved; the score is
// 1 - that, scaled to 0..100 and truncated, so the node whose free vector
// aligns least with the request wins. GPUs: best fit.
#include "frugal/share/placement/policies.h"

namespace frugal::share {
namespace {

class DotProductPolicy final : public PlacementPolicy {
 public:
  NodeScore Score(ScoreContext&, const NodeState& node, const PodShape& pod) override {
    const double dot =
        (static_cast<double>(node.cpu_left) / kMaxSpecCpuMilli) *
            (static_cast<double>(pod.cpu_milli) / kMaxSpecCpuMilli) +
        (static_cast<double>(node.GpuLeftTotal()) / kMaxSpecGpuMilli) *
            (static_cast<double>(pod.TotalGpuMilli()) / kMaxSpecGpuMilli);
    const double score = 1.0 - dot / 2.0;
    return {static_cast<double>(static_cast<int64_t>(kMaxNodeScore * score)), BestFitGpus(node, pod)};
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewDotProductPolicy() {
  return std::make_unique<DotProductPolicy>();
}

}  // namespace frugal::share
