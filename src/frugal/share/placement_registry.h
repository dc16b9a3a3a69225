// The one table of placement policies (`frugal share policies`): FGD's
// six (random, dotprod, gpu-clustering, gpu-packing, best-fit, fgd) and
// G-Share's packer (gshare). Read-only; thread-safe.
#ifndef FRUGAL_SHARE_PLACEMENT_REGISTRY_H_
#define FRUGAL_SHARE_PLACEMENT_REGISTRY_H_

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/base/registry.h"
#include "frugal/base/status.h"
#include "frugal/share/placement_policy.h"

namespace frugal::share {


std::span<const RegistryRow<PolicyFactory>> PlacementPolicies();

// NotFound naming the valid policies.
Result<std::unique_ptr<PlacementPolicy>> MakePlacementPolicy(std::string_view name);

// "all" or a comma-separated list of names, in table order for "all".
Result<std::vector<std::string>> ParsePlacementPolicyList(std::string_view list);

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_PLACEMENT_REGISTRY_H_
