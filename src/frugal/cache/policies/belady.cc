// Belady's MIN, offline, made size-aware for byte miss ratio. Keeping an
// object costs its size times the time it is kept and saves the bytes of
// the reads it serves, so at each access the policy looks ahead over the
// object's next reads (up to kLookahead) and finds the cheapest prefix:
//   cost per saved byte = min over k of size x (t_k - now) / (bytes of
//   reads 1..k),
// measured in request indices. The object's key is now + that cost: for a
// whole-file read it is the time of the next read (classic farthest next
// read), for a file read in slices (a shuffle file read 1/W by each of W
// workers) it is later, since one slice saves only 1/W of what it costs.
// Eviction removes the largest key (objects never read again first); an
// object is not admitted when it is never read again or when the space it
// needs would come from objects with smaller keys (it would displace bytes
// that pay off sooner). Keys are fixed between an object's accesses. An
// exact optimum for variable sizes is NP-hard; this is the standard
// space-time heuristic and a reference, not a bound.
#include <algorithm>
#include <set>
#include <utility>

#include "frugal/cache/policies/policies.h"

namespace frugal::cache {
namespace {

constexpr int kLookahead = 64;  // future reads examined per access

class Belady : public CachePolicy {
 public:
  explicit Belady(const PolicyOptions& o)
      : CachePolicy(o), key_(o.slots(), kNever) {}

  bool Access(const Request& r, int64_t index) override {
    const uint32_t x = r.obj;
    const int64_t key = Key(r, index);
    if (Resident(x)) {
      order_.erase({key_[x], x});
      key_[x] = key;
      order_.insert({key_[x], x});
      if (ResidentSize(x) != r.obj_size) {
        ResizeResident(x, r.obj_size);
        while (used_ > capacity_) EvictFarthest();
      }
      return true;
    }
    if (key == kNever || !Fits(r.obj_size)) return false;
    // Admit only if the bytes to free all belong to objects that pay off later.
    int64_t freeable = capacity_ - used_;
    for (auto it = order_.rbegin(); freeable < r.obj_size && it != order_.rend(); ++it) {
      if (it->first <= key) return false;
      freeable += ResidentSize(it->second);
    }
    while (used_ + r.obj_size > capacity_) EvictFarthest();
    key_[x] = key;
    order_.insert({key_[x], x});
    AddResident(x, r.obj_size);
    return false;
  }

  void Delete(uint32_t x) override {
    if (!Resident(x)) return;
    order_.erase({key_[x], x});
    DropResident(x);
  }

 private:
  // now + the least cost (object bytes x request indices kept) per byte
  // saved over prefixes of the object's next reads; kNever when it is
  // never read again.
  int64_t Key(const Request& r, int64_t now) const {
    if (r.next_read == kNever) return kNever;
    const double size = static_cast<double>(std::max<int64_t>(r.obj_size, 1));
    double best = -1;
    int64_t saved = 0;
    int64_t j = r.next_read;
    for (int k = 0; k < kLookahead && j != kNever; ++k) {
      const Request& n = trace_.requests[static_cast<size_t>(j)];
      saved += std::max<int64_t>(n.bytes, 1);
      const double cost = size * static_cast<double>(j - now) / static_cast<double>(saved);
      if (best < 0 || cost < best) best = cost;
      j = n.next_read;
    }
    return now + static_cast<int64_t>(std::min(best, 1e17));
  }

  void EvictFarthest() {
    auto it = std::prev(order_.end());
    const uint32_t v = it->second;
    order_.erase(it);
    DropResident(v);
  }
  std::vector<int64_t> key_;
  std::set<std::pair<int64_t, uint32_t>> order_;
};

}  // namespace

std::unique_ptr<CachePolicy> NewBelady(const PolicyOptions& o) { return std::make_unique<Belady>(o); }

}  // namespace frugal::cache
