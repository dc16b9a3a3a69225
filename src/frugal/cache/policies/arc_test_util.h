// Replaying a trace through ARC with either B2-trim rule, for the ARC tests.
#ifndef FRUGAL_CACHE_POLICIES_ARC_TEST_UTIL_H_
#define FRUGAL_CACHE_POLICIES_ARC_TEST_UTIL_H_

#include <cstdint>
#include <memory>

#include "frugal/cache/policies/policies.h"
#include "frugal/cache/request_trace.h"

namespace frugal::cache::testing {

struct Counts {
  int64_t hits = 0;
  int64_t hit_bytes = 0;
};

inline Counts Replay(std::unique_ptr<CachePolicy> p, const RequestTrace& t, int loops) {
  Counts c;
  const int64_t n = static_cast<int64_t>(t.requests.size());
  for (int l = 0; l < loops; ++l) {
    for (int64_t i = 0; i < n; ++i) {
      const Request& r = t.requests[i];
      if (p->Access(r, l * n + i)) {
        ++c.hits;
        c.hit_bytes += r.bytes;
      }
    }
  }
  return c;
}

inline Counts RunArc(const RequestTrace& t, int64_t capacity, ArcGhostTrim trim, int loops) {
  PolicyOptions o;
  o.capacity_bytes = capacity;
  o.trace = &t;
  return Replay(NewArc(o, trim), t, loops);
}

}  // namespace frugal::cache::testing

#endif  // FRUGAL_CACHE_POLICIES_ARC_TEST_UTIL_H_
