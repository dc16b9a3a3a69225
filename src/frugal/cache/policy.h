// The cache-policy interface. A policy sees a RequestTrace one request at
// a time: Access for reads and writes (write-allocate: a written file is
// admitted like a read miss unless the policy declines), Delete when a file
// is deleted (its space is freed at once) and Rename. Capacity is in bytes,
// with no per-object metadata overhead; an object larger than the cache is
// never admitted. Policies are created through the one registry table in
// policy_registry.h. One instance per simulation; not thread-safe.
#ifndef FRUGAL_CACHE_POLICY_H_
#define FRUGAL_CACHE_POLICY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "frugal/cache/request_trace.h"

namespace frugal::cache {

// Told of every change to a policy's resident set: Admitted when an object
// becomes resident, Dropped when it leaves (evicted, deleted, shrunk away).
// The mount keeps its cache files in step through it; the simulator has none.
class ResidencyObserver {
 public:
  virtual ~ResidencyObserver() = default;
  virtual void Admitted(uint32_t obj, int64_t size) = 0;
  virtual void Dropped(uint32_t obj) = 0;
};

struct PolicyOptions {
  int64_t capacity_bytes = 0;        // REQUIRES: > 0
  const RequestTrace* trace = nullptr;  // REQUIRES: non-null, outlives the policy
  uint64_t seed = 1;
  // Object ids the policy can see: 0 = trace->objects.size() (a loaded
  // trace). An online cache (the mount) whose trace grows sets its bound.
  int64_t object_slots = 0;
  ResidencyObserver* observer = nullptr;  // optional; outlives the policy
  // A trained model file to warm-start from (frugal cache train); empty =
  // none. Only policies that take one accept it (smartcache).
  std::string model_path;

  size_t slots() const {
    return static_cast<size_t>(object_slots > 0 ? object_slots
                                                : static_cast<int64_t>(trace->objects.size()));
  }
};

class CachePolicy {
 public:
  explicit CachePolicy(const PolicyOptions& o)
      : capacity_(o.capacity_bytes), trace_(*o.trace),
        observer_(o.observer), resident_(o.slots(), kNotResident) {}
  virtual ~CachePolicy() = default;
  CachePolicy(const CachePolicy&) = delete;
  CachePolicy& operator=(const CachePolicy&) = delete;

  // A read or write of r.obj (request number `index`); true when the object
  // was resident. On a miss the policy may admit the object.
  virtual bool Access(const Request& r, int64_t index) = 0;
  // The object was deleted: forget it (data and any history).
  virtual void Delete(uint32_t obj) = 0;
  // The object was renamed (same id, new path). Default: nothing.
  virtual void Rename(const Request& r, int64_t index) { (void)r, (void)index; }
  // One request of any kind, dispatched to Access, Rename or Delete; true
  // for a read or write that hit.
  bool Apply(const Request& r, int64_t index) {
    switch (r.kind) {
      case RequestKind::kRead:
      case RequestKind::kWrite:
        return Access(r, index);
      case RequestKind::kRename:
        Rename(r, index);
        return false;
      case RequestKind::kDelete:
        Delete(r.obj);
        return false;
    }
    return false;
  }
  // Policy-specific figures for reports (model accuracy...). Default: null.
  virtual nlohmann::json Report() const { return nullptr; }

  int64_t capacity_bytes() const { return capacity_; }
  int64_t used_bytes() const { return used_; }
  // Bytes written into the cache tier by admissions.
  int64_t admitted_bytes() const { return admitted_; }
  bool Resident(uint32_t obj) const { return resident_[obj] != kNotResident; }
  // The resident object's size; -1 when obj is not resident.
  int64_t ResidentSize(uint32_t obj) const {
    const uint32_t v = resident_[obj];
    if (v < kLargeSize) [[likely]] return v;
    return v == kNotResident ? -1 : large_.at(obj);
  }

 protected:
  bool Fits(int64_t size) const { return size <= capacity_; }
  void AddResident(uint32_t obj, int64_t size) {
    StoreSize(obj, size);
    used_ += size;
    admitted_ += size;
    if (observer_ != nullptr) observer_->Admitted(obj, size);
  }
  void DropResident(uint32_t obj) {
    used_ -= ResidentSize(obj);
    if (resident_[obj] == kLargeSize) large_.erase(obj);
    resident_[obj] = kNotResident;
    if (observer_ != nullptr) observer_->Dropped(obj);
  }
  // Updates a resident object's size (a write grew it).
  void ResizeResident(uint32_t obj, int64_t size) {
    used_ += size - ResidentSize(obj);
    StoreSize(obj, size);
  }

  const int64_t capacity_;
  const RequestTrace& trace_;
  int64_t used_ = 0;
  int64_t admitted_ = 0;

 private:
  ResidencyObserver* observer_;
  // Each object's resident size in 4 bytes: most are under 4 GiB; a larger
  // one is kLargeSize here and its size is in large_.
  static constexpr uint32_t kNotResident = UINT32_MAX;
  static constexpr uint32_t kLargeSize = UINT32_MAX - 1;
  void StoreSize(uint32_t obj, int64_t size) {
    if (size < kLargeSize) {
      if (resident_[obj] == kLargeSize) large_.erase(obj);
      resident_[obj] = static_cast<uint32_t>(size);
    } else {
      resident_[obj] = kLargeSize;
      large_[obj] = size;
    }
  }
  std::vector<uint32_t> resident_;
  std::unordered_map<uint32_t, int64_t> large_;
};

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_POLICY_H_
