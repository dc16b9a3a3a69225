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
    {"gshare", "G-Share packer: FGD's descent or a blend of popular + all trace shapes, whichever rollouts on the trace favour",
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

Result<std::vector<std::string>> ParsePolicyList(std::string_view list) {
  std::vector<std::string> out;
  if (list == "all") {
    for (const auto& row : PlacementPolicies()) out.emplace_back(row.name);
    return out;
  }
  while (true) {
    const size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    if (FindRow(PlacementPolicies(), name) == nullptr) {
      return NotFound("unknown policy '" + std::string(name) + "' (" +
                      RowNames(PlacementPolicies()) + ", or all)");
    }
    bool dup = false;
    for (const auto& n : out) dup |= n == name;
    if (!dup) out.emplace_back(name);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace frugal::share
