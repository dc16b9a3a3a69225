#include "frugal/share/filter_order.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace frugal::share {

size_t FilterChunkSize(size_t n) {
  const auto root = static_cast<size_t>(std::sqrt(static_cast<double>(n)));
  return std::max<size_t>(1, std::min(root, n / kSchedulerParallelism + 1));
}

void FilterOrderKeys(const FilterOrder& order, size_t n, SplitMix64* rng,
                     std::vector<double>* keys) {
  const size_t chunk = FilterChunkSize(n);
  const auto running = static_cast<size_t>(std::max(order.running, 1));
  keys->resize(n);
  double t = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i % chunk == 0) t = static_cast<double>((i / chunk) / running * chunk);
    t += order.redrawn() ? 1.0 + order.jitter * (2.0 * rng->Uniform() - 1.0) : 1.0;
    (*keys)[i] = t;
  }
}

namespace {

Status Bad(std::string_view text, std::string_view why) {
  return InvalidArgument(fmt::format("filter order '{}': {} (want list, parallel:P or "
                                     "parallel:P:J with P in 1..{} and J in [0, 1])",
                                     text, why, kSchedulerParallelism));
}

bool ParseNumber(std::string_view s, double* out) {
  if (s.empty()) return false;
  std::string copy(s);
  char* end = nullptr;
  *out = std::strtod(copy.c_str(), &end);
  return end == copy.c_str() + copy.size() && std::isfinite(*out);
}

}  // namespace

Result<FilterOrder> ParseFilterOrder(std::string_view text) {
  if (text == "list") return FilterOrder{};
  constexpr std::string_view kPrefix = "parallel:";
  if (text.substr(0, kPrefix.size()) != kPrefix) return Bad(text, "unknown order");
  std::string_view rest = text.substr(kPrefix.size());
  const size_t colon = rest.find(':');
  double p = 0, j = 0;
  if (!ParseNumber(rest.substr(0, colon), &p) || p != std::floor(p) || p < 1 ||
      p > kSchedulerParallelism) {
    return Bad(text, "P is not an integer in 1..16");
  }
  if (colon != std::string_view::npos &&
      (!ParseNumber(rest.substr(colon + 1), &j) || j < 0 || j > 1)) {
    return Bad(text, "J is not a number in [0, 1]");
  }
  return FilterOrder{static_cast<int>(p), j};
}

std::string FilterOrderName(const FilterOrder& order) {
  if (order.node_list()) return "list";
  if (order.jitter == 0) return fmt::format("parallel:{}", order.running);
  return fmt::format("parallel:{}:{}", order.running, order.jitter);
}

}  // namespace frugal::share
