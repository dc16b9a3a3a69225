// SmartCache: learned caching costs, lifetimes and future reads. At each
// read or write online GBDT models predict, from features known at that
// moment (path pattern and extension, temp-file flag, stage, pipeline,
// creating worker, time of day, size, age, reads so far in the current
// burst, time and requests since the last access, how far the issuing
// stage's run is, and per-pattern statistics of past labels):
//   - the file's caching cost (cost_labeler.h): the requests it must be
//     kept per file-size of reads it will serve, min over its next reads k
//     of (requests until read k) / (bytes of reads 1..k / size), i.e. the
//     inverse of its benefit density (future bytes read ÷ (size × time
//     kept)). Time is counted in requests: keeping a byte while nobody else
//     asks for space costs nothing. Two models form a hurdle: the
//     probability that the file is read again before it dies (or within 2
//     days), and the cost if it is; the expected cost is their ratio;
//   - its future read bytes within an hour (÷ size) and its remaining
//     lifetime (time to its last read within that hour), reported as the
//     model's accuracy.
//
// Every resident is due at the request of its last read or write (a
// rename moves no data) + its expected cost; a temporary file's (under
// /tmp/ or a .temp path: a shuffle or spill file its readers consume) cost
// is divided by the share of it not read since its last write, and one
// read in full is dead. Eviction removes the latest
// due (the lowest benefit density); a file predicted not to be read again
// (probability under 0.1), or overdue by more than its cost (at least 64
// requests), is dead and goes first. A file is admitted (on a read miss,
// or when written: write-allocate) only when it is not dead and the space
// it needs comes from residents due after it, so files of equal value do
// not displace each other (a training scan over more shards than fit keeps
// a fixed set). Deleted files free their space at once.
//
// Until the first fit the policy ranks files by what the pipeline does with
// them: a temporary file (under /tmp/ or a .temp path) read in full since
// its last write (a spill its reader has consumed) is evicted first, then
// files the trace did not write (raw input, LRU); a file the trace wrote
// is kept over those, and among them one not yet read in full since its
// last write over one that has been: a spill awaiting its reader longest,
// then an output awaiting its first reader, then a training shard after
// its first epoch (written data is there to be read). An output read in
// full is not displaced by a newcomer, so a scan over more shards than fit
// keeps a fixed set from the first epoch on; an append to a file that is
// not resident does not bring it back. A path pattern with fewer than 16
// cost labels is unknown: its files are due a fixed 1000 requests from now
// (they do not age, so an unknown newcomer does not displace an unknown
// incumbent, and raw input read once a day stays for its re-read instead
// of churning; among them the one used last goes first). For a read of a
// pattern whose labels agree (variance of log1p(cost) < 0.25: raw input
// re-read by each daily run) the pattern's statistics replace the models':
// they have no labelled rows for a re-read's features (last access a day
// ago) until the re-read after it.
//
// Labels are only ever outcomes already observed; the models retrain on a
// sliding window of the latest labelled accesses whenever a quarter of the
// window is new (at least 256 labels; checked every 512 requests on the
// simulation clock), so runs are deterministic. Predictions are queued and
// made for many accesses in one model call when a decision first needs
// them (see Pending). A model file (smartcache_model.h) warm-starts the
// models, the path-pattern ids and the pattern statistics. Report() gives the lifetime accuracy (share of files whose
// lifetime, predicted at their first access, is within 2x of the truth),
// the reuse accuracy, and the accuracy of the read-again and cost models.
#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <thread>

#include "frugal/base/file_io.h"
#include "frugal/cache/smartcache_model.h"
#include "frugal/perf/gbdt.h"
#include "frugal/cache/policies/cost_labeler.h"
#include "frugal/cache/policies/path_features.h"
#include "frugal/cache/policies/policies.h"
#include "frugal/cache/policies/resident_set.h"
#include "frugal/cache/policies/resizing_policy.h"
#include "frugal/cache/policies/training_window.h"

