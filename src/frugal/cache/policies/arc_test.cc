// ARC's case IV trims ONE B2 ghost when the four lists reach 2c (FAST'03
// Fig. 4, libCacheSim's ARC.c), not every ghost until below 2c. On a
// looping trace with objects of varied sizes the two rules differ.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <vector>

#include "frugal/cache/policies/arc_test_util.h"
#include "frugal/cache/policies/policies.h"
#include "frugal/cache/policy_registry.h"
#include "frugal/cache/request_trace.h"

namespace frugal::cache {
namespace {

using testing::Counts;
using testing::Replay;
using testing::RunArc;


TEST(ArcPolicy, RegisteredArcIsThePapersOneGhostTrim) {
  // The first 2,000 cloudphysics requests replayed 25 times, 1 % cache.
  Result<RequestTrace> loaded = LoadRequestTrace("testdata/cache/cloudphysics_head.oracleGeneral.bin");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const RequestTrace& t = *loaded;
  const int64_t capacity = t.footprint_bytes / 100;
  PolicyOptions o;
  o.capacity_bytes = capacity;
  o.trace = &t;
  const Counts registered = Replay(std::move(MakePolicy("arc", o)).value(), t, 25);
  const Counts paper = RunArc(t, capacity, ArcGhostTrim::kPaper, 25);
  const Counts until_below = RunArc(t, capacity, ArcGhostTrim::kUntilBelow, 25);
  EXPECT_EQ(registered.hits, paper.hits);
  EXPECT_EQ(registered.hit_bytes, paper.hit_bytes);
  EXPECT_NE(paper.hits, until_below.hits) << "the looping trace no longer tells the two rules apart";
}

}  // namespace
}  // namespace frugal::cache
