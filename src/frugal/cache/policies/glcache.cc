// GL-Cache, group-level learned eviction (Yang et al., FAST'23), size-aware
// and online. Admitted objects are appended to the open group; a group
// closes once it holds 1/kGroups of the capacity in bytes (or kMaxObjects
// objects), so groups are runs of objects by insertion order. Every
// kSnapshotEvery requests each closed resident group's features are
// recorded (age, bytes, objects, hits in total and in the last two
// periods, the time since its last hit, the share of its objects hit, mean
// object size, the byte miss ratio when it was created, the share admitted
// by writes). The label of such a snapshot is the group's utility over the
// next `horizon` requests: for each of its objects' first read after the
// snapshot, bytes read / requests waited, over the group's bytes — the
// byte-miss form of the paper's sum of 1 / (time to next access x size).
// A GBDT (perf/gbdt.h) learns log1p(utility) from the features on a
// sliding window of labelled snapshots, refitted whenever a quarter of the
// window is new. To make room the closed groups are ranked by predicted
// utility (all in one model call, refreshed every kRankEvery requests) and
// the lowest is evicted; as in the paper's merge, its objects hit while in
// the group are kept, by hits per byte, up to half the group's bytes, and
// move to the open group. Until the first fit: FIFO over groups. The
// horizon is the cache's retention time at the snapshot (requests since
// the oldest resident group was created). Every access is admitted.
// Deterministic (no random choice; the seed only seeds the learner).
#include <algorithm>
#include <cmath>
#include <deque>

#include "frugal/cache/policies/policies.h"
#include "frugal/cache/policies/resizing_policy.h"
#include "frugal/cache/policies/training_window.h"
#include "frugal/perf/gbdt.h"

namespace frugal::cache {
namespace {

constexpr int kGroupFeatures = 12;
constexpr int64_t kGroups = 32;          // groups a full cache holds
constexpr size_t kMaxObjects = 4096;     // objects per group at most
constexpr int64_t kSnapshotEvery = 1024;
constexpr int64_t kRankEvery = 1024;
constexpr int64_t kPeriod = 4096;        // hit-count period, requests
constexpr int64_t kMinHorizon = 1024, kMaxHorizon = int64_t{1} << 22;
constexpr size_t kRetrainLabels = kTrainWindow / 4;
constexpr int64_t kNoGroup = -1;

struct Group {
  int64_t created = 0;       // request index
  int64_t bytes = 0;         // of resident members
  int64_t objects = 0;       // resident members
  int64_t hits = 0;
  int64_t hits_cur = 0, hits_prev = 0, period = 0;  // hits in the current / previous period
  int64_t last_hit = -1;
  double log_size_sum = 0;   // over members ever admitted
  int64_t admitted = 0, written = 0;
  float miss_ratio_at_creation = 0;
  bool resident = true;      // false once evicted
  std::vector<uint32_t> members;  // may hold objects that left since
  std::vector<int64_t> rows;      // open snapshot rows
};

struct ObjState {
  int64_t group = kNoGroup;  // the group it is (or was last) resident in
  int64_t last_read = -1;
  int64_t hits = 0;          // since it entered its group
};

struct GroupRow {
  float x[kGroupFeatures];
  int64_t group;
  int64_t at;       // request index of the snapshot
  int64_t horizon;
  double utility = 0;
};

class GlCache : public ResizingPolicy {
 public:
  explicit GlCache(const PolicyOptions& o)
      : ResizingPolicy(o), objs_(o.slots()), model_({30, 6, 0.3, o.seed}),
        group_bytes_(std::max<int64_t>(1, capacity_ / kGroups)) {}

  bool Access(const Request& r, int64_t index) override {
    Observe(r, index);
    const uint32_t x = r.obj;
    if (Resident(x)) {
      Group& g = group(objs_[x].group);
      ++objs_[x].hits;
      Roll(g, index);
      ++g.hits;
      ++g.hits_cur;
      g.last_hit = index;
      g.bytes += r.obj_size - ResidentSize(x);
      UpdateSize(r, [&] { EvictFor(index, x); });
      return true;
    }
    if (r.kind == RequestKind::kRead) miss_bytes_ += static_cast<double>(r.bytes);
    if (!Fits(r.obj_size)) return false;
    while (used_ + r.obj_size > capacity_) EvictFor(index, UINT32_MAX);
    AddResident(x, r.obj_size);
    objs_[x].hits = 0;
    Join(x, index, r.kind == RequestKind::kWrite);
    return false;
  }

