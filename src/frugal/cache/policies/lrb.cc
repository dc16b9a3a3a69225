// LRB, learned relaxed Belady (Song et al., NSDI'20), simplified: a GBDT
// predicts, at each access, the log time to the object's next access from
// recency and frequency features (the gaps between its last accesses, its
// access count, its size); eviction samples up to 64 residents and evicts
// the one whose predicted next access is farthest away. Every access is
// admitted. Labels come from the trace as it unfolds (the next access, or
// censored after two days or at deletion); the model is retrained on a
// sliding window of labelled accesses. Until the first fit: sampled LRU.
#include <algorithm>
#include <cmath>
#include <deque>

#include "frugal/perf/gbdt.h"
#include "frugal/cache/policies/policies.h"
#include "frugal/cache/policies/resident_set.h"
#include "frugal/cache/policies/resizing_policy.h"
#include "frugal/cache/policies/training_window.h"

namespace frugal::cache {
namespace {

constexpr int kGaps = 6;
constexpr int kLrbFeatures = kGaps + 4;
constexpr int64_t kCensorUs = 2LL * 86400 * 1000000;
constexpr size_t kLrbCandidates = 64;

struct LrbSample {
  float x[kLrbFeatures];
  int64_t time_us;
  uint32_t obj;
  bool done = false;
};

struct LrbObject {
  int64_t times[kGaps + 1];  // last access times, newest first
  int n = 0;
  int64_t count = 0;
  int64_t pred_next_us = 0;
  int64_t pending = -1;  // id of the sample awaiting this object's next access
};

class Lrb : public ResizingPolicy {
 public:
  explicit Lrb(const PolicyOptions& o)
      : ResizingPolicy(o), objs_(o.slots()),
        residents_(o.slots(), o.seed ^ 0x1b5), model_({30, 6, 0.3, o.seed}) {}

  bool Access(const Request& r, int64_t index) override {
    Observe(r, index);
    const uint32_t x = r.obj;
    if (Resident(x)) {
      UpdateSize(r, [&] { EvictOne(x); });
      return true;
    }
    if (!Fits(r.obj_size)) return false;
    while (used_ + r.obj_size > capacity_) EvictOne(kNil32);
    residents_.Insert(x);
    AddResident(x, r.obj_size);
    return false;
  }

  void Delete(uint32_t x) override {
    LrbObject& s = objs_[x];
    if (s.pending >= 0) Label(s.pending, kCensorUs);
    s.pending = -1;
    if (Resident(x)) {
      residents_.Erase(x);
      DropResident(x);
    }
  }

  nlohmann::json Report() const override { return {{"retrains", retrains_}}; }

 private:
  static constexpr uint32_t kNil32 = UINT32_MAX;

  void EvictOne(uint32_t keep) {
    residents_.Candidates(kLrbCandidates, &cand_);
    uint32_t best = kNil32;
    int64_t best_key = 0;
    for (uint32_t v : cand_) {
      if (v == keep && cand_.size() > 1) continue;
      // Farthest predicted next access; before a model, oldest last access.
      const int64_t key = model_.fitted() ? objs_[v].pred_next_us : -objs_[v].times[0];
      if (best == kNil32 || key > best_key || (key == best_key && v < best)) {
        best = v;
        best_key = key;
      }
    }
    residents_.Erase(best);
    DropResident(best);
  }

  void Observe(const Request& r, int64_t index) {
    const int64_t now = r.time_us;
    while (!samples_.empty() && (samples_.front().done || samples_.front().time_us + kCensorUs <= now)) {
      if (!samples_.front().done) {
        objs_[samples_.front().obj].pending = -1;
        Label(base_, kCensorUs);
      }
      samples_.pop_front();
      ++base_;
    }
    LrbObject& s = objs_[r.obj];
    if (s.pending >= 0) {
      Label(s.pending, now - samples_[s.pending - base_].time_us);
      s.pending = -1;
    }
    for (int k = std::min(s.n, kGaps); k > 0; --k) s.times[k] = s.times[k - 1];
    s.times[0] = now;
    s.n = std::min(s.n + 1, kGaps + 1);
    ++s.count;
    LrbSample smp;
    smp.time_us = now;
    smp.obj = r.obj;
    for (int k = 0; k < kGaps; ++k) {
      smp.x[k] = k + 1 < s.n ? static_cast<float>(std::log1p(static_cast<double>(s.times[k] - s.times[k + 1]) * 1e-6))
                             : -1.f;
    }
    smp.x[kGaps] = static_cast<float>(std::log2(static_cast<double>(std::max<int64_t>(r.obj_size, 1))));
    smp.x[kGaps + 1] = static_cast<float>(std::log1p(static_cast<double>(s.count)));
    smp.x[kGaps + 2] = r.kind == RequestKind::kWrite ? 0.f : 1.f;
    smp.x[kGaps + 3] = static_cast<float>((now / 1000000) % 86400) / 3600.f;
    if (model_.fitted()) {
      const double gap_s = std::expm1(static_cast<double>(model_.Predict(smp.x, kLrbFeatures)));
      s.pred_next_us = now + static_cast<int64_t>(std::max(0.0, gap_s) * 1e6);
    }
    s.pending = base_ + static_cast<int64_t>(samples_.size());
    samples_.push_back(smp);
    if (schedule_.Due(index)) Retrain();
  }

  void Label(int64_t id, int64_t gap_us) {
    LrbSample& s = samples_[id - base_];
    if (s.done) return;
    s.done = true;
    std::copy(s.x, s.x + kLrbFeatures, window_x_.begin() + static_cast<ptrdiff_t>(cursor_.slot * kLrbFeatures));
    window_y_[cursor_.slot] = static_cast<float>(std::log1p(static_cast<double>(std::min(gap_us, kCensorUs)) * 1e-6));
    cursor_.Advance();
    schedule_.AddLabel();
  }

  void Retrain() {
    std::vector<float> x = Prefix(window_x_, cursor_.rows * kLrbFeatures);
    std::vector<float> y = Prefix(window_y_, cursor_.rows);
    if (model_.Fit(x, kLrbFeatures, y).ok()) ++retrains_;
    schedule_.Refitted();
  }

  std::vector<LrbObject> objs_;
  ResidentSet residents_;
  GbdtRegressor model_;
  std::deque<LrbSample> samples_;
  int64_t base_ = 0;
  std::vector<float> window_x_ = std::vector<float>(kTrainWindow * kLrbFeatures);
  std::vector<float> window_y_ = std::vector<float>(kTrainWindow);
  WindowCursor cursor_;
  RetrainSchedule schedule_;
  int64_t retrains_ = 0;
  std::vector<uint32_t> cand_;
};

}  // namespace

std::unique_ptr<CachePolicy> NewLrb(const PolicyOptions& o) { return std::make_unique<Lrb>(o); }

}  // namespace frugal::cache
