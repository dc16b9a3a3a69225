// Bookkeeping shared by the learned policies (lrb, smartcache): the ring of
// labelled feature rows they train on and when they refit their models.
// Not thread-safe.
#ifndef FRUGAL_CACHE_POLICIES_TRAINING_WINDOW_H_
#define FRUGAL_CACHE_POLICIES_TRAINING_WINDOW_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace frugal::cache {

inline constexpr size_t kTrainWindow = 20000;  // labelled accesses kept for training

// The next slot to write in a ring of kTrainWindow rows and how many rows
// are filled.
struct WindowCursor {
  size_t slot = 0;
  size_t rows = 0;
  void Advance() {
    slot = (slot + 1) % kTrainWindow;
    rows = std::min(rows + 1, kTrainWindow);
  }
};

// The first `n` values of `v`.
inline std::vector<float> Prefix(const std::vector<float>& v, size_t n) {
  return std::vector<float>(v.begin(), v.begin() + static_cast<ptrdiff_t>(n));
}

// A refit is due at most every kCheckEvery requests (on the simulation
// clock, so runs are deterministic), once kMinNewLabels labels arrived
// since the last one — and, with a `new_share`, once that share of the
// rows in the window is new (a refit costs the whole window; a policy
// whose fits dominate its run time refits less often as its window fills).
class RetrainSchedule {
 public:
  static constexpr int64_t kCheckEvery = 512;
  static constexpr int64_t kMinNewLabels = 256;

  // Call on request `index`; true when the models should be refitted now.
  // `window_rows`: the rows the next fit would train on.
  bool Due(int64_t index, size_t window_rows = 0) {
    if (index - last_check_ < kCheckEvery) return false;
    last_check_ = index;
    return new_labels_ >= std::max<int64_t>(kMinNewLabels,
                                            static_cast<int64_t>(new_share_ * static_cast<double>(window_rows)));
  }
  // Default 0: every kMinNewLabels labels.
  void set_new_share(double share) { new_share_ = share; }
  void AddLabel() { ++new_labels_; }
  void Refitted() { new_labels_ = 0; }

 private:
  int64_t new_labels_ = 0;
  int64_t last_check_ = 0;
  double new_share_ = 0;
};

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_POLICIES_TRAINING_WINDOW_H_
