// Small order statistics shared by the models and benchmarks.
#ifndef FRUGAL_BASE_STATS_H_
#define FRUGAL_BASE_STATS_H_

#include <algorithm>
#include <vector>

namespace frugal {

// The median (mean of the two middle values for an even count).
// REQUIRES: !values.empty().
inline double Median(std::vector<double> values) {
  const size_t n = values.size();
  const size_t mid = n / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  const double hi = values[mid];
  if (n % 2 == 1) return hi;
  return 0.5 * (*std::max_element(values.begin(), values.begin() + mid) + hi);
}

// The q-quantile (0 <= q <= 1), interpolated linearly between order
// statistics. REQUIRES: !values.empty().
inline double Quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double at = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<size_t>(at);
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (at - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

}  // namespace frugal

#endif  // FRUGAL_BASE_STATS_H_
