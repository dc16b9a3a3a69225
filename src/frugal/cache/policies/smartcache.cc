// SmartCache: learned file lifetimes, future reads and next reads. At
// each access (write, read; a rename updates the path features) online GBDT
// models predict, from features known at that moment (path pattern and
// extension, temp-file flag, stage, pipeline, creating worker, time of day,
// size, age, reads so far in the current burst, time since the last
// access): the file's future read bytes before it dies (within a 1-hour
// horizon, as a multiple of its size), its remaining lifetime (time to its
// last read, same horizon), its reads within the next minute, and the time
// to its next read (censored at 2 days, which also covers daily re-runs).
//
// Admission skips files predicted not to be read again before they die
// (no future bytes, no reads within a minute and no next read within the
// censoring horizon), and a file that would displace files of at least its
// benefit density. Eviction removes the lowest benefit density among up to
// 64 sampled residents: the benefit of keeping a byte is its next read, the
// cost the byte-seconds until then, so density = 1 / (1 + wait until the
// predicted next read + 0.1 x predicted gap); a file predicted never to be
// read again has density 0. Deleted files free their space at once.
//
// Per path pattern the policy also keeps online statistics of the labels
// seen so far (mean and spread of the log next-read gap, mean log reuse),
// given to the models as features; for a read of a pattern whose gaps are
// consistent (variance of log1p(gap) < 0.25, e.g. raw input re-read by each
// daily run) the pattern's mean gap replaces the model's prediction, which
// has no labelled rows for a re-read's features until a day later.
//
// Labels become known when their horizon passes, at the next read, or when
// the file is deleted; the models are retrained on a sliding window of the
// latest labelled accesses whenever enough new labels arrived (checked every
// 512 requests on the simulation clock, so runs are deterministic). Until
// the first fit the policy behaves like LRU. Report() gives the lifetime
// accuracy (share of files whose lifetime, predicted at their first access,
// is within 2x of the truth) and the reuse accuracy.
#include <algorithm>
#include <cmath>
#include <deque>

#include "frugal/cache/learner.h"
#include "frugal/cache/policies/path_features.h"
#include "frugal/cache/policies/policies.h"
#include "frugal/cache/policies/resident_set.h"
#include "frugal/cache/policies/resizing_policy.h"
#include "frugal/cache/policies/training_window.h"

namespace frugal::cache {
namespace {

constexpr int kFeatures = 19;
// Columns 16-18 are per-path-pattern statistics of the labels seen so far
// (mean log next-read gap, log label count, mean log future reuse),
// refreshed for every training row at each retrain and read at prediction
// time: a target encoding of the pattern that only uses past outcomes.
constexpr int kPatternGap = 16, kPatternCount = 17, kPatternReuse = 18;
constexpr int64_t kHorizonUs = 3600LL * 1000000;  // labels look 1 hour ahead
constexpr int64_t kShortUs = 60LL * 1000000;       // and 1 minute ahead
constexpr int64_t kGapCensorUs = 2LL * 86400 * 1000000;  // "no next read" beyond 2 days
constexpr double kAdmitMinReuse = 0.02;            // of the file's size
constexpr size_t kCandidates = 256;
constexpr int64_t kMinPatternLabels = 16;
// A newcomer must beat a resident's density times this factor; ties keep
// the incumbent (a scan over more files than fit then still hits).
constexpr double kIncumbentBonus = 1.0;

struct Sample {
  float x[kFeatures];
  int64_t time_us;
  uint32_t obj;
  int64_t size;
  int64_t future_bytes = 0;
  int64_t short_bytes = 0;  // read within kShortUs
  int64_t last_read_us = -1;
  float pred_reuse = -1;  // prediction made with this sample, -1 = none
  float pred_ttl_s = -1;
  bool first = false;     // the file's first access in the trace
  bool done = false;
};

struct FileState {
  int64_t first_us = -1;
  int64_t last_us = -1;
  int64_t reads = 0;       // in the current burst (gaps under the horizon)
  int64_t read_bytes = 0;
  int pattern = 0;
  int ext = 0;
  bool renamed = false;
  bool temp = false;
  double reuse = 1;         // predicted future bytes / size
  double reuse_short = 0;   // the same within a minute
  int64_t deadline_us = 0;  // predicted time of the last read
  int64_t next_read_us = 0; // predicted time of the next read
  int64_t gap_pending = -1; // id of the sample awaiting this file's next read
  std::vector<int64_t> pending;  // ids of unlabelled samples
};

class SmartCache : public ResizingPolicy {
 public:
  explicit SmartCache(const PolicyOptions& o)
      : ResizingPolicy(o), files_(o.trace->objects.size()),
        residents_(o.trace->objects.size(), o.seed ^ 0x5ca1ab1e),
        reuse_model_({30, 6, 0.3, o.seed}), ttl_model_({30, 6, 0.3, o.seed + 1}),
        short_model_({30, 6, 0.3, o.seed + 2}), gap_model_({30, 6, 0.3, o.seed + 3}) {
    for (size_t i = 0; i < files_.size(); ++i) SetPath(static_cast<uint32_t>(i), o.trace->objects[i].path);
  }