namespace frugal::cache {
namespace {

constexpr int kFeatures = 23;
// Columns 19-22 are per-path-pattern statistics of the labels seen so far
// (mean log cost of files read again, log label count, share read again,
// mean log future reuse), refreshed for every training row at each retrain
// and, at prediction time, read as they were at that retrain (the encoding
// the models were fitted with): a target encoding of the pattern that only
// uses past outcomes.
constexpr int kPatternCost = 19, kPatternCount = 20, kPatternLive = 21, kPatternReuse = 22;
constexpr int64_t kHorizonUs = 3600LL * 1000000;              // lifetime labels look 1 hour ahead
// Costs are in requests (the simulation's clock).
constexpr int64_t kCostCensorUs = 2LL * 86400 * 1000000;  // "never read again" beyond 2 days
constexpr double kNeverCost = 1e9;     // the cost label of a file not read again
constexpr double kDeadCost = 1e8;      // an expected cost above this: dead
constexpr double kMinLive = 0.1;       // read again with a lower probability: dead
constexpr double kUnknownCost = 1000;  // the cost of a file of an unknown pattern
constexpr double kMinOverdue = 64;     // a file overdue by more than max(this, its cost) is dead
constexpr double kReusedShare = 0.02;  // reuse accuracy: "re-read" above this share of the size
constexpr size_t kCandidates = 256;
// Each model: 20 trees of depth 6 at learning rate 0.4 (the cost model 27),
// over 64 histogram bins per feature. Against 30 trees at 0.3 over 256 bins
// every bench cell keeps its target and a run takes about 0.67x the time
// (split search is most of a fit: nodes x features x bins per tree).
constexpr int kTrees = 20, kCostTrees = 27, kDepth = 6, kBins = 64;
constexpr double kEta = 0.4;
constexpr int64_t kMinPatternLabels = 16;
constexpr double kConsistentVar = 0.25;
constexpr double kDead = std::numeric_limits<double>::max();
// Refit once this share of the training window is new: four models over up
// to kTrainWindow rows each cost far more than the predictions between.
constexpr double kRefitShare = 0.25;

using Row = std::array<float, kFeatures>;

// A labelled access for the lifetime and reuse models.
struct Sample {
  Row x;
  int64_t time_us;
  uint32_t obj;
  int64_t size;
  int64_t future_bytes = 0;
  int64_t last_read_us = -1;
  float pred_reuse = -1;  // prediction made with this sample, -1 = none
  float pred_ttl_s = -1;
  bool first = false;     // the file's first access in the trace
  bool done = false;
  bool awaiting = false;  // its predictions are queued (see Pending)
};

// What the cost labeler carries per access.
struct CostRow {
  Row x;
  float pred_live = -1;      // predicted probability of a next read; -1 = none
  float pred_log_cost = -1;  // predicted log1p(cost) if read again
  bool awaiting = false;     // its prediction is queued (see Pending)
};

// An access whose model predictions are queued: they are made for many
// accesses in one call per model, when a decision first needs them (an
// admission or eviction reads the costs, a label reads the prediction it
// is checked against, a refit replaces the models), so every prediction
// is the one the models in force at that access would have made.
struct Pending {
  uint32_t obj;
  Sample* sample;         // awaiting the lifetime predictions, or null
  CostRow* cost;          // awaiting the cost predictions, or null
  bool consistent;        // the pattern's own statistics replace the models'
  bool known;             // the pattern was known at the access
  double pattern_log_cost, pattern_live;
};

struct FileState {
  int64_t first_us = -1;
  int64_t last_us = -1;
  int64_t first_index = -1;
  int64_t last_index = -1;
  int64_t reads = 0;       // in the current burst (gaps under the horizon)
  int64_t read_bytes = 0;
  int64_t size = 0;        // after the last read or write
  int pattern = 0;
  int ext = 0;
  bool renamed = false;
  bool temp = false;
  bool path_set = false;
  int64_t read_since_write = 0;  // bytes read since the last write
  bool consumed = false;         // read in full since the last write
  double cost = kUnknownCost;  // predicted at the last read or write, in requests
  int64_t cost_index = -1;     // ... at this request (a rename moves no data)
  bool cost_known = false;     // the pattern had enough labels then
  std::vector<int64_t> pending;   // ids of unlabelled lifetime samples
};

// The current run of one (pipeline, stage) group: its requests so far
// (a pause of more than the lifetime horizon starts a new run).
struct GroupRun {
  int64_t last_us = -1;
  int64_t requests = 0;
};

// Per path pattern: the cost labels seen so far (all, and log1p(cost) of
// those read again) and the lifetime-horizon reuse labels.
struct PatternStats {
  int64_t cost_n = 0;
  int64_t live_n = 0;
  double live_sum = 0, live_sq = 0;
  int64_t reuse_n = 0;
  double reuse_sum = 0;
};

class SmartCache : public ResizingPolicy {
 public:
  explicit SmartCache(const PolicyOptions& o)
      : ResizingPolicy(o), files_(o.slots()),
        residents_(o.slots(), o.seed ^ 0x5ca1ab1e),
        costs_(o.slots(), kCostCensorUs, kNeverCost),
        live_model_({kTrees, kDepth, kEta, o.seed, kBins}),
        cost_model_({kCostTrees, kDepth, kEta, o.seed + 3, kBins}),
        reuse_model_({kTrees, kDepth, kEta, o.seed + 1, kBins}),
        ttl_model_({kTrees, kDepth, kEta, o.seed + 2, kBins}) {
    schedule_.set_new_share(kRefitShare);
  }

