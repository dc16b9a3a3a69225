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
// since the last one.
class RetrainSchedule {
 public:
  static constexpr int64_t kCheckEvery = 512;
  static constexpr int64_t kMinNewLabels = 256;

  // Call on request `index`; true when the models should be refitted now.
  bool Due(int64_t index) {
    if (index - last_check_ < kCheckEvery) return false;
    last_check_ = index;
    return new_labels_ >= kMinNewLabels;
  }
  void AddLabel() { ++new_labels_; }
  void Refitted() { new_labels_ = 0; }

 private:
  int64_t new_labels_ = 0;
  int64_t last_check_ = 0;
};

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_POLICIES_TRAINING_WINDOW_H_