  bool Access(const Request& r, int64_t index) override {
    Observe(r, index);
    const uint32_t x = r.obj;
    if (Resident(x)) {
      UpdateSize(r, [&] { EvictOne(r.time_us, x); });
      return true;
    }
    if (!Fits(r.obj_size)) return false;
    const bool learned = gap_model_.fitted() && reuse_model_.fitted();
    if (learned && files_[x].reuse < kAdmitMinReuse && files_[x].reuse_short < kAdmitMinReuse &&
        Density(x, r.time_us) <= 0) {
      return false;  // not read again before it dies, nor within the censoring horizon
    }
    // Admit only if every file to displace has a lower benefit density.
    if (used_ + r.obj_size > capacity_) {
      const double mine = Density(x, r.time_us);
      residents_.Candidates(residents_.size() <= 4 * kCandidates ? residents_.size() : kCandidates, &cand_);
      std::sort(cand_.begin(), cand_.end());
      cand_.erase(std::unique(cand_.begin(), cand_.end()), cand_.end());
      std::sort(cand_.begin(), cand_.end(), [&](uint32_t a, uint32_t b) {
        const double da = Density(a, r.time_us), db = Density(b, r.time_us);
        return da != db ? da < db : a < b;
      });
      int64_t freeable = capacity_ - used_;
      for (uint32_t v : cand_) {
        if (freeable >= r.obj_size) break;
        if (learned && Density(v, r.time_us) * kIncumbentBonus >= mine) return false;
        freeable += ResidentSize(v);
      }
      for (uint32_t v : cand_) {
        if (used_ + r.obj_size <= capacity_) break;
        Evict(v);
      }
      while (used_ + r.obj_size > capacity_) EvictOne(r.time_us, kNil32);
    }
    residents_.Insert(x);
    AddResident(x, r.obj_size);
    return false;
  }

  void Rename(const Request& r, int64_t index) override {
    SetPath(r.obj, trace_.objects[r.obj].renamed_path);
    files_[r.obj].renamed = true;
    Observe(r, index);
  }

  void Delete(uint32_t x) override {
    FileState& f = files_[x];
    for (int64_t id : f.pending) Complete(id);
    f.pending.clear();
    if (f.gap_pending >= 0) GapLabel(f.gap_pending, kGapCensorUs);
    f.gap_pending = -1;
    if (Resident(x)) Evict(x);
  }

  nlohmann::json Report() const override {
    // null while no prediction has been checked against its outcome.
    auto share = [](int64_t k, int64_t n) -> nlohmann::json {
      return n > 0 ? nlohmann::json(static_cast<double>(k) / static_cast<double>(n)) : nlohmann::json();
    };
    return {{"retrains", retrains_},
            {"labelled_accesses", evaluated_},
            {"files_evaluated", files_evaluated_},
            {"lifetime_within_2x", share(files_within_2x_, files_evaluated_)},
            {"access_lifetime_within_2x", share(within_2x_, evaluated_)},
            {"reuse_accuracy", share(reuse_right_, evaluated_)}};
  }

