// A CachePolicy with the step every policy takes on a hit: a write may
// have changed the object's size, and a grown object may push the cache
// over capacity. Not thread-safe.
#ifndef FRUGAL_CACHE_POLICIES_RESIZING_POLICY_H_
#define FRUGAL_CACHE_POLICIES_RESIZING_POLICY_H_

#include "frugal/cache/policy.h"

namespace frugal::cache {

class ResizingPolicy : public CachePolicy {
 public:
  using CachePolicy::CachePolicy;

 protected:
  // REQUIRES: r.obj is resident. Takes r.obj_size as its size and, when
  // it changed, calls evict() until the cache is within capacity.
  template <typename EvictFn>
  void UpdateSize(const Request& r, EvictFn evict) {
    if (ResidentSize(r.obj) == r.obj_size) return;
    ResizeResident(r.obj, r.obj_size);
    while (used_ > capacity_) evict();
  }
};

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_POLICIES_RESIZING_POLICY_H_
