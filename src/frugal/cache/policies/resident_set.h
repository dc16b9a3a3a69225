// The set of resident objects as a dense vector, for policies that rank
// eviction candidates by a score computed on demand (lrb, smartcache):
// O(1) insert and erase, and a seeded sample of candidates. Not
// thread-safe.
#ifndef FRUGAL_CACHE_POLICIES_RESIDENT_SET_H_
#define FRUGAL_CACHE_POLICIES_RESIDENT_SET_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace frugal::cache {

class ResidentSet {
 public:
  ResidentSet(size_t objects, uint64_t seed) : pos_(objects, -1), rng_(seed) {}
  void Insert(uint32_t x) {
    pos_[x] = static_cast<int64_t>(items_.size());
    items_.push_back(x);
  }
  void Erase(uint32_t x) {
    const int64_t p = pos_[x];
    if (p < 0) return;
    items_[p] = items_.back();
    pos_[items_[p]] = p;
    items_.pop_back();
    pos_[x] = -1;
  }
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  // All residents when there are at most k, else k drawn with replacement.
  void Candidates(size_t k, std::vector<uint32_t>* out) {
    out->clear();
    if (items_.size() <= k) {
      out->assign(items_.begin(), items_.end());
      return;
    }
    for (size_t i = 0; i < k; ++i) out->push_back(items_[Next() % items_.size()]);
  }
  // The same draw with each resident kept once, in the order first drawn:
  // a small open-addressed set instead of sorting each sample.
  void DistinctCandidates(size_t k, std::vector<uint32_t>* out) {
    Candidates(k, out);
    if (out->size() < 2 || items_.size() <= k) return;
    size_t slots = 2;
    while (slots < 2 * out->size()) slots *= 2;
    seen_.assign(slots, kNone);
    size_t kept = 0;
    for (uint32_t x : *out) {
      size_t h = (x * 0x9E3779B1u) & (slots - 1);
      while (seen_[h] != kNone && seen_[h] != x) h = (h + 1) & (slots - 1);
      if (seen_[h] == x) continue;
      seen_[h] = x;
      (*out)[kept++] = x;
    }
    out->resize(kept);
  }

 private:
  uint64_t Next() {
    uint64_t z = (rng_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  std::vector<uint32_t> items_;
  std::vector<int64_t> pos_;
  std::vector<uint32_t> seen_;  // DistinctCandidates' scratch set
  uint64_t rng_;
};

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_POLICIES_RESIDENT_SET_H_
