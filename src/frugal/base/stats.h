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

}  // namespace frugal

#endif  // FRUGAL_BASE_STATS_H_
