// The one table of sharing policies. `frugal share simulate --list-policies`
// prints it.
#include <algorithm>

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

Result<std::vector<std::string>> ParsePolicyList(const std::string& spec) {
  std::vector<std::string> out;
  if (spec == "all") {
    for (const auto& r : SharingPolicies()) out.push_back(r.name);
    return out;
  }
  size_t start = 0;
  while (start <= spec.size()) {
    const size_t comma = spec.find(',', start);
    const std::string name =
        spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (FindRow(SharingPolicies(), name) == nullptr) {
      return NotFound(fmt::format("unknown sharing policy '{}' (known: {}, or all)", name,
                                  RowNames(SharingPolicies())));
    }
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace frugal::share
