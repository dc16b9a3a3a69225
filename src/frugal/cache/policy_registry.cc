#include "frugal/cache/policy_registry.h"

#include "frugal/cache/policies/policies.h"

namespace frugal::cache {
namespace {

constexpr RegistryRow<PolicyFactory> kPolicies[] = {
    {"fifo", "first in, first out", &NewFifo},
    {"lru", "least recently used", &NewLru},
    {"lfu", "least frequently used (LRU among ties)", &NewLfu},
    {"arc", "adaptive replacement cache (FAST'03)", &NewArc},
    {"s3fifo", "S3-FIFO: small, main and ghost FIFOs (SOSP'23)", &NewS3Fifo},
    {"sieve", "SIEVE: FIFO with visited bits and a moving hand (NSDI'24)", &NewSieve},
    {"gdsf", "greedy dual size frequency", &NewGdsf},
    {"wtinylfu", "window TinyLFU: frequency-sketch admission to a segmented LRU", &NewWTinyLfu},
    {"lrb", "learned relaxed Belady: GBDT on recency/frequency features (NSDI'20)", &NewLrb},
    {"glcache", "GL-Cache: groups by insertion order, GBDT-learned group utility, evict the lowest (FAST'23)",
     &NewGlCache},
    {"belady", "offline oracle: evict the farthest next read, bypass if not reused", &NewBelady},
    {"smartcache", "learned caching cost (1 / benefit density) and lifetimes: admission + due-time eviction",
     &NewSmartCache},
};

}  // namespace

std::span<const RegistryRow<PolicyFactory>> Policies() { return kPolicies; }

bool IsOfflinePolicy(const std::string& name) { return name == "belady"; }

bool TakesModel(const std::string& name) { return name == "smartcache"; }

Result<std::unique_ptr<CachePolicy>> MakePolicy(const std::string& name,
                                                const PolicyOptions& options) {
  const auto* row = FindRow(Policies(), name);
  if (row == nullptr) {
    return InvalidArgument("unknown policy '" + name + "' (expected " + RowNames(Policies()) + ")");
  }
  if (options.capacity_bytes <= 0) {
    return InvalidArgument("cache size must be > 0 bytes, got " +
                           std::to_string(options.capacity_bytes));
  }
  if (options.trace == nullptr) return Internal("MakePolicy without a trace");
  if (!options.model_path.empty()) {
    if (!TakesModel(name)) {
      return InvalidArgument("policy '" + name + "' takes no model file (" + options.model_path +
                             "); only smartcache does");
    }
    return NewSmartCacheWithModel(options);
  }
  return row->factory(options);
}

}  // namespace frugal::cache
