#include "frugal/share/placement_registry.h"

#include "frugal/share/placement/policies.h"

namespace frugal::share {
namespace {

constexpr RegistryRow<PolicyFactory> kPolicies[] = {
    {"random", "a uniformly random fitting node, a random fitting GPU", &NewRandomPolicy},
    {"dotprod", "Tetris' dot product of free and requested (CPU, GPU), smallest wins",
     &NewDotProductPolicy},
    {"gpu-clustering", "nodes already running pods of the same GPU count first",
     &NewGpuClusteringPolicy},
    {"gpu-packing", "shared GPUs first, then partly used nodes, then idle nodes",
     &NewGpuPackingPolicy},
    {"best-fit", "least (CPU, GPU) left after placing", &NewBestFitPolicy},
    {"fgd", "FGD: least growth of the target workload's expected GPU fragmentation",
     &NewFgdPolicy},
    {"gshare", "G-Share packer: FGD's descent, alone or reserving the last hosts of scarce shapes (on FGD's or a blended target workload), whichever rollouts on the trace favour",
     &NewGsharePolicy},
};

}  // namespace

std::span<const RegistryRow<PolicyFactory>> PlacementPolicies() { return kPolicies; }

Result<std::unique_ptr<PlacementPolicy>> MakePlacementPolicy(std::string_view name) {
  const auto* row = FindRow(PlacementPolicies(), name);
  if (row == nullptr) {
    return NotFound("unknown policy '" + std::string(name) + "' (" + RowNames(PlacementPolicies()) +
                    ")");
  }
  return row->factory();
}

Result<std::vector<std::string>> ParsePlacementPolicyList(std::string_view list) {
  std::string unknown;
  std::vector<std::string> out = ParseRowList(PlacementPolicies(), list, &unknown);
  if (out.empty()) {
    return NotFound("unknown policy '" + unknown + "' (" + RowNames(PlacementPolicies()) +
                    ", or all)");
  }
  return out;
}

}  // namespace frugal::share
