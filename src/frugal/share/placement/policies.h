// Factories of the placement policies, one .cc each; listed in
// placement_registry.cc.
#ifndef FRUGAL_SHARE_PLACEMENT_POLICIES_H_
#define FRUGAL_SHARE_PLACEMENT_POLICIES_H_

#include <cmath>
#include <cstdint>
#include <memory>

#include "frugal/share/placement/scarce_slots.h"
#include "frugal/share/placement_policy.h"

namespace frugal::share {

// The largest node spec of Alibaba's cluster (128 CPUs, 8 GPUs), by which
// FGD's baselines normalise CPU and GPU amounts.
inline constexpr int64_t kMaxSpecCpuMilli = 128000;
inline constexpr int64_t kMaxSpecGpuMilli = 8000;

// FGD's node score for a fragmentation decrease of delta_milli: 100 ×
// sigmoid(delta / 1000), truncated to an integer (so near deltas tie).
inline int64_t FgdSigmoidScore(double delta_milli) {
  return static_cast<int64_t>(1.0 / (1.0 + std::exp(-delta_milli / 1000.0)) * kMaxNodeScore);
}

// FGD's node score (fgd.cc); with `reserve`, the delta also pays the
// expected GPU-milli of future pods the placement turns away.
NodeScore FgdDescentScore(FragMemo& frag, const NodeState& node, const PodShape& pod,
                          const ScarceSlots* reserve);

std::unique_ptr<PlacementPolicy> NewRandomPolicy();
std::unique_ptr<PlacementPolicy> NewDotProductPolicy();
std::unique_ptr<PlacementPolicy> NewGpuClusteringPolicy();
std::unique_ptr<PlacementPolicy> NewGpuPackingPolicy();
std::unique_ptr<PlacementPolicy> NewBestFitPolicy();
std::unique_ptr<PlacementPolicy> NewFgdPolicy();
std::unique_ptr<PlacementPolicy> NewGsharePolicy();
// gshare's two reserving descents (not registered: gshare runs one when its
// rollouts say it beats FGD's descent): the blend (gshare_blend.cc) and
// FGD's own descent with the reservation (gshare_reserve.cc).
std::unique_ptr<PlacementPolicy> NewGshareBlendPolicy();
std::unique_ptr<PlacementPolicy> NewGshareReservePolicy();

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_PLACEMENT_POLICIES_H_