  void Delete(uint32_t x) override {
    if (Resident(x)) Leave(x);
  }

  nlohmann::json Report() const override {
    return {{"retrains", retrains_}, {"labelled_snapshots", labelled_}, {"groups_evicted", evicted_groups_}};
  }

 private:
  Group& group(int64_t id) { return groups_[static_cast<size_t>(id - base_)]; }
  const Group& group(int64_t id) const { return groups_[static_cast<size_t>(id - base_)]; }

  void Roll(Group& g, int64_t index) {
    const int64_t p = index / kPeriod;
    if (p == g.period) return;
    g.hits_prev = p == g.period + 1 ? g.hits_cur : 0;
    g.hits_cur = 0;
    g.period = p;
  }

  // Appends x (resident) to the open group, opening one when it is full.
  void Join(uint32_t x, int64_t index, bool written) {
    if (open_ == kNoGroup || group(open_).bytes >= group_bytes_ || group(open_).members.size() >= kMaxObjects) {
      Group g;
      g.created = index;
      g.period = index / kPeriod;
      g.miss_ratio_at_creation = static_cast<float>(read_bytes_ > 0 ? miss_bytes_ / read_bytes_ : 1.0);
      open_ = base_ + static_cast<int64_t>(groups_.size());
      groups_.push_back(std::move(g));
      live_.push_back(open_);
    }
    Group& g = group(open_);
    g.members.push_back(x);
    g.bytes += ResidentSize(x);
    ++g.objects;
    ++g.admitted;
    g.written += written;
    g.log_size_sum += std::log2(static_cast<double>(std::max<int64_t>(ResidentSize(x), 1)));
    objs_[x].group = open_;
  }

  // x leaves the cache (evicted or deleted).
  void Leave(uint32_t x) {
    Group& g = group(objs_[x].group);
    g.bytes -= ResidentSize(x);
    --g.objects;
    DropResident(x);
    if (g.objects == 0 && objs_[x].group != open_) Retire(objs_[x].group);
  }

  void Retire(int64_t id) {
    Group& g = group(id);
    g.resident = false;
    g.members.clear();
    g.members.shrink_to_fit();
    live_.erase(std::find(live_.begin(), live_.end(), id));
    while (!groups_.empty() && !groups_.front().resident && groups_.front().rows.empty()) {
      groups_.pop_front();
      ++base_;
    }
  }

  void Features(const Group& g, int64_t index, float* x) const {
    const int64_t p = index / kPeriod;
    const int64_t cur = g.period == p ? g.hits_cur : 0;
    const int64_t prev = g.period == p ? g.hits_prev : g.period == p - 1 ? g.hits_cur : 0;
    int64_t hit_objects = 0;
    for (uint32_t m : g.members) hit_objects += Resident(m) && objs_[m].hits > 0 && &group(objs_[m].group) == &g;
    x[0] = static_cast<float>(std::log1p(static_cast<double>(index - g.created)));
    x[1] = static_cast<float>(std::log2(static_cast<double>(std::max<int64_t>(g.bytes, 1))));
    x[2] = static_cast<float>(std::log1p(static_cast<double>(g.objects)));
    x[3] = static_cast<float>(std::log1p(static_cast<double>(g.hits)));
    x[4] = static_cast<float>(std::log1p(static_cast<double>(cur)));
    x[5] = static_cast<float>(std::log1p(static_cast<double>(prev)));
    x[6] = g.last_hit < 0 ? -1.f : static_cast<float>(std::log1p(static_cast<double>(index - g.last_hit)));
    x[7] = g.objects > 0 ? static_cast<float>(hit_objects) / static_cast<float>(g.objects) : 0.f;
    x[8] = g.admitted > 0 ? static_cast<float>(g.log_size_sum / static_cast<double>(g.admitted)) : 0.f;
    x[9] = g.miss_ratio_at_creation;
    x[10] = g.admitted > 0 ? static_cast<float>(g.written) / static_cast<float>(g.admitted) : 0.f;
    x[11] = static_cast<float>(static_cast<double>(g.hits) / static_cast<double>(index - g.created + 1));
  }

