// LFU: evicts the object with the fewest accesses since admission, the
// least recently used among ties.
#include <tuple>
#include <vector>

#include "frugal/cache/policies/evicting_policy.h"
#include "frugal/cache/policies/policies.h"

namespace frugal::cache {
namespace {

using LfuKey = std::tuple<int64_t, int64_t, uint32_t>;  // frequency, last access, object

class Lfu : public OrderedPolicy<LfuKey> {
 public:
  explicit Lfu(const PolicyOptions& o)
      : OrderedPolicy(o), freq_(o.slots(), 0), last_(o.slots(), 0) {}

 protected:
  LfuKey KeyOf(uint32_t x) const override { return {freq_[x], last_[x], x}; }
  void Touch(const Request& r, int64_t index) override {
    ++freq_[r.obj];
    last_[r.obj] = index;
  }
  void Init(const Request& r, int64_t index) override {
    freq_[r.obj] = 1;
    last_[r.obj] = index;
  }

 private:
  std::vector<int64_t> freq_, last_;
};

}  // namespace

std::unique_ptr<CachePolicy> NewLfu(const PolicyOptions& o) { return std::make_unique<Lfu>(o); }

}  // namespace frugal::cache
