// LRU: evicts the least recently used object; a hit moves the object to the head.
#include "frugal/cache/policies/evicting_policy.h"
#include "frugal/cache/policies/policies.h"

namespace frugal::cache {
namespace {

class Lru : public QueuePolicy {
 public:
  using QueuePolicy::QueuePolicy;

 protected:
  void OnHit(const Request& r, int64_t) override { queue_.MoveToHead(r.obj); }
};

}  // namespace

std::unique_ptr<CachePolicy> NewLru(const PolicyOptions& o) { return std::make_unique<Lru>(o); }

}  // namespace frugal::cache
