// FGD's "GPU Packing" baseline. Best first: a pod that fits on partly used
// GPUs (100 minus a tenth of the free percentage of the GPUs it would use,
// at least 50); a pod that needs fully free GPUs on a partly used node (50
// minus their number, at least 33); an idle node (33 minus its GPUs). The
// GPUs it would use are the least free that fit. CPU-only pods score 0.
// GPUs: best fit.
#include <algorithm>
#include <numeric>

#include "frugal/share/placement/policies.h"

namespace frugal::share {
namespace {

class GpuPackingPolicy final : public PlacementPolicy {
 public:
  NodeScore Score(ScoreContext&, const NodeState& node, const PodShape& pod) override {
    if (pod.gpu_milli <= 0) return {0, 0};
    const GpuSet gpus = BestFitGpus(node, pod);
    const int fully_free = node.FullyFreeGpus();
    if (fully_free == node.num_gpus) {
      const int64_t score = kMaxNodeScore / 3 - fully_free;
      return {static_cast<double>(std::max<int64_t>(score, fully_free)), gpus};
    }
    // The least free GPUs that fit, in ascending order of free milli.
    std::array<int, kMaxGpusPerNode> order{};
    std::iota(order.begin(), order.begin() + node.num_gpus, 0);
    std::stable_sort(order.begin(), order.begin() + node.num_gpus,
                     [&](int a, int b) { return node.gpu_left[a] < node.gpu_left[b]; });
    int need = pod.num_gpu, fully_free_used = 0;
    int64_t free_pct_sum = 0;
    for (int k = 0; k < node.num_gpus && need > 0; ++k) {
      const int left = node.gpu_left[order[k]];
      if (left < pod.gpu_milli) continue;
      --need;
      fully_free_used += left == kMilliPerGpu;
      free_pct_sum += int64_t{left} * 100 / kMilliPerGpu;
    }
    if (fully_free_used > 0) {
      return {static_cast<double>(std::max<int64_t>(kMaxNodeScore / 2 - fully_free_used, kMaxNodeScore / 3)),
              gpus};
    }
    return {static_cast<double>(std::max<int64_t>(kMaxNodeScore - free_pct_sum / 10, kMaxNodeScore / 2)),
            gpus};
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewGpuPackingPolicy() {
  return std::make_unique<GpuPackingPolicy>();
}

}  // namespace frugal::share