 private:
  static constexpr uint32_t kNil32 = UINT32_MAX;

  void SetPath(uint32_t x, const std::string& path) {
    FileState& f = files_[x];
    f.pattern = interner_.Id(PathInterner::Pattern(path));
    f.ext = interner_.Id("." + PathInterner::Extension(path));
    f.temp = path.find(".temp") != std::string::npos || path.find("/tmp/") != std::string::npos;
  }

  // Benefit per byte and second of keeping the file: its next read (the
  // bytes of a read in units of its size) over the time until then. A
  // file predicted to be read in a minute adds its short-term reuse; one
  // past its predicted last read (by its predicted lifetime again, at least
  // a minute) and not expected again within the censoring horizon is dead.
  double Density(uint32_t x, int64_t now_us) const {
    const FileState& f = files_[x];
    if (!gap_model_.fitted()) return 1.0 / (1.0 + static_cast<double>(now_us - f.last_us) * 1e-6);
    // A path pattern the model has no labels for yet: assume a read within
    // the hour, below files the model knows to be read sooner. The value
    // does not decay with age, so an unknown newcomer does not displace an
    // unknown incumbent (ties keep the incumbent): raw input read once a
    // day then stays for its re-read instead of churning.
    const auto pattern = static_cast<size_t>(f.pattern);
    if (pattern >= pattern_labels_.size() || pattern_labels_[pattern] < kMinPatternLabels) {
      return 1.0 / 3601.0;
    }
    // Alive within the hour: future bytes over remaining lifetime, plus
    // the reads due within a minute.
    const double ttl_s = static_cast<double>(f.deadline_us - f.last_us) * 1e-6;
    const double overdue_s = static_cast<double>(now_us - f.deadline_us) * 1e-6;
    const double soon = now_us - f.last_us < kShortUs ? f.reuse_short / 60.0 : 0.0;
    if (f.reuse >= kAdmitMinReuse && overdue_s <= std::max(ttl_s, 60.0)) {
      return soon + f.reuse / (ttl_s + 1.0);
    }
    // Dead for the hour but read again later (daily re-runs): its next read
    // over the wait for it, always below the files alive within the hour.
    const double gap_s = static_cast<double>(f.next_read_us - f.last_us) * 1e-6;
    if (gap_s >= 0.9 * static_cast<double>(kGapCensorUs) * 1e-6) return soon;
    const double late_s = static_cast<double>(now_us - f.next_read_us) * 1e-6;
    if (late_s > std::max(gap_s, 60.0)) return soon;  // its predicted read never came
    const double wait_s = std::max(-late_s, 0.0);
    return soon + 1.0 / (1.0 + std::max(wait_s + 0.1 * gap_s, 3600.0));
  }

  void Evict(uint32_t v) {
    residents_.Erase(v);
    DropResident(v);
  }

  void EvictOne(int64_t now_us, uint32_t keep) {
    residents_.Candidates(kCandidates, &cand_);
    uint32_t best = kNil32;
    double best_d = 0;
    for (uint32_t v : cand_) {
      if (v == keep && cand_.size() > 1) continue;
      const double d = Density(v, now_us);
      if (best == kNil32 || d < best_d || (d == best_d && v < best)) {
        best = v;
        best_d = d;
      }
    }
    Evict(best);
  }

  void Features(const Request& r, const FileState& f, float* x) const {
    const ObjectInfo& info = trace_.objects[r.obj];
    const StageGroup g = r.group < trace_.groups.size() ? trace_.groups[r.group] : StageGroup{};
    const double size = static_cast<double>(std::max<int64_t>(r.obj_size, 1));
    x[0] = r.kind == RequestKind::kWrite ? 0.f : r.kind == RequestKind::kRead ? 1.f : 2.f;
    x[1] = static_cast<float>(std::log2(size));
    x[2] = static_cast<float>(f.reads);
    x[3] = static_cast<float>(static_cast<double>(f.read_bytes) / size);
    x[4] = static_cast<float>(std::log1p(static_cast<double>(r.time_us - f.first_us) * 1e-6));
    x[5] = f.last_us < 0 ? -1.f : static_cast<float>(std::log1p(static_cast<double>(r.time_us - f.last_us) * 1e-6));
    x[6] = static_cast<float>(f.ext);
    x[7] = static_cast<float>(f.pattern);
    x[8] = static_cast<float>(g.stage);
    x[9] = static_cast<float>(g.pipeline);
    x[10] = static_cast<float>(info.worker);
    x[11] = info.created ? 1.f : 0.f;
    x[12] = f.renamed ? 1.f : 0.f;
    x[13] = f.temp ? 1.f : 0.f;
    x[14] = static_cast<float>((r.time_us / 1000000) % 86400) / 3600.f;
    x[15] = static_cast<float>(info.stage);
  }

