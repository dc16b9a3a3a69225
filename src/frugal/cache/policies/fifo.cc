// FIFO: evicts the object admitted first; hits change nothing.
#include "frugal/cache/policies/dlist.h"
#include "frugal/cache/policies/policies.h"

namespace frugal::cache {
namespace {

class Fifo : public CachePolicy {
 public:
  explicit Fifo(const PolicyOptions& o)
      : CachePolicy(o), arena_(o.trace->objects.size()), queue_(&arena_) {}

  bool Access(const Request& r, int64_t) override {
    if (Resident(r.obj)) {
      if (ResidentSize(r.obj) != r.obj_size) {
        ResizeResident(r.obj, r.obj_size);
        while (used_ > capacity_) Evict();
      }
      return true;
    }
    if (!Fits(r.obj_size)) return false;
    while (used_ + r.obj_size > capacity_) Evict();
    queue_.PushHead(r.obj);
    AddResident(r.obj, r.obj_size);
    return false;
  }

  void Delete(uint32_t obj) override {
    if (!Resident(obj)) return;
    queue_.Remove(obj);
    DropResident(obj);
  }

 private:
  void Evict() {
    const uint32_t victim = queue_.tail();
    queue_.Remove(victim);
    DropResident(victim);
  }
  ListArena arena_;
  DList queue_;
};

}  // namespace

std::unique_ptr<CachePolicy> NewFifo(const PolicyOptions& o) { return std::make_unique<Fifo>(o); }

}  // namespace frugal::cache