  // Labels, snapshots and training for one access.
  void Observe(const Request& r, int64_t index) {
    if (r.kind == RequestKind::kRead) read_bytes_ += static_cast<double>(r.bytes);
    while (!rows_.empty() && rows_.front().at + rows_.front().horizon < index) Close();
    ObjState& s = objs_[r.obj];
    if (r.kind == RequestKind::kRead && s.group != kNoGroup && s.group >= base_) {
      Group& g = group(s.group);
      for (int64_t id : g.rows) {
        GroupRow& row = rows_[static_cast<size_t>(id - rows_base_)];
        if (row.at > s.last_read) row.utility += static_cast<double>(r.bytes) / static_cast<double>(index - row.at);
      }
    }
    if (r.kind == RequestKind::kRead) s.last_read = index;
    if (index - last_snapshot_ >= kSnapshotEvery) Snapshot(index);
    // Refit once a quarter of the window is new (sooner while young).
    if (new_labels_ >= std::max<size_t>(512, std::min(kRetrainLabels, static_cast<size_t>(labelled_) / 2))) {
      Retrain();
    }
  }

  void Snapshot(int64_t index) {
    last_snapshot_ = index;
    if (live_.empty()) return;
    const int64_t horizon = std::clamp(index - group(live_.front()).created, kMinHorizon, kMaxHorizon);
    for (int64_t id : live_) {
      if (id == open_) continue;
      Group& g = group(id);
      GroupRow row;
      Features(g, index, row.x);
      row.group = id;
      row.at = index;
      row.horizon = horizon;
      // The utility is per byte of the group as it was at the snapshot.
      row.utility = 0;
      g.rows.push_back(rows_base_ + static_cast<int64_t>(rows_.size()));
      rows_.push_back(row);
      row_bytes_.push_back(std::max<int64_t>(g.bytes, 1));
    }
  }

  void Close() {
    const GroupRow& row = rows_.front();
    const double utility = row.utility / static_cast<double>(row_bytes_.front());
    std::copy(row.x, row.x + kGroupFeatures, window_x_.begin() + static_cast<ptrdiff_t>(cursor_.slot * kGroupFeatures));
    // Scaled by the horizon so that labels of caches of any size are O(1).
    window_y_[cursor_.slot] = static_cast<float>(std::log1p(utility * static_cast<double>(row.horizon)));
    cursor_.Advance();
    ++new_labels_;
    ++labelled_;
    if (row.group >= base_) {
      Group& g = group(row.group);
      g.rows.erase(std::find(g.rows.begin(), g.rows.end(), rows_base_));
    }
    rows_.pop_front();
    row_bytes_.pop_front();
    ++rows_base_;
    while (!groups_.empty() && !groups_.front().resident && groups_.front().rows.empty()) {
      groups_.pop_front();
      ++base_;
    }
  }

  void Retrain() {
    new_labels_ = 0;
    if (model_.Fit(Prefix(window_x_, cursor_.rows * kGroupFeatures), kGroupFeatures, Prefix(window_y_, cursor_.rows)).ok()) {
      ++retrains_;
      ranked_at_ = -kRankEvery;  // re-rank with the new model
    }
  }

  // The closed resident groups by predicted utility, lowest last.
  void Rank(int64_t index) {
    ranked_at_ = index;
    ranking_.clear();
    std::vector<float> x;
    for (int64_t id : live_) {
      if (id == open_) continue;
      ranking_.push_back(id);
      x.resize(x.size() + kGroupFeatures);
      Features(group(id), index, &x[x.size() - kGroupFeatures]);
    }
    std::vector<float> pred(ranking_.size());
    model_.PredictBatch(x.data(), ranking_.size(), kGroupFeatures, pred.data());
    std::vector<size_t> order(ranking_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return pred[a] > pred[b]; });
    std::vector<int64_t> sorted;
    for (size_t i : order) sorted.push_back(ranking_[i]);
    ranking_ = std::move(sorted);
  }

