// GDSF (Cherkasova, 1998): priority = L + frequency / size (size in KiB),
// where L, the inflation value, is the priority of the last evicted object.
// Favours small, popular objects; ties go to the older entry.
#include <tuple>
#include <vector>

#include "frugal/cache/policies/evicting_policy.h"
#include "frugal/cache/policies/policies.h"

namespace frugal::cache {
namespace {

using GdsfKey = std::tuple<double, int64_t, uint32_t>;  // priority, stamp, object

class Gdsf : public OrderedPolicy<GdsfKey> {
 public:
  explicit Gdsf(const PolicyOptions& o)
      : OrderedPolicy(o), freq_(o.slots(), 0), prio_(o.slots(), 0),
        stamp_(o.slots(), 0) {}

 protected:
  GdsfKey KeyOf(uint32_t x) const override { return {prio_[x], stamp_[x], x}; }
  void Touch(const Request& r, int64_t index) override {
    ++freq_[r.obj];
    Set(r.obj, r.obj_size, index);
  }
  void Init(const Request& r, int64_t index) override {
    freq_[r.obj] = 1;
    Set(r.obj, r.obj_size, index);
  }
  void OnEvict(const GdsfKey& key) override { inflation_ = std::get<0>(key); }

 private:
  void Set(uint32_t x, int64_t size, int64_t index) {
    const double kib = static_cast<double>(size > 0 ? size : 1) / 1024.0;
    prio_[x] = inflation_ + static_cast<double>(freq_[x]) / kib;
    stamp_[x] = index;
  }
  std::vector<int64_t> freq_;
  std::vector<double> prio_;
  std::vector<int64_t> stamp_;
  double inflation_ = 0;
};

}  // namespace

std::unique_ptr<CachePolicy> NewGdsf(const PolicyOptions& o) { return std::make_unique<Gdsf>(o); }

}  // namespace frugal::cache
