// ARC (Megiddo & Modha, FAST'03) in bytes: T1 (seen once) and T2 (seen
// again) hold data, B1 and B2 remember what was evicted from each; the
// target size p of T1 moves on ghost hits. The byte accounting follows
// libCacheSim's ARC (ARCv0) so results on oracleGeneral traces match its
// reference: p moves by max(|B2|/|B1|, 1) bytes (a ratio of ghost sizes),
// a ghost hit makes room with REPLACE only, and on a plain miss case A
// tests |T1| + |B1| + incoming > c and trims B1 only when it is not empty.
// Case IV's other branch follows Fig. 4 of the paper: when |T1| + |T2| +
// |B1| + |B2| reaches 2c, ONE LRU ghost of B2 is deleted (an `if`), as in
// libCacheSim's ARC.c. In bytes the sum may then stay above 2c for a while;
// deleting B2 ghosts until it is below 2c (ArcGhostTrim::kUntilBelow, what
// frugal did before) diverges from the paper on long looping traces.
#include <algorithm>

#include "frugal/cache/policies/dlist.h"
#include "frugal/cache/policies/policies.h"

namespace frugal::cache {
namespace {

enum class ArcList : uint8_t { kNone, kT1, kT2, kB1, kB2 };

class Arc : public CachePolicy {
 public:
  Arc(const PolicyOptions& o, ArcGhostTrim trim)
      : CachePolicy(o), trim_(trim), arena_(o.slots()), where_(o.slots(), ArcList::kNone),
        ghost_size_(o.slots(), 0),
        t1_(&arena_), t2_(&arena_), b1_(&arena_), b2_(&arena_) {}

  bool Access(const Request& r, int64_t) override {
    const uint32_t x = r.obj;
    in_b1_ = in_b2_ = false;
    switch (where_[x]) {
      case ArcList::kT1:
        t1_.Remove(x);
        t1_.bytes -= ResidentSize(x);
        t2_.PushHead(x);
        t2_.bytes += r.obj_size;
        where_[x] = ArcList::kT2;
        Resize(x, r.obj_size);
        return true;
      case ArcList::kT2:
        t2_.MoveToHead(x);
        t2_.bytes += r.obj_size - ResidentSize(x);
        Resize(x, r.obj_size);
        return true;
      case ArcList::kB1:
        in_b1_ = true;
        p_ = std::min(p_ + std::max(static_cast<double>(b2_.bytes) / static_cast<double>(b1_.bytes), 1.0),
                      static_cast<double>(capacity_));
        DropGhost(b1_, x);
        break;
      case ArcList::kB2:
        in_b2_ = true;
        p_ = std::max(p_ - std::max(static_cast<double>(b1_.bytes) / static_cast<double>(b2_.bytes), 1.0),
                      0.0);
        DropGhost(b2_, x);
        break;
      case ArcList::kNone:
        break;
    }
    if (!Fits(r.obj_size)) return false;
    const bool ghost_hit = in_b1_ || in_b2_;
    while (used_ + r.obj_size > capacity_) {
      if (ghost_hit) {
        Replace();
      } else {
        EvictOnMiss(r.obj_size);
      }
    }
    DList& into = ghost_hit ? t2_ : t1_;
    into.PushHead(x);
    into.bytes += r.obj_size;
    where_[x] = ghost_hit ? ArcList::kT2 : ArcList::kT1;
    AddResident(x, r.obj_size);
    return false;
  }

  void Delete(uint32_t x) override {
    switch (where_[x]) {
      case ArcList::kT1: t1_.Remove(x); t1_.bytes -= ResidentSize(x); DropResident(x); break;
      case ArcList::kT2: t2_.Remove(x); t2_.bytes -= ResidentSize(x); DropResident(x); break;
      case ArcList::kB1: b1_.Remove(x); b1_.bytes -= ghost_size_[x]; break;
      case ArcList::kB2: b2_.Remove(x); b2_.bytes -= ghost_size_[x]; break;
      case ArcList::kNone: break;
    }
    where_[x] = ArcList::kNone;
  }

 private:
  void Resize(uint32_t x, int64_t size) {
    if (ResidentSize(x) == size) return;
    ResizeResident(x, size);
    while (used_ > capacity_) Replace();
  }

  void DropGhost(DList& ghost, uint32_t x) {
    ghost.Remove(x);
    ghost.bytes -= ghost_size_[x];
    where_[x] = ArcList::kNone;
  }

  // REPLACE of the paper: demote the LRU end of T1 or T2 to its ghost list.
  void Replace() {
    const double t1 = static_cast<double>(t1_.bytes);
    const bool from_t1 = (t1_.bytes > 0 && (t1 > p_ || (t1 == p_ && in_b2_))) || t2_.empty();
    if (from_t1) {
      Demote(t1_, b1_, ArcList::kB1);
    } else {
      Demote(t2_, b2_, ArcList::kB2);
    }
  }

  // Ghost lists are trimmed only by case IV (EvictOnMiss).
  void Demote(DList& from, DList& ghost, ArcList w) {
    const uint32_t v = from.tail();
    const int64_t s = ResidentSize(v);
    from.Remove(v);
    from.bytes -= s;
    DropResident(v);
    where_[v] = ArcList::kNone;
    ghost.PushHead(v);
    ghost.bytes += s;
    ghost_size_[v] = s;
    where_[v] = w;
  }

  // Case IV of the paper (a miss on all four lists), in bytes.
  void EvictOnMiss(int64_t incoming) {
    if (t1_.bytes + b1_.bytes + incoming > capacity_) {
      if (b1_.bytes > 0) {
        DropGhost(b1_, b1_.tail());
        Replace();
      } else {
        const uint32_t v = t1_.tail();
        t1_.Remove(v);
        t1_.bytes -= ResidentSize(v);
        where_[v] = ArcList::kNone;
        DropResident(v);
      }
    } else {
      if (trim_ == ArcGhostTrim::kPaper) {
        if (t1_.bytes + b1_.bytes + t2_.bytes + b2_.bytes >= 2 * capacity_ && !b2_.empty()) {
          DropGhost(b2_, b2_.tail());
        }
      } else {
        while (t1_.bytes + b1_.bytes + t2_.bytes + b2_.bytes >= 2 * capacity_ && !b2_.empty()) {
          DropGhost(b2_, b2_.tail());
        }
      }
      Replace();
    }
  }

  ArcGhostTrim trim_;
  ListArena arena_;
  std::vector<ArcList> where_;
  std::vector<int64_t> ghost_size_;
  DList t1_, t2_, b1_, b2_;
  double p_ = 0;
  bool in_b1_ = false;
  bool in_b2_ = false;
};

}  // namespace

std::unique_ptr<CachePolicy> NewArc(const PolicyOptions& o) {
  return std::make_unique<Arc>(o, ArcGhostTrim::kPaper);
}

std::unique_ptr<CachePolicy> NewArc(const PolicyOptions& o, ArcGhostTrim trim) {
  return std::make_unique<Arc>(o, trim);
}

}  // namespace frugal::cache
