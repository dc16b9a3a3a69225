#include "frugal/base/units.h"

#include <cmath>

#include <fmt/format.h>

namespace frugal {
namespace {

std::string Scaled(double v, double base, const char* const* suffixes, int n,
                   const char* unit) {
  int i = 0;
  double a = std::fabs(v);
  while (i + 1 < n && a >= base) {
    a /= base;
    v /= base;
    ++i;
  }
  if (i == 0) return fmt::format("{:.0f} {}{}", v, suffixes[0], unit);
  return fmt::format("{:.2f} {}{}", v, suffixes[i], unit);
}

}  // namespace

std::string HumanBytes(double bytes) {
  static const char* const kSuffix[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
  return Scaled(bytes, 1024.0, kSuffix, 6, "B");
}

std::string HumanFlops(double flops) {
  static const char* const kSuffix[] = {"", "K", "M", "G", "T", "P", "E"};
  return Scaled(flops, 1000.0, kSuffix, 7, "FLOP");
}

std::string HumanCount(double count) {
  static const char* const kSuffix[] = {"", "K", "M", "B", "T"};
  std::string s = Scaled(count, 1000.0, kSuffix, 5, "");
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace frugal
