// A point in (steady) time by which a placement call must return. Every
// placer, the lower bounds, coarsening and refinement check one in their
// loops; passing it is an outcome (SolveStatus::kTimeLimit, with the best
// placement so far), never an error. A value; thread-safe to read.
#ifndef FRUGAL_PLACE_DEADLINE_H_
#define FRUGAL_PLACE_DEADLINE_H_

#include <algorithm>
#include <chrono>
#include <cmath>

namespace frugal::place {

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  // Default: never passes.
  Deadline() = default;
  // `seconds` from now; infinite or over a year = never.
  static Deadline In(double seconds) {
    Deadline d;
    if (!(seconds < kNeverS)) return d;
    d.never_ = false;
    d.at_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(std::max(0.0, seconds)));
    return d;
  }
  // The earlier of the two.
  static Deadline Earlier(const Deadline& a, const Deadline& b) {
    if (a.never_) return b;
    if (b.never_) return a;
    return a.at_ <= b.at_ ? a : b;
  }

  bool never() const { return never_; }
  bool Passed() const { return !never_ && Clock::now() >= at_; }
  // Seconds left, >= 0; +inf when it never passes.
  double LeftS() const {
    if (never_) return INFINITY;
    return std::max(0.0, std::chrono::duration<double>(at_ - Clock::now()).count());
  }

 private:
  static constexpr double kNeverS = 365.0 * 86400;
  bool never_ = true;
  Clock::time_point at_{};
};

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_DEADLINE_H_
