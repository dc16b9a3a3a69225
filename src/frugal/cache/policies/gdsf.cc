// GDSF (Cherkasova, 1998): priority = L + frequency / size (size in KiB),
// where L, the inflation value, is the priority of the last evicted object.
// Favours small, popular objects; ties go to the older entry.
#include <set>
#include <tuple>

#include "frugal/cache/policies/policies.h"

namespace frugal::cache {
namespace {

class Gdsf : public CachePolicy {
 public:
  explicit Gdsf(const PolicyOptions& o)
      : CachePolicy(o), freq_(o.trace->objects.size(), 0), prio_(o.trace->objects.size(), 0),
        stamp_(o.trace->objects.size(), 0) {}

  bool Access(const Request& r, int64_t index) override {
    const uint32_t x = r.obj;
    if (Resident(x)) {
      order_.erase({prio_[x], stamp_[x], x});
      ++freq_[x];
      Set(x, r.obj_size, index);
      if (ResidentSize(x) != r.obj_size) {
        ResizeResident(x, r.obj_size);
        while (used_ > capacity_) Evict();
      }
      return true;
    }
    if (!Fits(r.obj_size)) return false;
    while (used_ + r.obj_size > capacity_) Evict();
    freq_[x] = 1;
    Set(x, r.obj_size, index);
    AddResident(x, r.obj_size);
    return false;
  }

  void Delete(uint32_t x) override {
    if (!Resident(x)) return;
    order_.erase({prio_[x], stamp_[x], x});
    DropResident(x);
  }

 private:
  void Set(uint32_t x, int64_t size, int64_t index) {
    const double kib = static_cast<double>(size > 0 ? size : 1) / 1024.0;
    prio_[x] = inflation_ + static_cast<double>(freq_[x]) / kib;
    stamp_[x] = index;
    order_.insert({prio_[x], stamp_[x], x});
  }
  void Evict() {
    auto it = order_.begin();
    inflation_ = std::get<0>(*it);
    const uint32_t v = std::get<2>(*it);
    order_.erase(it);
    DropResident(v);
  }
  std::vector<int64_t> freq_;
  std::vector<double> prio_;
  std::vector<int64_t> stamp_;
  double inflation_ = 0;
  std::set<std::tuple<double, int64_t, uint32_t>> order_;
};

}  // namespace

std::unique_ptr<CachePolicy> NewGdsf(const PolicyOptions& o) { return std::make_unique<Gdsf>(o); }

}  // namespace frugal::cache
