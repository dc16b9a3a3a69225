// The one table of sharing policies. `frugal share simulate --list-policies`
// prints it.
#include <fmt/format.h>

#include "frugal/share/sharing_policy.h"

namespace frugal::share {
namespace {

constexpr RegistryRow<SharingPolicyFactory> kPolicies[] = {
    {"exclusive", "one job per GPU", &NewExclusivePolicy},
    {"gandiva-pack", "time slicing, pack while the jobs' GPU utilisations sum to <= 100 %",
     &NewGandivaPackPolicy},
    {"mps-oblivious", "MPS, SM shares as requested (duty), first fit, no interference model",
     &NewMpsObliviousPolicy},
    {"mig-static", "a fixed MIG layout (3g+2g+1g+1g) per GPU, smallest slice meeting the target",
     &NewMigStaticPolicy},
    {"gshare", "SLO-aware: mechanism and shares so predicted p99 <= SLO and training speed >= "
               "floor, fewest GPUs, re-plans with few migrations",
     &NewGshareSharingPolicy},
};

}  // namespace

std::span<const RegistryRow<SharingPolicyFactory>> SharingPolicies() { return kPolicies; }

Result<std::unique_ptr<SharingPolicy>> NewSharingPolicy(std::string_view name) {
  const auto* row = FindRow(SharingPolicies(), name);
  if (row == nullptr) {
    return NotFound(fmt::format("unknown sharing policy '{}' (known: {})", name,
                                RowNames(SharingPolicies())));
  }
  return row->factory();
}

Result<std::vector<std::string>> ParseSharingPolicyList(std::string_view spec) {
  std::string unknown;
  std::vector<std::string> out = ParseRowList(SharingPolicies(), spec, &unknown);
  if (out.empty()) {
    return NotFound(fmt::format("unknown sharing policy '{}' (known: {}, or all)", unknown,
                                RowNames(SharingPolicies())));
  }
  return out;
}

}  // namespace frugal::share