  // Labels, state, prediction and training for one access.
  void Observe(const Request& r, int64_t index) {
    const int64_t now = r.time_us;
    CompleteUpTo(now);
    FileState& f = files_[r.obj];
    const bool first = f.first_us < 0;
    if (first) f.first_us = now;
    if (f.last_us >= 0 && now - f.last_us > kHorizonUs) {  // a new burst of use
      f.reads = 0;
      f.read_bytes = 0;
    }
    if (r.kind == RequestKind::kRead && f.gap_pending >= 0) {
      GapLabel(f.gap_pending, now - gap_samples_[f.gap_pending - gap_base_].time_us);
      f.gap_pending = -1;
    }
    if (r.kind == RequestKind::kRead) {
      for (int64_t id : f.pending) {
        Sample& s = samples_[id - base_];
        if (now - s.time_us <= kHorizonUs) {
          s.future_bytes += r.bytes;
          s.last_read_us = now;
          if (now - s.time_us <= kShortUs) s.short_bytes += r.bytes;
        }
      }
      ++f.reads;
      f.read_bytes += r.bytes;
    }
    Sample s;
    Features(r, f, s.x);
    PatternStats(s.x);
    s.time_us = now;
    s.obj = r.obj;
    s.size = std::max<int64_t>(r.obj_size, 1);
    s.first = first;
    if (reuse_model_.fitted()) {
      f.reuse = std::max(0.0, std::expm1(static_cast<double>(reuse_model_.Predict(s.x, kFeatures))));
      const double ttl_s = std::max(0.0, std::expm1(static_cast<double>(ttl_model_.Predict(s.x, kFeatures))));
      f.deadline_us = now + static_cast<int64_t>(ttl_s * 1e6);
      f.reuse_short = std::max(0.0, std::expm1(static_cast<double>(short_model_.Predict(s.x, kFeatures))));
      s.pred_reuse = static_cast<float>(f.reuse);
      s.pred_ttl_s = static_cast<float>(ttl_s);
    }
    // A rename is metadata only: the write's next-read sample stays open.
    const bool rename = r.kind == RequestKind::kRename;
    if (gap_model_.fitted() && !rename) {
      double log_gap = static_cast<double>(gap_model_.Predict(s.x, kFeatures));
      // A pattern whose files all come back after about the same gap (raw
      // input re-read by the daily run) is its own best predictor: the
      // model has no labelled rows yet for a re-read's features (time since
      // the last access of a day) until that re-read's next re-read.
      const auto pat = static_cast<size_t>(f.pattern);
      if (r.kind == RequestKind::kRead && pat < pattern_labels_.size() && pattern_labels_[pat] >= kMinPatternLabels) {
        const double n = static_cast<double>(pattern_labels_[pat]);
        const double mean = pattern_gap_sum_[pat] / n;
        const double var = std::max(0.0, pattern_gap_sq_[pat] / n - mean * mean);
        if (var < 0.25) log_gap = mean;
      }
      const double gap_s = std::max(0.0, std::expm1(log_gap));
      f.next_read_us = now + static_cast<int64_t>(gap_s * 1e6);
    }
    f.last_us = now;
    f.pending.push_back(base_ + static_cast<int64_t>(samples_.size()));
    samples_.push_back(s);
    if (rename) return MaybeRetrain(index);
    if (f.gap_pending >= 0) gap_samples_[f.gap_pending - gap_base_].done = true;  // superseded by a write
    f.gap_pending = gap_base_ + static_cast<int64_t>(gap_samples_.size());
    gap_samples_.push_back({});
    std::copy(s.x, s.x + kFeatures, gap_samples_.back().x);
    gap_samples_.back().time_us = now;
    gap_samples_.back().obj = r.obj;
    MaybeRetrain(index);
  }

