// IdIndex: object id (uint64) -> dense index (uint32), open addressing with
// linear probing over two flat arrays (no allocation per object; 12 bytes a
// slot, grown x2 at 3/4 load). Used while loading a trace. Bulk loaders
// hash a block of ids first and Prefetch each slot a few records ahead,
// so the table's cache misses overlap. Not thread-safe.
#ifndef FRUGAL_CACHE_ID_INDEX_H_
#define FRUGAL_CACHE_ID_INDEX_H_

#include <cstdint>
#include <vector>

namespace frugal::cache {

class IdIndex {
 public:
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;

  // Sized so that `expected` ids fit without growing.
  explicit IdIndex(size_t expected = 1024) { Rehash(SlotsFor(expected)); }

  static uint64_t Hash(uint64_t x) {  // splitmix64's finaliser
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }

  // A hint that `hash`'s slot is wanted soon.
  void Prefetch(uint64_t hash) const {
    const size_t i = hash & mask_;
    __builtin_prefetch(&vals_[i]);
    __builtin_prefetch(&keys_[i]);
  }

  // The index of `id`; when absent, inserts it with `next` and sets *inserted.
  // REQUIRES: next != kEmpty; hash == Hash(id).
  uint32_t FindOrInsert(uint64_t id, uint64_t hash, uint32_t next, bool* inserted) {
    size_t i = hash & mask_;
    while (true) {
      const uint32_t v = vals_[i];
      if (v == kEmpty) break;
      if (keys_[i] == id) {
        *inserted = false;
        return v;
      }
      i = (i + 1) & mask_;
    }
    *inserted = true;
    keys_[i] = id;
    vals_[i] = next;
    if (++size_ * 4 > vals_.size() * 3) Rehash(vals_.size() * 2);
    return next;
  }
  uint32_t FindOrInsert(uint64_t id, uint32_t next, bool* inserted) {
    return FindOrInsert(id, Hash(id), next, inserted);
  }

  size_t size() const { return size_; }
  size_t memory_bytes() const { return vals_.size() * (sizeof(uint32_t) + sizeof(uint64_t)); }

 private:
  static size_t SlotsFor(size_t n) {
    size_t s = 16;
    while (s * 3 < n * 4) s *= 2;
    return s;
  }
  void Rehash(size_t slots) {
    std::vector<uint64_t> keys(slots);
    std::vector<uint32_t> vals(slots, kEmpty);
    const size_t mask = slots - 1;
    for (size_t j = 0; j < vals_.size(); ++j) {
      if (vals_[j] == kEmpty) continue;
      size_t i = Hash(keys_[j]) & mask;
      while (vals[i] != kEmpty) i = (i + 1) & mask;
      keys[i] = keys_[j];
      vals[i] = vals_[j];
    }
    keys_.swap(keys);
    vals_.swap(vals);
    mask_ = mask;
  }

  std::vector<uint64_t> keys_;
  std::vector<uint32_t> vals_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_ID_INDEX_H_
