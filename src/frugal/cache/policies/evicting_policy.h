// Base classes for policies whose Access is the same admit-and-evict loop:
// a hit updates the policy's order (and the size, evicting while over
// capacity); a miss evicts until the object fits and admits it.
// QueuePolicy keeps residents on one list and evicts from its tail;
// OrderedPolicy keeps them in a set ordered by a key and evicts the
// smallest. Not thread-safe.
#ifndef FRUGAL_CACHE_POLICIES_EVICTING_POLICY_H_
#define FRUGAL_CACHE_POLICIES_EVICTING_POLICY_H_

#include <cstdint>
#include <set>
#include <tuple>

#include "frugal/cache/policies/dlist.h"
#include "frugal/cache/policies/resizing_policy.h"
#include "frugal/cache/policy.h"

namespace frugal::cache {

class EvictingPolicy : public ResizingPolicy {
 public:
  using ResizingPolicy::ResizingPolicy;

  bool Access(const Request& r, int64_t index) override;

 protected:
  // A hit on r.obj, before its size is updated.
  virtual void OnHit(const Request& r, int64_t index) = 0;
  // r.obj is admitted, after room was made and before it is accounted.
  virtual void OnAdmit(const Request& r, int64_t index) = 0;
  // Evicts one resident object.
  virtual void Evict() = 0;
};

// Residents on one list, new objects at the head; evicts Victim().
class QueuePolicy : public EvictingPolicy {
 public:
  explicit QueuePolicy(const PolicyOptions& o);

  void Delete(uint32_t obj) override;

 protected:
  void OnHit(const Request&, int64_t) override {}
  void OnAdmit(const Request& r, int64_t) override { queue_.PushHead(r.obj); }
  // Called before `obj`, still resident, is removed from the queue.
  virtual void OnDelete(uint32_t obj) { (void)obj; }
  // The object to evict; default: the tail.
  virtual uint32_t Victim() { return queue_.tail(); }
  void Evict() final;

  ListArena arena_;
  DList queue_;
};

// Residents in a set ordered by Key (a tuple whose last element is the
// object id); evicts the smallest. Subclasses update the fields KeyOf
// reads in Touch (a hit) and Init (an admission).
template <typename Key>
class OrderedPolicy : public EvictingPolicy {
 public:
  using EvictingPolicy::EvictingPolicy;

  void Delete(uint32_t x) override {
    if (!Resident(x)) return;
    order_.erase(KeyOf(x));
    DropResident(x);
  }

 protected:
  virtual Key KeyOf(uint32_t x) const = 0;
  virtual void Touch(const Request& r, int64_t index) = 0;
  virtual void Init(const Request& r, int64_t index) = 0;
  // The smallest key is about to be evicted.
  virtual void OnEvict(const Key& key) { (void)key; }

  void OnHit(const Request& r, int64_t index) final {
    order_.erase(KeyOf(r.obj));
    Touch(r, index);
    order_.insert(KeyOf(r.obj));
  }
  void OnAdmit(const Request& r, int64_t index) final {
    Init(r, index);
    order_.insert(KeyOf(r.obj));
  }
  void Evict() final {
    auto it = order_.begin();
    OnEvict(*it);
    const uint32_t v = std::get<std::tuple_size_v<Key> - 1>(*it);
    order_.erase(it);
    DropResident(v);
  }

 private:
  std::set<Key> order_;
};

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_POLICIES_EVICTING_POLICY_H_