  // Fills the pattern columns from the labels seen so far.
  void PatternStats(float* x) const {
    const auto p = static_cast<size_t>(x[7]);
    const bool g = p < pattern_labels_.size() && pattern_labels_[p] > 0;
    x[kPatternGap] = g ? static_cast<float>(pattern_gap_sum_[p] / static_cast<double>(pattern_labels_[p])) : -1.f;
    x[kPatternCount] = g ? static_cast<float>(std::log1p(static_cast<double>(pattern_labels_[p]))) : 0.f;
    const bool u = p < pattern_reuse_n_.size() && pattern_reuse_n_[p] > 0;
    x[kPatternReuse] = u ? static_cast<float>(pattern_reuse_sum_[p] / static_cast<double>(pattern_reuse_n_[p])) : -1.f;
  }

  void MaybeRetrain(int64_t index) {
    if (schedule_.Due(index)) Retrain();
  }

  void CompleteUpTo(int64_t now) {
    while (!gap_samples_.empty() &&
           (gap_samples_.front().done || gap_samples_.front().time_us + kGapCensorUs <= now)) {
      if (!gap_samples_.front().done) {
        files_[gap_samples_.front().obj].gap_pending = -1;
        GapLabel(gap_base_, kGapCensorUs);
      }
      gap_samples_.pop_front();
      ++gap_base_;
    }
    while (!samples_.empty() && (samples_.front().done || samples_.front().time_us + kHorizonUs <= now)) {
      if (!samples_.front().done) {
        const uint32_t obj = samples_.front().obj;
        Complete(base_);
        auto& p = files_[obj].pending;
        p.erase(std::remove(p.begin(), p.end(), base_), p.end());
      }
      samples_.pop_front();
      ++base_;
    }
  }

  void Complete(int64_t id) {
    Sample& s = samples_[id - base_];
    if (s.done) return;
    s.done = true;
    const double reuse = static_cast<double>(s.future_bytes) / static_cast<double>(s.size);
    const double ttl_s = s.last_read_us < 0 ? 0 : static_cast<double>(s.last_read_us - s.time_us) * 1e-6;
    if (s.pred_reuse >= 0) {
      ++evaluated_;
      const double a = std::max(ttl_s, 1.0), p = std::max<double>(s.pred_ttl_s, 1.0);
      const bool ok = p <= 2 * a && a <= 2 * p;
      within_2x_ += ok;
      reuse_right_ += (s.pred_reuse >= kAdmitMinReuse) == (reuse > 0);
      if (s.first) {
        ++files_evaluated_;
        files_within_2x_ += ok;
      }
    }
    std::copy(s.x, s.x + kFeatures, window_x_.begin() + static_cast<ptrdiff_t>(cursor_.slot * kFeatures));
    window_reuse_[cursor_.slot] = static_cast<float>(std::log1p(reuse));
    const auto pattern = static_cast<size_t>(s.x[7]);
    if (pattern >= pattern_reuse_n_.size()) {
      pattern_reuse_n_.resize(pattern + 1, 0);
      pattern_reuse_sum_.resize(pattern + 1, 0.0);
    }
    ++pattern_reuse_n_[pattern];
    pattern_reuse_sum_[pattern] += static_cast<double>(window_reuse_[cursor_.slot]);
    window_ttl_[cursor_.slot] = static_cast<float>(std::log1p(ttl_s));
    window_short_[cursor_.slot] = static_cast<float>(
        std::log1p(static_cast<double>(s.short_bytes) / static_cast<double>(s.size)));
    cursor_.Advance();
    schedule_.AddLabel();
  }

