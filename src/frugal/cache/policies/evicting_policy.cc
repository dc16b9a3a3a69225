#include "frugal/cache/policies/evicting_policy.h"

namespace frugal::cache {

bool EvictingPolicy::Access(const Request& r, int64_t index) {
  if (Resident(r.obj)) {
    OnHit(r, index);
    UpdateSize(r, [this] { Evict(); });
    return true;
  }
  if (!Fits(r.obj_size)) return false;
  while (used_ + r.obj_size > capacity_) Evict();
  OnAdmit(r, index);
  AddResident(r.obj, r.obj_size);
  return false;
}

QueuePolicy::QueuePolicy(const PolicyOptions& o)
    : EvictingPolicy(o), arena_(o.slots()), queue_(&arena_) {}

void QueuePolicy::Delete(uint32_t obj) {
  if (!Resident(obj)) return;
  OnDelete(obj);
  queue_.Remove(obj);
  DropResident(obj);
}

void QueuePolicy::Evict() {
  const uint32_t victim = Victim();
  queue_.Remove(victim);
  DropResident(victim);
}

}  // namespace frugal::cache
