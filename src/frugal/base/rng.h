// SplitMix64, frugal's one pseudo-random generator: the same seed gives the
// same stream on every platform and standard library (unlike <random>'s
// distributions), which keeps every seeded result byte-for-byte stable.
// A value type; not thread-safe, give each thread its own.
#ifndef FRUGAL_BASE_RNG_H_
#define FRUGAL_BASE_RNG_H_

#include <cmath>
#include <cstdint>

namespace frugal {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n), unbiased (rejection). REQUIRES: n > 0.
  uint64_t Below(uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x = Next();
    while (x >= limit) x = Next();
    return x % n;
  }
  // Uniform in [0, 1) with 53 random bits.
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Exponential with this mean.
  double Exp(double mean) { return -mean * std::log1p(-Uniform()); }

 private:
  uint64_t state_;
};

}  // namespace frugal

#endif  // FRUGAL_BASE_RNG_H_
