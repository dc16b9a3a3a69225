// Belady's MIN, offline, for byte miss ratio: evicts the resident object
// whose next read is farthest in the future (objects never read again or
// deleted first) and does not admit an object whose next read comes later
// than that of every object it would displace, nor one never read again.
// Per byte, keeping an object saves its size once per reuse and costs its
// size times the time to the reuse, so the farthest next read is also the
// lowest saving per byte-time: the size-aware rule for byte miss ratio.
#include <set>
#include <utility>

#include "frugal/cache/policies/policies.h"

namespace frugal::cache {
namespace {

class Belady : public CachePolicy {
 public:
  explicit Belady(const PolicyOptions& o)
      : CachePolicy(o), next_(o.trace->objects.size(), kNever) {}

  bool Access(const Request& r, int64_t) override {
    const uint32_t x = r.obj;
    if (Resident(x)) {
      order_.erase({next_[x], x});
      next_[x] = r.next_read;
      order_.insert({next_[x], x});
      if (ResidentSize(x) != r.obj_size) {
        ResizeResident(x, r.obj_size);
        while (used_ > capacity_) EvictFarthest();
      }
      return true;
    }
    if (r.next_read == kNever || !Fits(r.obj_size)) return false;
    // Admit only if the bytes to free all belong to objects needed later.
    int64_t freeable = capacity_ - used_;
    for (auto it = order_.rbegin(); freeable < r.obj_size && it != order_.rend(); ++it) {
      if (it->first <= r.next_read) return false;
      freeable += ResidentSize(it->second);
    }
    while (used_ + r.obj_size > capacity_) EvictFarthest();
    next_[x] = r.next_read;
    order_.insert({next_[x], x});
    AddResident(x, r.obj_size);
    return false;
  }

  void Delete(uint32_t x) override {
    if (!Resident(x)) return;
    order_.erase({next_[x], x});
    DropResident(x);
  }

 private:
  void EvictFarthest() {
    auto it = std::prev(order_.end());
    const uint32_t v = it->second;
    order_.erase(it);
    DropResident(v);
  }
  std::vector<int64_t> next_;
  std::set<std::pair<int64_t, uint32_t>> order_;
};

}  // namespace

std::unique_ptr<CachePolicy> NewBelady(const PolicyOptions& o) { return std::make_unique<Belady>(o); }

}  // namespace frugal::cache