  // Warm start from a model file (see smartcache_model.h); errors name it.
  Status Load(const std::string& path);
  // The models and pattern statistics, as a model file.
  nlohmann::json Save(const RequestTrace& trace) const;
  // Refits on the labels seen so far (the end of a training run).
  void FinalRetrain() {
    if (cost_cursor_.rows > 0 || cursor_.rows > 0) Retrain();
  }

  bool Access(const Request& r, int64_t index) override {
    Observe(r, index);
    const uint32_t x = r.obj;
    if (Resident(x)) {
      UpdateSize(r, [&] { EvictOne(index, x); });
      return true;
    }
    if (!Fits(r.obj_size)) return false;
    // Before the first fit a write to a file that is not resident and
    // already holds other bytes (an append) does not admit it: LRU would
    // copy in the whole file on each append of a cyclic writer (partd
    // appending to every shuffle partition in turn) and churn.
    if (!live_model_.fitted() && r.kind == RequestKind::kWrite && r.obj_size > r.bytes) return false;
    Flush();
    const double mine = Key(x, index);
    if (mine == kDead) return false;
    if (used_ + r.obj_size > capacity_) {
      // Admit only if the bytes to free all belong to files due later.
      const bool all = residents_.size() <= 4 * kCandidates;
      residents_.DistinctCandidates(all ? residents_.size() : kCandidates, &cand_);
      keys_.clear();
      for (uint32_t v : cand_) keys_.push_back({Key(v, index), v});
      // The latest due first; a heap, as few are usually needed.
      std::make_heap(keys_.begin(), keys_.end());
      int64_t freeable = capacity_ - used_;
      size_t victims = 0;
      for (auto end = keys_.end(); end != keys_.begin() && freeable < r.obj_size; ++victims) {
        std::pop_heap(keys_.begin(), end--);
        if (end->first <= mine) return false;
        freeable += ResidentSize(end->second);
      }
      if (freeable < r.obj_size) return false;
      for (size_t i = 0; i < victims; ++i) Evict(keys_[keys_.size() - 1 - i].second);
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
    costs_.Death(x, [&](CostRow& row, double cost) { CostLabel(row, cost); });
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
            {"reuse_accuracy", share(reuse_right_, evaluated_)},
            {"cost_evaluated", cost_evaluated_},
            {"read_again_accuracy", share(live_right_, cost_evaluated_)},
            {"cost_within_2x", share(cost_within_2x_, live_evaluated_)}};
  }

 private:
  void SetPath(uint32_t x, const std::string& path) {
    FileState& f = files_[x];
    f.pattern = interner_.Id(PathInterner::Pattern(path));
    std::string ext = ".";
    ext += PathInterner::Extension(path);
    f.ext = interner_.Id(ext);
    f.temp = path.find(".temp") != std::string::npos || path.find("/tmp/") != std::string::npos;
    f.path_set = true;
  }

  // The expected cost of a pattern's files from its labels: the mean cost
  // of those read again over the share read again. REQUIRES: Known(pattern).
  double PatternCost(int pattern) const {
    const PatternStats& ps = patterns_[static_cast<size_t>(pattern)];
    if (ps.live_n == 0) return kNeverCost;
    const double n = static_cast<double>(ps.live_n);
    return std::expm1(ps.live_sum / n) * static_cast<double>(ps.cost_n) / n;
  }

  bool Known(int pattern) const {
    const auto p = static_cast<size_t>(pattern);
    return p < patterns_.size() && patterns_[p].cost_n >= kMinPatternLabels;
  }

