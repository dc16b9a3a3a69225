// S3-FIFO (Yang et al., SOSP'23): a small FIFO (10% of the bytes), a main
// FIFO with a 2-bit clock, and a ghost FIFO of recently evicted ids (90% of
// the bytes). New objects enter the small queue (the main queue on a ghost
// hit); leaving the small queue, an object seen at least twice moves to
// main, the others go to the ghost. Parameters (0.1, 2) as in libCacheSim;
// this is the original S3-FIFO (libCacheSim's S3FIFOv0), which inserts into
// the small queue even before the cache first fills.
#include <algorithm>

#include "frugal/cache/policies/dlist.h"
#include "frugal/cache/policies/policies.h"

namespace frugal::cache {
namespace {

constexpr double kSmallRatio = 0.10;
constexpr double kGhostRatio = 0.90;
constexpr int kMoveToMainThreshold = 2;

enum class S3Queue : uint8_t { kNone, kSmall, kMain, kGhost };

class S3Fifo : public CachePolicy {
 public:
  explicit S3Fifo(const PolicyOptions& o)
      : CachePolicy(o), arena_(o.slots()),
        where_(o.slots(), S3Queue::kNone), freq_(o.slots(), 0),
        ghost_size_(o.slots(), 0), small_(&arena_), main_(&arena_),
        ghost_(&arena_) {
    small_cap_ = static_cast<int64_t>(static_cast<double>(capacity_) * kSmallRatio);
    main_cap_ = capacity_ - small_cap_;
    ghost_cap_ = static_cast<int64_t>(static_cast<double>(capacity_) * kGhostRatio);
  }

  bool Access(const Request& r, int64_t) override {
    const uint32_t x = r.obj;
    if (where_[x] == S3Queue::kSmall || where_[x] == S3Queue::kMain) {
      freq_[x] = std::min(freq_[x] + 1, 100);
      if (ResidentSize(x) != r.obj_size) {
        QueueOf(x).bytes += r.obj_size - ResidentSize(x);
        ResizeResident(x, r.obj_size);
        while (used_ > capacity_) Evict();
      }
      return true;
    }
    bool ghost_hit = false;
    if (where_[x] == S3Queue::kGhost) {
      ghost_.Remove(x);
      ghost_.bytes -= ghost_size_[x];
      where_[x] = S3Queue::kNone;
      ghost_hit = true;
    }
    if (r.obj_size > small_cap_ || !Fits(r.obj_size)) return false;
    while (used_ + r.obj_size > capacity_) Evict();
    if (ghost_hit) {
      Push(main_, x, r.obj_size, S3Queue::kMain);
    } else {
      if (r.obj_size >= small_cap_) return false;
      Push(small_, x, r.obj_size, S3Queue::kSmall);
    }
    AddResident(x, r.obj_size);
    freq_[x] = 0;
    return false;
  }

  void Delete(uint32_t x) override {
    switch (where_[x]) {
      case S3Queue::kSmall:
      case S3Queue::kMain: {
        DList& q = QueueOf(x);
        q.Remove(x);
        q.bytes -= ResidentSize(x);
        DropResident(x);
        break;
      }
      case S3Queue::kGhost:
        ghost_.Remove(x);
        ghost_.bytes -= ghost_size_[x];
        break;
      case S3Queue::kNone:
        break;
    }
    where_[x] = S3Queue::kNone;
  }

 private:
  DList& QueueOf(uint32_t x) { return where_[x] == S3Queue::kSmall ? small_ : main_; }

  void Push(DList& q, uint32_t x, int64_t size, S3Queue w) {
    q.PushHead(x);
    q.bytes += size;
    where_[x] = w;
  }

  void Evict() {
    if (main_.bytes > main_cap_ || small_.bytes == 0) {
      EvictMain();
    } else {
      EvictSmall();
    }
  }

  void EvictSmall() {
    while (small_.bytes > 0) {
      const uint32_t x = small_.tail();
      const int64_t s = ResidentSize(x);
      small_.Remove(x);
      small_.bytes -= s;
      if (freq_[x] >= kMoveToMainThreshold) {
        Push(main_, x, s, S3Queue::kMain);
        freq_[x] = 0;
      } else {
        DropResident(x);
        where_[x] = S3Queue::kNone;
        if (s <= ghost_cap_) {
          while (ghost_.bytes + s > ghost_cap_) {
            const uint32_t g = ghost_.tail();
            ghost_.Remove(g);
            ghost_.bytes -= ghost_size_[g];
            where_[g] = S3Queue::kNone;
          }
          Push(ghost_, x, s, S3Queue::kGhost);
          ghost_size_[x] = s;
        }
        return;
      }
    }
  }

  void EvictMain() {
    while (main_.bytes > 0) {
      const uint32_t x = main_.tail();
      if (freq_[x] >= 1) {
        main_.MoveToHead(x);
        freq_[x] = std::min(freq_[x], 3) - 1;
      } else {
        main_.Remove(x);
        main_.bytes -= ResidentSize(x);
        DropResident(x);
        where_[x] = S3Queue::kNone;
        return;
      }
    }
  }

  ListArena arena_;
  std::vector<S3Queue> where_;
  std::vector<int> freq_;
  std::vector<int64_t> ghost_size_;
  DList small_, main_, ghost_;
  int64_t small_cap_ = 0, main_cap_ = 0, ghost_cap_ = 0;
};

}  // namespace

std::unique_ptr<CachePolicy> NewS3Fifo(const PolicyOptions& o) { return std::make_unique<S3Fifo>(o); }

}  // namespace frugal::cache