  void GapLabel(int64_t id, int64_t gap_us) {
    GapSample& s = gap_samples_[id - gap_base_];
    if (s.done) return;
    s.done = true;
    const size_t pattern = static_cast<size_t>(s.x[7]);
    if (pattern >= pattern_labels_.size()) {
      pattern_labels_.resize(pattern + 1, 0);
      pattern_gap_sum_.resize(pattern + 1, 0.0);
      pattern_gap_sq_.resize(pattern + 1, 0.0);
    }
    ++pattern_labels_[pattern];
    std::copy(s.x, s.x + kFeatures, gap_x_.begin() + static_cast<ptrdiff_t>(gap_cursor_.slot * kFeatures));
    gap_y_[gap_cursor_.slot] = static_cast<float>(std::log1p(static_cast<double>(std::min(gap_us, kGapCensorUs)) * 1e-6));
    pattern_gap_sum_[pattern] += static_cast<double>(gap_y_[gap_cursor_.slot]);
    pattern_gap_sq_[pattern] += static_cast<double>(gap_y_[gap_cursor_.slot]) * static_cast<double>(gap_y_[gap_cursor_.slot]);
    gap_cursor_.Advance();
  }

  void Retrain() {
    if (gap_cursor_.rows > 0) {
      std::vector<float> gx = Prefix(gap_x_, gap_cursor_.rows * kFeatures);
      for (size_t i = 0; i < gap_cursor_.rows; ++i) PatternStats(&gx[i * kFeatures]);
      std::vector<float> gy = Prefix(gap_y_, gap_cursor_.rows);
      (void)gap_model_.Fit(gx, kFeatures, gy);
    }
    const size_t n = cursor_.rows;
    std::vector<float> x = Prefix(window_x_, n * kFeatures);
    for (size_t i = 0; i < n; ++i) PatternStats(&x[i * kFeatures]);
    std::vector<float> y1 = Prefix(window_reuse_, n);
    std::vector<float> y2 = Prefix(window_ttl_, n);
    std::vector<float> y3 = Prefix(window_short_, n);
    if (reuse_model_.Fit(x, kFeatures, y1).ok() && ttl_model_.Fit(x, kFeatures, y2).ok() &&
        short_model_.Fit(x, kFeatures, y3).ok()) {
      ++retrains_;
    }
    schedule_.Refitted();
  }

  struct GapSample {
    float x[kFeatures];
    int64_t time_us = 0;
    uint32_t obj = 0;
    bool done = false;
  };
  std::deque<GapSample> gap_samples_;
  int64_t gap_base_ = 0;
  std::vector<float> gap_x_ = std::vector<float>(kTrainWindow * kFeatures);
  std::vector<float> gap_y_ = std::vector<float>(kTrainWindow);
  WindowCursor gap_cursor_;
  std::vector<FileState> files_;
  std::vector<int64_t> pattern_labels_;  // next-read labels per path pattern id
  std::vector<double> pattern_gap_sum_;  // sum of their log1p(gap_s)
  std::vector<double> pattern_gap_sq_;   // and of its square
  std::vector<int64_t> pattern_reuse_n_;  // hour-horizon labels per pattern
  std::vector<double> pattern_reuse_sum_;  // sum of their log1p(reuse)
  ResidentSet residents_;
  PathInterner interner_;
  GbdtRegressor reuse_model_, ttl_model_, short_model_, gap_model_;
  std::deque<Sample> samples_;
  int64_t base_ = 0;  // id of samples_.front()
  std::vector<float> window_x_ = std::vector<float>(kTrainWindow * kFeatures);
  std::vector<float> window_reuse_ = std::vector<float>(kTrainWindow);
  std::vector<float> window_ttl_ = std::vector<float>(kTrainWindow);
  std::vector<float> window_short_ = std::vector<float>(kTrainWindow);
  WindowCursor cursor_;
  RetrainSchedule schedule_;
  int64_t retrains_ = 0;
  int64_t evaluated_ = 0, within_2x_ = 0, reuse_right_ = 0, files_evaluated_ = 0, files_within_2x_ = 0;
  std::vector<uint32_t> cand_;
};

}  // namespace

std::unique_ptr<CachePolicy> NewSmartCache(const PolicyOptions& o) {
  return std::make_unique<SmartCache>(o);
}

}  // namespace frugal::cache