  // The eviction key in requests: when the file is due (last access +
  // predicted cost); kDead for files predicted never to be read again or
  // overdue by more than their cost. The largest key is evicted first.
  double Key(uint32_t x, int64_t now) const {
    const FileState& f = files_[x];
    const auto last = static_cast<double>(f.cost_index), at = static_cast<double>(now);
    // Before the first fit, classes evicted in this order: a temporary
    // file read in full since its last write (a spill its reader has
    // consumed), the oldest first; files the trace did not write (raw
    // input) and empty ones, LRU; an output the trace wrote that a reader
    // has since read in full (a training shard after its first epoch), the
    // one used last first (a newcomer does not displace it, as for unknown
    // patterns below); an output the trace wrote and no reader has read in
    // full yet, the one used last first (its reader comes before the next
    // epoch's); and last a temporary file written and not yet read back (a
    // spill or shuffle file its reader is about to consume), LRU.
    if (!live_model_.fitted()) {
      if (f.consumed && f.temp) return 1.0 + 1.0 / (1.0 + last);
      if (!trace_.objects[x].created || f.size == 0) return -last;
      if (f.consumed) return -1e15 + last / (at + 1);
      if (!f.temp) return -2e15 + last / (at + 1);
      return -3e15 - last;
    }
    // Among files of unknown patterns the one used last goes first: under
    // a cyclic re-read (raw input read by each daily run) it is needed last.
    if (!Known(f.pattern)) return at + kUnknownCost + last / (at + 1);
    // A prediction made while the pattern was unknown: its mean cost since.
    double cost = f.cost_known ? f.cost : PatternCost(f.pattern);
    // A temporary file's readers consume it (a shuffle file read once per
    // slice, a spill read back whole): what it can still serve is the share
    // not read since its last write, so its cost grows as that shrinks, and
    // once it is all read it is dead.
    if (f.temp && f.size > 0) {
      const double unread = 1.0 - static_cast<double>(f.read_since_write) / static_cast<double>(f.size);
      if (unread <= 0) return kDead;
      cost /= unread;
    }
    if (cost >= kDeadCost) return kDead;
    const double due = last + cost;
    if (at <= due) return due;
    return at - due > std::max(cost, kMinOverdue) ? kDead : at;
  }

  void Evict(uint32_t v) {
    residents_.Erase(v);
    DropResident(v);
  }

  void EvictOne(int64_t now, uint32_t keep) {
    Flush();
    residents_.Candidates(kCandidates, &cand_);
    uint32_t best = keep;
    double best_key = 0;
    for (uint32_t v : cand_) {
      if (v == keep && cand_.size() > 1) continue;
      const double k = Key(v, now);
      if (best == keep || k > best_key || (k == best_key && v < best)) {
        best = v;
        best_key = k;
      }
    }
    Evict(best);
  }

  void Features(const Request& r, int64_t index, const FileState& f, float* x) const {
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
    x[16] = f.last_index < 0 ? -1.f : static_cast<float>(std::log1p(static_cast<double>(index - f.last_index)));
    x[17] = static_cast<float>(std::log1p(static_cast<double>(index - f.first_index)));
    // How far the issuing stage's current run is: with the same stage's
    // earlier runs this tells how many of its requests are still to come.
    x[18] = r.group < group_runs_.size() ? static_cast<float>(group_runs_[r.group].requests) : 0.f;
  }

  // Fills the pattern columns from `stats` (patterns_ or fitted_patterns_).
  void FillPatternStats(float* x, const std::vector<PatternStats>& stats) const {
    const auto p = static_cast<size_t>(x[7]);
    const PatternStats* s = p < stats.size() ? &stats[p] : nullptr;
    const bool c = s != nullptr && s->cost_n > 0, l = c && s->live_n > 0;
    x[kPatternCost] = l ? static_cast<float>(s->live_sum / static_cast<double>(s->live_n)) : -1.f;
    x[kPatternCount] = c ? static_cast<float>(std::log1p(static_cast<double>(s->cost_n))) : 0.f;
    x[kPatternLive] = c ? static_cast<float>(static_cast<double>(s->live_n) / static_cast<double>(s->cost_n)) : -1.f;
    const bool u = s != nullptr && s->reuse_n > 0;
    x[kPatternReuse] = u ? static_cast<float>(s->reuse_sum / static_cast<double>(s->reuse_n)) : -1.f;
  }

  PatternStats& Pattern(float id) {
    const auto p = static_cast<size_t>(id);
    if (p >= patterns_.size()) patterns_.resize(p + 1);
    return patterns_[p];
  }

  // A write whose bytes all land past the file's old end (a shuffle
  // spill appended to, a log) keeps what the earlier accesses could be
  // read as; any other write replaces bytes and ends them.
  static bool IsAppend(const Request& r, const FileState& f) {
    return f.size > 0 && r.obj_size - r.bytes >= f.size;
  }

