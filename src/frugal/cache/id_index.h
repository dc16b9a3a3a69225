// IdIndex: object id (uint64) -> dense index (uint32), open addressing with
// linear probing over one flat array of 16-byte slots (id, index, and a
// 32-bit payload the caller may keep per id, e.g. the largest size). Sized
// either with room to grow (a power of two, grown x2 at 3/4 load) or from
// an estimate of the distinct ids (ForDistinct: filled to about 4/5, grown
// x2 only past 7/8, when the estimate was low). No allocation per object;
// the array is mapped with transparent huge pages where the kernel allows
// (madvise mode), so a random lookup costs one cache miss and seldom a TLB
// miss. Bulk loaders hash a block of ids first and Prefetch each slot a few
// records ahead, so the misses overlap. Used while loading a trace. Not
// thread-safe.
#ifndef FRUGAL_CACHE_ID_INDEX_H_
#define FRUGAL_CACHE_ID_INDEX_H_

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

namespace frugal::cache {

// Asks for transparent huge pages on the 2 MiB-aligned interior of
// [p, p + bytes) (large, randomly accessed tables). A hint only.
inline void AdviseHugePages(void* p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p, (void)bytes;
#endif
}

class IdIndex {
 public:
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;

  // Sized so that `expected` ids fit without growing.
  explicit IdIndex(size_t expected = 1024) : max_load_eighths_(6) { Allocate(SlotsFor(expected)); }
  // Sized for `distinct` ids (an estimate, such as DistinctSketch's) at
  // about 4/5 load.
  static IdIndex ForDistinct(double distinct) {
    const double slots = std::max(16.0, std::ceil(distinct / 0.8));
    return IdIndex(static_cast<size_t>(std::min(slots, 0x1p40)), 7);
  }
  ~IdIndex() { Free(); }
  IdIndex(const IdIndex&) = delete;
  IdIndex& operator=(const IdIndex&) = delete;

  static uint64_t Hash(uint64_t x) {  // splitmix64's finaliser
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }

  // A hint that `hash`'s slot is wanted soon.
  void Prefetch(uint64_t hash) const { __builtin_prefetch(&slots_[Home(hash)]); }

  // The index of `id`; when absent, inserts it with `next` (payload 0) and
  // sets *inserted. *payload (when non-null) points at id's payload, valid
  // until the next call. REQUIRES: next != kEmpty; hash == Hash(id).
  uint32_t FindOrInsert(uint64_t id, uint64_t hash, uint32_t next, bool* inserted,
                        uint32_t** payload = nullptr) {
    if ((size_ + 1) * 8 > n_ * max_load_eighths_) Grow();
    size_t i = Home(hash);
    while (true) {
      Slot& s = slots_[i];
      if (s.val == 0) break;
      if (s.key == id) {
        *inserted = false;
        if (payload != nullptr) *payload = &s.payload;
        return s.val - 1;
      }
      if (++i == n_) i = 0;
    }
    *inserted = true;
    Slot& s = slots_[i];
    s.key = id;
    s.val = next + 1;
    s.payload = 0;
    ++size_;
    if (payload != nullptr) *payload = &s.payload;
    return next;
  }
  uint32_t FindOrInsert(uint64_t id, uint32_t next, bool* inserted) {
    return FindOrInsert(id, Hash(id), next, inserted);
  }

  // Calls fn(index, payload) for every id, in no particular order.
  template <class Fn>
  void ForEach(Fn fn) const {
    for (size_t i = 0; i < n_; ++i) {
      if (slots_[i].val != 0) fn(slots_[i].val - 1, slots_[i].payload);
    }
  }

  size_t size() const { return size_; }
  size_t slots() const { return n_; }
  size_t memory_bytes() const { return n_ * sizeof(Slot); }

 private:
  struct Slot {
    uint64_t key;
    uint32_t val;  // index + 1; 0 = empty (fresh mapped memory is zero)
    uint32_t payload;
  };

  IdIndex(size_t slots, int max_load_eighths) : max_load_eighths_(max_load_eighths) { Allocate(slots); }

  // The home slot of `hash`: its top bits scaled to the table (Lemire's
  // multiply-shift), so that any slot count works.
  size_t Home(uint64_t hash) const {
    return static_cast<size_t>((static_cast<unsigned __int128>(hash) * n_) >> 64);
  }
  static size_t SlotsFor(size_t n) {
    size_t s = 16;
    while (s * 3 < n * 4) s *= 2;
    return s;
  }
  void Allocate(size_t slots) {
    const size_t bytes = slots * sizeof(Slot);
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    AdviseHugePages(p, bytes);
    slots_ = static_cast<Slot*>(p);
    n_ = slots;
  }
  void Free() {
    if (slots_ != nullptr) ::munmap(slots_, n_ * sizeof(Slot));
    slots_ = nullptr;
  }
  void Grow() {
    Slot* old = slots_;
    const size_t old_slots = n_;
    Allocate(old_slots * 2);
    for (size_t j = 0; j < old_slots; ++j) {
      if (old[j].val == 0) continue;
      size_t i = Home(Hash(old[j].key));
      while (slots_[i].val != 0) {
        if (++i == n_) i = 0;
      }
      slots_[i] = old[j];
    }
    ::munmap(old, old_slots * sizeof(Slot));
  }

  Slot* slots_ = nullptr;
  size_t n_ = 0;  // slots
  size_t size_ = 0;
  int max_load_eighths_;  // grown x2 past this load, in eighths
};

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_ID_INDEX_H_
