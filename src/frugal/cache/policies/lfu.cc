// LFU: evicts the object with the fewest accesses since admission, the
// least recently used among ties.
#include <set>
#include <tuple>

#include "frugal/cache/policies/policies.h"

namespace frugal::cache {
namespace {

class Lfu : public CachePolicy {
 public:
  explicit Lfu(const PolicyOptions& o)
      : CachePolicy(o), freq_(o.trace->objects.size(), 0), last_(o.trace->objects.size(), 0) {}

  bool Access(const Request& r, int64_t index) override {
    const uint32_t x = r.obj;
    if (Resident(x)) {
      order_.erase({freq_[x], last_[x], x});
      ++freq_[x];
      last_[x] = index;
      order_.insert({freq_[x], last_[x], x});
      if (ResidentSize(x) != r.obj_size) {
        ResizeResident(x, r.obj_size);
        while (used_ > capacity_) Evict();
      }
      return true;
    }
    if (!Fits(r.obj_size)) return false;
    while (used_ + r.obj_size > capacity_) Evict();
    freq_[x] = 1;
    last_[x] = index;
    order_.insert({1, index, x});
    AddResident(x, r.obj_size);
    return false;
  }

  void Delete(uint32_t x) override {
    if (!Resident(x)) return;
    order_.erase({freq_[x], last_[x], x});
    DropResident(x);
  }

 private:
  void Evict() {
    auto it = order_.begin();
    const uint32_t v = std::get<2>(*it);
    order_.erase(it);
    DropResident(v);
  }
  std::vector<int64_t> freq_, last_;
  std::set<std::tuple<int64_t, int64_t, uint32_t>> order_;
};

}  // namespace

std::unique_ptr<CachePolicy> NewLfu(const PolicyOptions& o) { return std::make_unique<Lfu>(o); }

}  // namespace frugal::cache
