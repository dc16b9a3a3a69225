// The one registry table of cache policies. `frugal cache list` prints it;
// the conformance suite (policy_conformance_test.cc) runs every row.
// Read-only data; thread-safe.
#ifndef FRUGAL_CACHE_POLICY_REGISTRY_H_
#define FRUGAL_CACHE_POLICY_REGISTRY_H_

#include <memory>
#include <span>
#include <string>

#include "frugal/base/registry.h"
#include "frugal/base/status.h"
#include "frugal/cache/policy.h"

namespace frugal::cache {

using PolicyFactory = std::unique_ptr<CachePolicy> (*)(const PolicyOptions&);

std::span<const RegistryRow<PolicyFactory>> Policies();

// True for policies that read the future (belady): not a baseline.
bool IsOfflinePolicy(const std::string& name);

// True for policies that warm-start from PolicyOptions::model_path.
bool TakesModel(const std::string& name);

// Creates `name`; InvalidArgument for an unknown name, a capacity <= 0, or
// a model_path given to a policy that takes none; smartcache's model file
// errors (missing, truncated, not a model) name the file.
Result<std::unique_ptr<CachePolicy>> MakePolicy(const std::string& name,
                                                const PolicyOptions& options);

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_POLICY_REGISTRY_H_
