// Factories of the built-in policies, one per file under policies/; the
// registry table in policy_registry.cc lists them.
#ifndef FRUGAL_CACHE_POLICIES_POLICIES_H_
#define FRUGAL_CACHE_POLICIES_POLICIES_H_

#include <memory>

#include "frugal/cache/policy.h"

namespace frugal::cache {

std::unique_ptr<CachePolicy> NewFifo(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewLru(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewLfu(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewArc(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewS3Fifo(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewSieve(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewGdsf(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewWTinyLfu(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewLrb(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewBelady(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewSmartCache(const PolicyOptions& o);

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_POLICIES_POLICIES_H_
