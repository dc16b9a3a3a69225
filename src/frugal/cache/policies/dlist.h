// Intrusive doubly-linked lists over dense object ids, shared by the
// list-based policies. Several lists may share one ListArena as long as an
// id is on at most one of them. Not thread-safe.
#ifndef FRUGAL_CACHE_POLICIES_DLIST_H_
#define FRUGAL_CACHE_POLICIES_DLIST_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace frugal::cache {

inline constexpr uint32_t kNil = UINT32_MAX;

struct ListArena {
  explicit ListArena(size_t n) : prev(n, kNil), next(n, kNil) {}
  std::vector<uint32_t> prev;
  std::vector<uint32_t> next;
};

// head = most recent; tail = oldest.
class DList {
 public:
  explicit DList(ListArena* arena) : a_(arena) {}
  bool empty() const { return head_ == kNil; }
  uint32_t head() const { return head_; }
  uint32_t tail() const { return tail_; }
  uint32_t prev(uint32_t x) const { return a_->prev[x]; }  // toward head
  uint32_t next(uint32_t x) const { return a_->next[x]; }  // toward tail
  int64_t bytes = 0;  // maintained by the owner
  int64_t count = 0;

  void PushHead(uint32_t x) {
    a_->prev[x] = kNil;
    a_->next[x] = head_;
    if (head_ != kNil) a_->prev[head_] = x;
    head_ = x;
    if (tail_ == kNil) tail_ = x;
    ++count;
  }
  void Remove(uint32_t x) {
    const uint32_t p = a_->prev[x], n = a_->next[x];
    if (p != kNil) a_->next[p] = n; else head_ = n;
    if (n != kNil) a_->prev[n] = p; else tail_ = p;
    a_->prev[x] = a_->next[x] = kNil;
    --count;
  }
  void MoveToHead(uint32_t x) {
    if (head_ == x) return;
    Remove(x);
    PushHead(x);
  }

 private:
  ListArena* a_;
  uint32_t head_ = kNil;
  uint32_t tail_ = kNil;
};

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_POLICIES_DLIST_H_
