// W-TinyLFU (Einziger et al., 2017, as in Caffeine): a window LRU (1% of
// the bytes) in front of a segmented LRU (probation, and protected at 80%
// of the main bytes). An object leaving the window enters the main cache
// only if a count-min sketch says it is more frequent than the main cache's
// victim. The sketch (4 rows of 4-bit-like counters) halves every 10 x
// width increments so that frequencies age.
#include <algorithm>
#include <bit>

#include "frugal/cache/policies/dlist.h"
#include "frugal/cache/policies/policies.h"

namespace frugal::cache {
namespace {

class CountMin {
 public:
  explicit CountMin(size_t objects) {
    width_ = std::bit_ceil(std::max<size_t>(objects, 1024));
    table_.assign(4 * width_, 0);
  }
  void Add(uint32_t x) {
    for (int row = 0; row < 4; ++row) {
      uint8_t& c = table_[row * width_ + Hash(x, row)];
      if (c < 15) ++c;
    }
    if (++additions_ >= 10 * static_cast<int64_t>(width_)) {
      for (uint8_t& c : table_) c >>= 1;
      additions_ /= 2;
    }
  }
  int Estimate(uint32_t x) const {
    int m = 255;
    for (int row = 0; row < 4; ++row) m = std::min<int>(m, table_[row * width_ + Hash(x, row)]);
    return m;
  }

 private:
  size_t Hash(uint32_t x, int row) const {
    uint64_t h = (static_cast<uint64_t>(x) + 1) * 0x9E3779B97F4A7C15ull;
    h ^= h >> (29 + row);
    h *= 0xBF58476D1CE4E5B9ull + 2 * static_cast<uint64_t>(row);
    h ^= h >> 32;
    return h & (width_ - 1);
  }
  size_t width_;
  std::vector<uint8_t> table_;
  int64_t additions_ = 0;
};

enum class TinyLfuSegment : uint8_t { kNone, kWindow, kProbation, kProtected };

class WTinyLfu : public CachePolicy {
 public:
  explicit WTinyLfu(const PolicyOptions& o)
      : CachePolicy(o), arena_(o.slots()),
        where_(o.slots(), TinyLfuSegment::kNone), sketch_(o.slots()),
        window_(&arena_), probation_(&arena_), protected_(&arena_) {
    window_cap_ = std::max<int64_t>(capacity_ / 100, 1);
    main_cap_ = capacity_ - window_cap_;
    protected_cap_ = main_cap_ * 8 / 10;
  }

  bool Access(const Request& r, int64_t) override {
    const uint32_t x = r.obj;
    sketch_.Add(x);
    switch (where_[x]) {
      case TinyLfuSegment::kWindow:
        window_.MoveToHead(x);
        Resize(x, r.obj_size);
        return true;
      case TinyLfuSegment::kProbation:
        Move(x, probation_, protected_, TinyLfuSegment::kProtected);
        while (protected_.bytes > protected_cap_) {
          Move(protected_.tail(), protected_, probation_, TinyLfuSegment::kProbation);
        }
        Resize(x, r.obj_size);
        return true;
      case TinyLfuSegment::kProtected:
        protected_.MoveToHead(x);
        Resize(x, r.obj_size);
        return true;
      default:
        break;
    }
    if (!Fits(r.obj_size)) return false;
    AddResident(x, r.obj_size);
    window_.PushHead(x);
    window_.bytes += r.obj_size;
    where_[x] = TinyLfuSegment::kWindow;
    while (window_.bytes > window_cap_) {
      const uint32_t c = window_.tail();
      window_.Remove(c);
      window_.bytes -= ResidentSize(c);
      where_[c] = TinyLfuSegment::kNone;
      Admit(c);
    }
    return false;
  }

  void Delete(uint32_t x) override {
    if (!Resident(x)) return;
    DList& l = ListOf(x);
    l.Remove(x);
    l.bytes -= ResidentSize(x);
    where_[x] = TinyLfuSegment::kNone;
    DropResident(x);
  }

 private:
  DList& ListOf(uint32_t x) {
    return where_[x] == TinyLfuSegment::kWindow ? window_
           : where_[x] == TinyLfuSegment::kProbation ? probation_ : protected_;
  }
  void Move(uint32_t x, DList& from, DList& to, TinyLfuSegment w) {
    from.Remove(x);
    from.bytes -= ResidentSize(x);
    to.PushHead(x);
    to.bytes += ResidentSize(x);
    where_[x] = w;
  }
  void Resize(uint32_t x, int64_t size) {
    if (ResidentSize(x) == size) return;
    ListOf(x).bytes += size - ResidentSize(x);
    ResizeResident(x, size);
    while (used_ > capacity_) EvictMainVictim();
  }
  uint32_t MainVictim() const {
    return !probation_.empty() ? probation_.tail() : protected_.tail();
  }
  void EvictMainVictim() {
    uint32_t v = MainVictim();
    if (v == kNil) v = window_.tail();
    Delete(v);
  }
  // Candidate c left the window (still resident, on no list).
  void Admit(uint32_t c) {
    const int64_t s = ResidentSize(c);
    if (s > main_cap_) {
      DropResident(c);
      return;
    }
    const int fc = sketch_.Estimate(c);
    int64_t main_bytes = probation_.bytes + protected_.bytes;
    // Probe victims in eviction order; reject if any is at least as frequent.
    uint32_t v = MainVictim();
    int64_t freed = 0;
    const DList* cur = !probation_.empty() ? &probation_ : &protected_;
    while (main_bytes - freed + s > main_cap_ && v != kNil) {
      if (sketch_.Estimate(v) >= fc) {
        DropResident(c);
        return;
      }
      freed += ResidentSize(v);
      v = cur->prev(v);
      if (v == kNil && cur == &probation_) {
        cur = &protected_;
        v = protected_.tail();
      }
    }
    while (probation_.bytes + protected_.bytes + s > main_cap_) Delete(MainVictim());
    probation_.PushHead(c);
    probation_.bytes += s;
    where_[c] = TinyLfuSegment::kProbation;
  }

  ListArena arena_;
  std::vector<TinyLfuSegment> where_;
  CountMin sketch_;
  DList window_, probation_, protected_;
  int64_t window_cap_ = 0, main_cap_ = 0, protected_cap_ = 0;
};

}  // namespace

std::unique_ptr<CachePolicy> NewWTinyLfu(const PolicyOptions& o) {
  return std::make_unique<WTinyLfu>(o);
}

}  // namespace frugal::cache