  // Labels, state, prediction and training for one access.
  void Observe(const Request& r, int64_t index) {
    const int64_t now = r.time_us;
    CompleteUpTo(now);
    costs_.Advance(now, [&](CostRow& row, double cost) { CostLabel(row, cost); });
    if (r.group >= group_runs_.size()) group_runs_.resize(r.group + 1);
    GroupRun& run = group_runs_[r.group];
    if (run.last_us < 0 || now - run.last_us > kHorizonUs) run.requests = 0;  // a new run
    run.last_us = now;
    ++run.requests;
    FileState& f = files_[r.obj];
    // The path is read at the first access: an online cache's trace grows.
    if (!f.path_set) SetPath(r.obj, trace_.objects[r.obj].path);
    const bool first = f.first_us < 0;
    if (first) {
      f.first_us = now;
      f.first_index = index;
    }
    if (f.last_us >= 0 && now - f.last_us > kHorizonUs) {  // a new burst of use
      f.reads = 0;
      f.read_bytes = 0;
    }
    if (r.kind == RequestKind::kRead) {
      for (int64_t id : f.pending) {
        Sample& s = samples_[static_cast<size_t>(id - base_)];
        if (now - s.time_us <= kHorizonUs) {
          s.future_bytes += r.bytes;
          s.last_read_us = now;
        }
      }
      costs_.Read(r.obj, index, r.bytes, [&](CostRow& row, double cost) { CostLabel(row, cost); });
      ++f.reads;
      f.read_bytes += r.bytes;
      f.read_since_write += r.bytes;
      f.consumed = f.consumed || (r.obj_size > 0 && f.read_since_write >= r.obj_size);
    } else if (r.kind == RequestKind::kWrite) {
      f.read_since_write = 0;
      f.consumed = false;
    }
    if (r.kind == RequestKind::kWrite && !IsAppend(r, f)) {
      // An overwrite ends what the earlier accesses could still be read as.
      costs_.Death(r.obj, [&](CostRow& row, double cost) { CostLabel(row, cost); });
    }
    f.size = r.obj_size;
    Sample s;
    Features(r, index, f, s.x.data());
    FillPatternStats(s.x.data(), fitted_patterns_);
    s.time_us = now;
    s.obj = r.obj;
    s.size = std::max<int64_t>(r.obj_size, 1);
    s.first = first;
    s.awaiting = reuse_model_.fitted();
    f.last_us = now;
    f.last_index = index;
    f.pending.push_back(base_ + static_cast<int64_t>(samples_.size()));
    samples_.push_back(s);
    Pending p{r.obj, s.awaiting ? &samples_.back() : nullptr, nullptr, false, false, 0, 0};
    // A rename is metadata only: the write's cost sample stays open.
    if (r.kind != RequestKind::kRename) {
      CostRow row{s.x, -1, -1, live_model_.fitted()};
      if (row.awaiting) {
        p.known = Known(f.pattern);
        // A pattern whose files all cost about the same (raw input re-read
        // by the daily run) is its own best predictor.
        if (r.kind == RequestKind::kRead && p.known) {
          const PatternStats& ps = patterns_[static_cast<size_t>(f.pattern)];
          const double n = static_cast<double>(ps.live_n), mean = n > 0 ? ps.live_sum / n : 0;
          if (n > 0 && ps.live_sq / n - mean * mean < kConsistentVar) {
            p.consistent = true;
            p.pattern_log_cost = mean;
            p.pattern_live = n / static_cast<double>(ps.cost_n);
          }
        }
      }
      f.cost_index = index;
      CostRow& opened = costs_.Open(r.obj, now, index, r.obj_size, row);
      if (row.awaiting) p.cost = &opened;
    }
    if (p.sample != nullptr || p.cost != nullptr) {
      pending_.push_back(p);
      pending_x_.insert(pending_x_.end(), s.x.begin(), s.x.end());
    }
    if (schedule_.Due(index, std::max(cost_cursor_.rows, cursor_.rows))) Retrain();
  }

  // Makes the queued predictions, one model call per model for all.
  void Flush() {
    if (pending_.empty()) return;
    const size_t n = pending_.size();
    bool cost = false, life = false;
    for (const Pending& p : pending_) {
      cost = cost || p.cost != nullptr;
      life = life || p.sample != nullptr;
    }
    pred_.resize(4 * n);
    float *live = pred_.data(), *log_cost = live + n, *reuse = log_cost + n, *ttl = reuse + n;
    if (cost) {
      live_model_.PredictBatch(pending_x_.data(), n, kFeatures, live);
      if (cost_model_.fitted()) cost_model_.PredictBatch(pending_x_.data(), n, kFeatures, log_cost);
    }
    if (life) {
      reuse_model_.PredictBatch(pending_x_.data(), n, kFeatures, reuse);
      ttl_model_.PredictBatch(pending_x_.data(), n, kFeatures, ttl);
    }
    for (size_t i = 0; i < n; ++i) {
      const Pending& p = pending_[i];
      if (p.sample != nullptr) {
        p.sample->pred_reuse = std::max(0.f, std::expm1(reuse[i]));
        p.sample->pred_ttl_s = std::max(0.f, std::expm1(ttl[i]));
        p.sample->awaiting = false;
      }
      if (p.cost == nullptr) continue;
      // Expected cost = cost if read again / probability of a next read
      // (a hurdle model: the "never" labels do not drag the cost).
      double l = std::clamp(static_cast<double>(live[i]), 0.0, 1.0);
      double c = cost_model_.fitted() ? static_cast<double>(log_cost[i]) : std::log1p(kNeverCost);
      p.cost->pred_live = static_cast<float>(l);
      p.cost->pred_log_cost = static_cast<float>(c);
      p.cost->awaiting = false;
      if (p.consistent) {
        c = p.pattern_log_cost;
        l = p.pattern_live;
      }
      FileState& f = files_[p.obj];
      f.cost = l < kMinLive ? kNeverCost : std::max(0.0, std::expm1(c)) / l;
      f.cost_known = p.known;
    }
    pending_.clear();
    pending_x_.clear();
  }

