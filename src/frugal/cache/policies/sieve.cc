// SIEVE (Zhang et al., NSDI'24): a FIFO queue with one visited bit per
// object and a hand that walks from the tail toward the head, clearing
// visited bits and evicting the first unvisited object; new objects go to
// the head and hits only set the bit.
#include "frugal/cache/policies/dlist.h"
#include "frugal/cache/policies/policies.h"

namespace frugal::cache {
namespace {

class Sieve : public CachePolicy {
 public:
  explicit Sieve(const PolicyOptions& o)
      : CachePolicy(o), arena_(o.trace->objects.size()), queue_(&arena_),
        visited_(o.trace->objects.size(), 0) {}

  bool Access(const Request& r, int64_t) override {
    if (Resident(r.obj)) {
      visited_[r.obj] = 1;
      if (ResidentSize(r.obj) != r.obj_size) {
        ResizeResident(r.obj, r.obj_size);
        while (used_ > capacity_) Evict();
      }
      return true;
    }
    if (!Fits(r.obj_size)) return false;
    while (used_ + r.obj_size > capacity_) Evict();
    queue_.PushHead(r.obj);
    visited_[r.obj] = 0;
    AddResident(r.obj, r.obj_size);
    return false;
  }

  void Delete(uint32_t obj) override {
    if (!Resident(obj)) return;
    if (hand_ == obj) hand_ = queue_.prev(obj);
    queue_.Remove(obj);
    DropResident(obj);
  }

 private:
  void Evict() {
    uint32_t x = hand_ != kNil ? hand_ : queue_.tail();
    while (visited_[x]) {
      visited_[x] = 0;
      x = queue_.prev(x);
      if (x == kNil) x = queue_.tail();
    }
    hand_ = queue_.prev(x);
    queue_.Remove(x);
    DropResident(x);
  }

  ListArena arena_;
  DList queue_;
  std::vector<uint8_t> visited_;
  uint32_t hand_ = kNil;
};

}  // namespace

std::unique_ptr<CachePolicy> NewSieve(const PolicyOptions& o) { return std::make_unique<Sieve>(o); }

}  // namespace frugal::cache
