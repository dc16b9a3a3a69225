// Factories of the built-in policies, one per file under policies/; the
// registry table in policy_registry.cc lists them.
#ifndef FRUGAL_CACHE_POLICIES_POLICIES_H_
#define FRUGAL_CACHE_POLICIES_POLICIES_H_

#include <memory>

#include "frugal/base/status.h"
#include "frugal/cache/policy.h"

namespace frugal::cache {

std::unique_ptr<CachePolicy> NewFifo(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewLru(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewLfu(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewArc(const PolicyOptions& o);
// How ARC's plain miss trims B2 once the four lists reach 2c bytes:
// kPaper deletes one ghost (FAST'03 Fig. 4, libCacheSim; the registered
// "arc"); kUntilBelow deletes until below 2c (frugal before; kept so the
// regression test can show the two differ).
enum class ArcGhostTrim : uint8_t { kPaper, kUntilBelow };
std::unique_ptr<CachePolicy> NewArc(const PolicyOptions& o, ArcGhostTrim trim);
std::unique_ptr<CachePolicy> NewS3Fifo(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewSieve(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewGdsf(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewWTinyLfu(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewLrb(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewGlCache(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewBelady(const PolicyOptions& o);
std::unique_ptr<CachePolicy> NewSmartCache(const PolicyOptions& o);
// smartcache warm-started from o.model_path (none when empty); the error
// names the file when it is missing or not a valid model.
Result<std::unique_ptr<CachePolicy>> NewSmartCacheWithModel(const PolicyOptions& o);

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_POLICIES_POLICIES_H_
