// Unit constants and human-readable formatting of sizes, FLOPs and times.
// Quantities carry their unit in their name (time_us, mem_bytes, bw_gbps).
#ifndef FRUGAL_BASE_UNITS_H_
#define FRUGAL_BASE_UNITS_H_

#include <cstdint>
#include <string>

namespace frugal {

inline constexpr int64_t kKiB = 1024;
inline constexpr int64_t kMiB = 1024 * kKiB;
inline constexpr int64_t kGiB = 1024 * kMiB;
inline constexpr double kGiga = 1e9;
inline constexpr double kTera = 1e12;

// "1.50 GiB", "512 B".
std::string HumanBytes(double bytes);
// "8.21 GFLOP", "1.2 TFLOP".
std::string HumanFlops(double flops);
// "25.56 M", "774.0 M", "1.3 B" — counts such as parameters.
std::string HumanCount(double count);

}  // namespace frugal

#endif  // FRUGAL_BASE_UNITS_H_
