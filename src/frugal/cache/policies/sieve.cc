// SIEVE (Zhang et al., NSDI'24): a FIFO queue with one visited bit per
// object and a hand that walks from the tail toward the head, clearing
// visited bits and evicting the first unvisited object; new objects go to
// the head and hits only set the bit.
#include <vector>

#include "frugal/cache/policies/evicting_policy.h"
#include "frugal/cache/policies/policies.h"

namespace frugal::cache {
namespace {

class Sieve : public QueuePolicy {
 public:
  explicit Sieve(const PolicyOptions& o) : QueuePolicy(o), visited_(o.slots(), 0) {}

 protected:
  void OnHit(const Request& r, int64_t) override { visited_[r.obj] = 1; }
  void OnAdmit(const Request& r, int64_t index) override {
    QueuePolicy::OnAdmit(r, index);
    visited_[r.obj] = 0;
  }
  void OnDelete(uint32_t obj) override {
    if (hand_ == obj) hand_ = queue_.prev(obj);
  }
  uint32_t Victim() override {
    uint32_t x = hand_ != kNil ? hand_ : queue_.tail();
    while (visited_[x]) {
      visited_[x] = 0;
      x = queue_.prev(x);
      if (x == kNil) x = queue_.tail();
    }
    hand_ = queue_.prev(x);
    return x;
  }

 private:
  std::vector<uint8_t> visited_;
  uint32_t hand_ = kNil;
};

}  // namespace

std::unique_ptr<CachePolicy> NewSieve(const PolicyOptions& o) { return std::make_unique<Sieve>(o); }

}  // namespace frugal::cache