  void CostLabel(const CostRow& row, double cost) {
    if (row.awaiting) Flush();
    const bool live = cost < kNeverCost;
    const float y = static_cast<float>(std::log1p(cost));
    PatternStats& ps = Pattern(row.x[7]);
    ++ps.cost_n;
    if (live) {
      ++ps.live_n;
      ps.live_sum += y;
      ps.live_sq += static_cast<double>(y) * y;
    }
    std::copy(row.x.begin(), row.x.end(), cost_x_.begin() + static_cast<ptrdiff_t>(cost_cursor_.slot * kFeatures));
    cost_y_[cost_cursor_.slot] = y;
    cost_live_[cost_cursor_.slot] = live ? 1.f : 0.f;
    cost_cursor_.Advance();
    if (row.pred_live >= 0) {
      ++cost_evaluated_;
      live_right_ += (row.pred_live >= 0.5f) == live;
      if (live) {
        ++live_evaluated_;
        const double a = std::max(cost, 1.0), p = std::max(std::expm1(static_cast<double>(row.pred_log_cost)), 1.0);
        cost_within_2x_ += p <= 2 * a && a <= 2 * p;
      }
    }
    schedule_.AddLabel();
  }

  void CompleteUpTo(int64_t now) {
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

  // The lifetime-horizon labels of a sample: future read bytes and time to
  // the last read within the hour.
  void Complete(int64_t id) {
    Sample& s = samples_[static_cast<size_t>(id - base_)];
    if (s.done) return;
    if (s.awaiting) Flush();
    s.done = true;
    const double reuse = static_cast<double>(s.future_bytes) / static_cast<double>(s.size);
    const double ttl_s = s.last_read_us < 0 ? 0 : static_cast<double>(s.last_read_us - s.time_us) * 1e-6;
    if (s.pred_reuse >= 0) {
      ++evaluated_;
      const double a = std::max(ttl_s, 1.0), p = std::max<double>(s.pred_ttl_s, 1.0);
      const bool ok = p <= 2 * a && a <= 2 * p;
      within_2x_ += ok;
      reuse_right_ += (s.pred_reuse >= kReusedShare) == (reuse > 0);
      if (s.first) {
        ++files_evaluated_;
        files_within_2x_ += ok;
      }
    }
    std::copy(s.x.begin(), s.x.end(), window_x_.begin() + static_cast<ptrdiff_t>(cursor_.slot * kFeatures));
    window_reuse_[cursor_.slot] = static_cast<float>(std::log1p(reuse));
    window_ttl_[cursor_.slot] = static_cast<float>(std::log1p(ttl_s));
    PatternStats& ps = Pattern(s.x[7]);
    ++ps.reuse_n;
    ps.reuse_sum += static_cast<double>(window_reuse_[cursor_.slot]);
    cursor_.Advance();
  }

  // The first `rows` rows of `x` with fresh pattern columns.
  std::vector<float> TrainingRows(const std::vector<float>& x, size_t rows) const {
    std::vector<float> out = Prefix(x, rows * kFeatures);
    for (size_t i = 0; i < rows; ++i) FillPatternStats(&out[i * kFeatures], patterns_);
    return out;
  }

  void Retrain() {
    Flush();
    // Warm-started models stay until a quarter of a window of this trace's
    // own labels can replace them.
    if (warm_ && std::max(cost_cursor_.rows, cursor_.rows) < kTrainWindow / 4) {
      schedule_.Refitted();
      return;
    }
    warm_ = false;
    // The four training sets, then the four fits at once: each fit is
    // single-threaded and seeded, so running them side by side changes
    // nothing but the wall time.
    struct Job {
      GbdtRegressor* model;
      std::vector<float> x, y;
      Status status;
    };
    std::vector<Job> jobs;
    if (cost_cursor_.rows > 0) {
      const size_t n = cost_cursor_.rows;
      std::vector<float> x = TrainingRows(cost_x_, n);
      std::vector<float> lx, ly;  // the rows of files read again
      for (size_t i = 0; i < n; ++i) {
        if (cost_live_[i] == 0.f) continue;
        lx.insert(lx.end(), x.begin() + static_cast<ptrdiff_t>(i * kFeatures),
                  x.begin() + static_cast<ptrdiff_t>((i + 1) * kFeatures));
        ly.push_back(cost_y_[i]);
      }
      jobs.push_back({&live_model_, std::move(x), Prefix(cost_live_, n), {}});
      if (!ly.empty()) jobs.push_back({&cost_model_, std::move(lx), std::move(ly), {}});
    }
    if (cursor_.rows > 0) {
      std::vector<float> x = TrainingRows(window_x_, cursor_.rows);
      jobs.push_back({&reuse_model_, x, Prefix(window_reuse_, cursor_.rows), {}});
      jobs.push_back({&ttl_model_, std::move(x), Prefix(window_ttl_, cursor_.rows), {}});
    }
    // Predictions until the next refit read the statistics these rows were
    // given: a pattern's columns are one value over all of its training
    // rows, so a tree may split right beside it, and statistics that kept
    // drifting with each new label would carry its files across the split
    // (a run's output shards, read again on every earlier day, rated dead
    // on the sixth).
    fitted_patterns_ = patterns_;
    {
      std::vector<std::jthread> fits;
      for (Job& j : jobs) fits.emplace_back([&j] { j.status = j.model->Fit(j.x, kFeatures, j.y); });
    }
    bool ok = true;
    for (const Job& j : jobs) ok = ok && j.status.ok();
    retrains_ += ok;
    schedule_.Refitted();
  }

  std::vector<FileState> files_;
  std::vector<PatternStats> patterns_;
  std::vector<PatternStats> fitted_patterns_;  // patterns_ at the last refit (or load)
  std::vector<GroupRun> group_runs_;
  ResidentSet residents_;
  PathInterner interner_;
  CostLabeler<CostRow> costs_;
  GbdtRegressor live_model_, cost_model_, reuse_model_, ttl_model_;
  std::vector<float> cost_x_ = std::vector<float>(kTrainWindow * kFeatures);
  std::vector<float> cost_y_ = std::vector<float>(kTrainWindow);     // log1p(cost)
  std::vector<float> cost_live_ = std::vector<float>(kTrainWindow);  // 1 = read again
  WindowCursor cost_cursor_;
  std::deque<Sample> samples_;
  int64_t base_ = 0;  // id of samples_.front()
  std::vector<float> window_x_ = std::vector<float>(kTrainWindow * kFeatures);
  std::vector<float> window_reuse_ = std::vector<float>(kTrainWindow);
  std::vector<float> window_ttl_ = std::vector<float>(kTrainWindow);
  WindowCursor cursor_;
  RetrainSchedule schedule_;
  bool warm_ = false;  // the models came from a model file
  int64_t retrains_ = 0;
  int64_t evaluated_ = 0, within_2x_ = 0, reuse_right_ = 0, files_evaluated_ = 0, files_within_2x_ = 0;
  int64_t cost_evaluated_ = 0, live_right_ = 0, live_evaluated_ = 0, cost_within_2x_ = 0;
  std::vector<uint32_t> cand_;
  std::vector<std::pair<double, uint32_t>> keys_;
  std::vector<Pending> pending_;
  std::vector<float> pending_x_;  // their feature rows
  std::vector<float> pred_;
};

constexpr const char* kModelFormat = "frugal-smartcache-model";
constexpr int kModelVersion = 1;
constexpr const char* kModelNames[] = {"live", "cost", "reuse", "ttl"};

nlohmann::json SmartCache::Save(const RequestTrace& trace) const {
  nlohmann::json patterns = nlohmann::json::array();
  // The statistics the saved models were fitted with.
  for (const PatternStats& ps : fitted_patterns_) {
    patterns.push_back({ps.cost_n, ps.live_n, ps.live_sum, ps.live_sq, ps.reuse_n, ps.reuse_sum});
  }
  nlohmann::json models = nlohmann::json::object();
  const GbdtRegressor* m[] = {&live_model_, &cost_model_, &reuse_model_, &ttl_model_};
  for (int i = 0; i < 4; ++i) models[kModelNames[i]] = m[i]->fitted() ? m[i]->ToJson() : nlohmann::json();
  return {{"format", kModelFormat},
          {"version", kModelVersion},
          {"features", kFeatures},
          {"trained_on", {{"trace", trace.source}, {"requests", trace.requests.size()},
                          {"capacity_bytes", capacity_}, {"retrains", retrains_}}},
          {"interned", interner_.Keys()},
          {"patterns", std::move(patterns)},
          {"models", std::move(models)}};
}

Status SmartCache::Load(const std::string& path) {
  const std::string what = "smartcache model " + path;
  auto bad = [&](const std::string& why) { return InvalidArgument(what + ": " + why); };
  Result<nlohmann::json> parsed = ReadJsonFile(path);
  if (!parsed.ok()) return parsed.status().WithPrefix("smartcache model");
  const nlohmann::json& j = *parsed;
  if (!j.is_object() || !j.contains("format") || j["format"] != kModelFormat) {
    return bad("not a smartcache model (no \"format\": \"" + std::string(kModelFormat) + "\"; write one with frugal cache train)");
  }
  if (!j.contains("version") || j["version"] != kModelVersion) return bad("unsupported version");
  if (!j.contains("features") || j["features"] != kFeatures) return bad("expected " + std::to_string(kFeatures) + " features");
  if (!j.contains("interned") || !j["interned"].is_array()) return bad("\"interned\" is not a list");
  for (const auto& k : j["interned"]) {
    if (!k.is_string()) return bad("\"interned\" holds a non-string");
    interner_.Id(k.get<std::string>());
  }
  if (interner_.size() != j["interned"].size()) return bad("\"interned\" repeats a key");
  if (!j.contains("patterns") || !j["patterns"].is_array() || j["patterns"].size() > interner_.size()) {
    return bad("\"patterns\" is not a list of at most one entry per interned key");
  }
  for (const auto& e : j["patterns"]) {
    if (!e.is_array() || e.size() != 6) return bad("a pattern entry is not 6 numbers");
    for (const auto& v : e) {
      if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
        return bad("a pattern entry holds a negative or non-finite number");
      }
    }
    PatternStats ps;
    ps.cost_n = static_cast<int64_t>(std::min(e[0].get<double>(), 1e15));
    ps.live_n = static_cast<int64_t>(std::min(e[1].get<double>(), 1e15));
    ps.live_sum = e[2].get<double>();
    ps.live_sq = e[3].get<double>();
    ps.reuse_n = static_cast<int64_t>(std::min(e[4].get<double>(), 1e15));
    ps.reuse_sum = e[5].get<double>();
    if (ps.live_n > ps.cost_n) return bad("a pattern has more re-read labels than labels");
    patterns_.push_back(ps);
  }
  if (!j.contains("models") || !j["models"].is_object()) return bad("no \"models\"");
  GbdtRegressor* m[] = {&live_model_, &cost_model_, &reuse_model_, &ttl_model_};
  for (int i = 0; i < 4; ++i) {
    const nlohmann::json* b = j["models"].contains(kModelNames[i]) ? &j["models"][kModelNames[i]] : nullptr;
    if (b == nullptr) return bad(std::string("no model '") + kModelNames[i] + "'");
    if (b->is_null()) continue;  // never fitted on the training trace
    FRUGAL_RETURN_IF_ERROR(m[i]->FromJson(*b, kFeatures, what + ": model '" + kModelNames[i] + "'"));
  }
  if (cost_model_.fitted() && !live_model_.fitted()) return bad("a cost model without a read-again model");
  if (ttl_model_.fitted() != reuse_model_.fitted()) return bad("only one of the reuse and ttl models");
  warm_ = live_model_.fitted() || reuse_model_.fitted();
  fitted_patterns_ = patterns_;
  return Status::Ok();
}

}  // namespace

std::unique_ptr<CachePolicy> NewSmartCache(const PolicyOptions& o) {
  return std::make_unique<SmartCache>(o);
}

Result<std::unique_ptr<CachePolicy>> NewSmartCacheWithModel(const PolicyOptions& o) {
  auto p = std::make_unique<SmartCache>(o);
  if (!o.model_path.empty()) FRUGAL_RETURN_IF_ERROR(p->Load(o.model_path));
  return std::unique_ptr<CachePolicy>(std::move(p));
}

Result<nlohmann::json> TrainSmartCacheModel(const RequestTrace& trace, const PolicyOptions& options) {
  if (options.capacity_bytes <= 0) {
    return InvalidArgument("cache size must be > 0 bytes, got " + std::to_string(options.capacity_bytes));
  }
  PolicyOptions o = options;
  o.trace = &trace;
  auto p = std::make_unique<SmartCache>(o);
  if (!o.model_path.empty()) FRUGAL_RETURN_IF_ERROR(p->Load(o.model_path));
  const int64_t n = static_cast<int64_t>(trace.requests.size());
  for (int64_t i = 0; i < n; ++i) p->Apply(trace.requests[static_cast<size_t>(i)], i);
  p->FinalRetrain();
  return p->Save(trace);
}

Status CheckSmartCacheModel(const std::string& path) {
  static const RequestTrace kEmpty;
  PolicyOptions o;
  o.capacity_bytes = 1;
  o.trace = &kEmpty;
  o.object_slots = 1;
  SmartCache p(o);
  return p.Load(path);
}

}  // namespace frugal::cache