  // The group to evict next: the lowest predicted utility (FIFO before a
  // model); the open group only when it is the last one.
  int64_t Victim(int64_t index) {
    if (model_.fitted()) {
      if (index - ranked_at_ >= kRankEvery) Rank(index);
      while (!ranking_.empty()) {
        const int64_t id = ranking_.back();
        if (id >= base_ && group(id).resident && id != open_) return id;
        ranking_.pop_back();
      }
      Rank(index);
      if (!ranking_.empty()) return ranking_.back();
    }
    for (int64_t id : live_) {
      if (id != open_) return id;
    }
    return open_;
  }

  // Frees space by evicting one group. `keep` (a resident that grew)
  // stays unless it is the only resident. Kept objects take at most half
  // the group's other bytes, so every call frees some.
  void EvictFor(int64_t index, uint32_t keep) {
    if (keep != UINT32_MAX && used_ <= ResidentSize(keep)) keep = UINT32_MAX;
    const int64_t id = Victim(index);
    Group& g = group(id);
    if (id == open_) open_ = kNoGroup;  // a fresh group takes the kept objects
    std::vector<uint32_t> members;
    members.swap(g.members);
    std::vector<uint32_t> hit;
    int64_t others = 0;
    for (uint32_t m : members) {
      if (!Resident(m) || objs_[m].group != id || m == keep) continue;
      others += ResidentSize(m);
      if (objs_[m].hits > 0) hit.push_back(m);
    }
    // The paper's merge keeps the most valuable objects of the evicted
    // groups: here hits per byte, up to half the group's bytes.
    auto density = [&](uint32_t m) {
      return static_cast<double>(objs_[m].hits) / static_cast<double>(std::max<int64_t>(ResidentSize(m), 1));
    };
    std::stable_sort(hit.begin(), hit.end(), [&](uint32_t a, uint32_t b) { return density(a) > density(b); });
    int64_t budget = others / 2;
    std::vector<uint32_t> retain;
    if (keep != UINT32_MAX && objs_[keep].group == id) retain.push_back(keep);
    for (uint32_t m : hit) {
      if (ResidentSize(m) > budget || (ResidentSize(m) == 0 && budget == 0)) continue;
      budget -= ResidentSize(m);
      retain.push_back(m);
    }
    std::sort(retain.begin(), retain.end());
    for (uint32_t m : members) {
      if (!Resident(m) || objs_[m].group != id) continue;
      g.bytes -= ResidentSize(m);
      --g.objects;
      if (!std::binary_search(retain.begin(), retain.end(), m)) DropResident(m);
    }
    ++evicted_groups_;
    Retire(id);
    for (uint32_t m : retain) {
      Join(m, index, false);
      objs_[m].hits = m == keep ? objs_[m].hits : objs_[m].hits / 2;
    }
  }

  std::vector<ObjState> objs_;
  std::deque<Group> groups_;
  int64_t base_ = 0;           // id of groups_.front()
  std::vector<int64_t> live_;  // resident group ids, oldest first
  int64_t open_ = kNoGroup;
  GbdtRegressor model_;
  const int64_t group_bytes_;
  std::deque<GroupRow> rows_;
  std::deque<int64_t> row_bytes_;
  int64_t rows_base_ = 0;
  int64_t last_snapshot_ = 0;
  std::vector<float> window_x_ = std::vector<float>(kTrainWindow * kGroupFeatures);
  std::vector<float> window_y_ = std::vector<float>(kTrainWindow);
  WindowCursor cursor_;
  size_t new_labels_ = 0;
  std::vector<int64_t> ranking_;
  int64_t ranked_at_ = 0;
  double read_bytes_ = 0, miss_bytes_ = 0;
  int64_t retrains_ = 0, labelled_ = 0, evicted_groups_ = 0;
};

}  // namespace

std::unique_ptr<CachePolicy> NewGlCache(const PolicyOptions& o) { return std::make_unique<GlCache>(o); }

}  // namespace frugal::cache
