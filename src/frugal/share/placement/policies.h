// Factories of the placement policies, one .cc each; listed in
// placement_registry.cc.
#ifndef FRUGAL_SHARE_PLACEMENT_POLICIES_H_
#define FRUGAL_SHARE_PLACEMENT_POLICIES_H_

#include <memory>

#include "frugal/share/placement_policy.h"

namespace frugal::share {

std::unique_ptr<PlacementPolicy> NewRandomPolicy();
std::unique_ptr<PlacementPolicy> NewDotProductPolicy();
std::unique_ptr<PlacementPolicy> NewGpuClusteringPolicy();
std::unique_ptr<PlacementPolicy> NewGpuPackingPolicy();
std::unique_ptr<PlacementPolicy> NewBestFitPolicy();
std::unique_ptr<PlacementPolicy> NewFgdPolicy();
std::unique_ptr<PlacementPolicy> NewGsharePolicy();
// gshare's blend descent alone (not registered: gshare runs it when its
// rollouts say it beats FGD's descent).
std::unique_ptr<PlacementPolicy> NewGshareBlendPolicy();

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_PLACEMENT_POLICIES_H_
