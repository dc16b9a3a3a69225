// Online labels of a file's caching cost, for smartcache. A sample is
// opened at an access (the file is `size` bytes then); its label is the
// size-aware Belady cost of keeping the file from that moment:
//   cost = min over the next reads k of (c_k - c) / (C_k / size),
// where c is a clock (smartcache counts requests: holding a byte while no
// one else asks for space costs nothing) and C_k is the bytes read by reads
// 1..k: the clock ticks the file must be held per file-size of reads it
// serves, i.e. 1 / benefit density. A file read whole again after g ticks
// costs g; a shuffle file read in 1/W slices costs about the ticks until
// all slices are read; one never read again costs `never`. The label is
// known, and the sample closed, as soon as the reads since the sample add
// up to the file's size (no later read can then change it much), when the
// file dies (delete or overwrite), or when the horizon (in trace time)
// passes: only observed events, so the labels are available online. Each
// sample carries a Payload (the features of its access) handed back with
// its label. Not thread-safe.
#ifndef FRUGAL_CACHE_POLICIES_COST_LABELER_H_
#define FRUGAL_CACHE_POLICIES_COST_LABELER_H_

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

namespace frugal::cache {

template <typename Payload>
class CostLabeler {
 public:
  // REQUIRES: horizon_us > 0, never > 0. `objects`: the number of object ids.
  CostLabeler(size_t objects, int64_t horizon_us, double never)
      : open_(objects), horizon_us_(horizon_us), never_(never) {}

  double never() const { return never_; }

  // Opens a sample of `obj` at `time_us`, clock `clock` (size_bytes >= 0).
  // Returns its payload, which stays at that address until the sample's
  // label was handed out (so its owner may fill it in later).
  Payload& Open(uint32_t obj, int64_t time_us, int64_t clock, int64_t size_bytes, const Payload& payload) {
    const int64_t id = base_ + static_cast<int64_t>(samples_.size());
    samples_.push_back({payload, time_us, clock, std::max<int64_t>(size_bytes, 1), 0, -1, obj, false});
    open_[obj].push_back(id);
    return samples_.back().payload;
  }
  // Samples held: open, or closed but not yet dropped by Advance.
  size_t kept_samples() const { return samples_.size(); }

  // A read of `bytes` of `obj` at clock `clock`. Calls done(payload, cost)
  // for every sample of the object this read closes.
  template <typename Done>
  void Read(uint32_t obj, int64_t clock, int64_t bytes, Done done) {
    auto& ids = open_[obj];
    size_t keep = 0;
    for (int64_t id : ids) {
      Sample& s = samples_[static_cast<size_t>(id - base_)];
      s.read_bytes += std::max<int64_t>(bytes, 1);
      const double cost = static_cast<double>(clock - s.clock) * static_cast<double>(s.size) /
                          static_cast<double>(s.read_bytes);
      if (s.best_s < 0 || cost < s.best_s) s.best_s = cost;
      if (s.read_bytes >= s.size) {
        Close(s, done);
      } else {
        ids[keep++] = id;
      }
    }
    ids.resize(keep);
  }

  // The object died (deleted, or overwritten): closes its samples with
  // what they saw (the horizon when it was not read since).
  template <typename Done>
  void Death(uint32_t obj, Done done) {
    for (int64_t id : open_[obj]) Close(samples_[static_cast<size_t>(id - base_)], done);
    open_[obj].clear();
  }

  // Closes the samples older than the horizon at `now_us`.
  template <typename Done>
  void Advance(int64_t now_us, Done done) {
    while (!samples_.empty() && (samples_.front().closed || samples_.front().time_us + horizon_us_ <= now_us)) {
      Sample& s = samples_.front();
      if (!s.closed) {
        auto& ids = open_[s.obj];
        ids.erase(std::remove(ids.begin(), ids.end(), base_), ids.end());
        Close(s, done);
      }
      samples_.pop_front();
      ++base_;
    }
  }

 private:
  struct Sample {
    Payload payload;
    int64_t time_us;
    int64_t clock;
    int64_t size;
    int64_t read_bytes;
    double best_s;  // least cost so far; < 0 before the first read
    uint32_t obj;
    bool closed;
  };

  template <typename Done>
  void Close(Sample& s, Done& done) {
    s.closed = true;
    done(s.payload, s.best_s < 0 ? never_ : std::min(s.best_s, never_));
  }

  std::vector<std::vector<int64_t>> open_;  // open sample ids per object
  std::deque<Sample> samples_;
  int64_t base_ = 0;  // id of samples_.front()
  int64_t horizon_us_;
  double never_;
};

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_POLICIES_COST_LABELER_H_
