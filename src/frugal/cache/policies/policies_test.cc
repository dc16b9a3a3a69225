// Behaviour of individual policies on hand-made traces.
#include <gtest/gtest.h>

#include "frugal/cache/policy_registry.h"
#include "frugal/cache/simulator.h"

namespace frugal::cache {
namespace {

// Reads of object ids, each of `size` bytes, one per microsecond.
RequestTrace Reads(const std::vector<int>& ids, int64_t size = 100) {
  std::vector<TraceEvent> ev;
  for (size_t i = 0; i < ids.size(); ++i) {
    TraceEvent e;
    e.time_us = static_cast<int64_t>(i);
    e.object_id = static_cast<uint64_t>(ids[i]);
    e.size = e.length = size;
    ev.push_back(e);
  }
  return std::move(LoadRequestTrace(ev)).value();
}

std::vector<bool> Hits(const std::string& policy, const RequestTrace& t, int64_t capacity) {
  PolicyOptions o;
  o.capacity_bytes = capacity;
  o.trace = &t;
  auto p = std::move(MakePolicy(policy, o)).value();
  std::vector<bool> hits;
  for (size_t i = 0; i < t.requests.size(); ++i) hits.push_back(p->Access(t.requests[i], static_cast<int64_t>(i)));
  return hits;
}

TEST(LruPolicy, EvictsLeastRecentlyUsed) {
  // Capacity 2 objects: 1 2 1 3 -> evicts 2; then 1 hits, 2 misses.
  auto h = Hits("lru", Reads({1, 2, 1, 3, 1, 2}), 200);
  EXPECT_EQ(h, (std::vector<bool>{false, false, true, false, true, false}));
}

TEST(FifoPolicy, EvictsOldestInsertRegardlessOfHits) {
  auto h = Hits("fifo", Reads({1, 2, 1, 3, 1}), 200);
  EXPECT_EQ(h, (std::vector<bool>{false, false, true, false, false}));
}

TEST(LfuPolicy, KeepsTheFrequentObject) {
  auto h = Hits("lfu", Reads({1, 1, 1, 2, 3, 1}), 200);
  EXPECT_TRUE(h.back());
}

TEST(SievePolicy, KeepsVisitedObjectsAcrossAScan) {
  auto h = Hits("sieve", Reads({1, 2, 1, 3, 4, 1}), 300);
  EXPECT_TRUE(h.back());
}

TEST(BeladyPolicy, EvictsTheObjectNeededFarthestInTheFuture) {
  // 1 2 3 1 2: with room for two, Belady keeps 1 and 2 (bypasses 3).
  auto h = Hits("belady", Reads({1, 2, 3, 1, 2}), 200);
  EXPECT_EQ(h, (std::vector<bool>{false, false, false, true, true}));
}

TEST(BeladyPolicy, DoesNotAdmitObjectsNeverReadAgain) {
  auto t = Reads({1, 2, 1});
  PolicyOptions o;
  o.capacity_bytes = 1000;
  o.trace = &t;
  auto p = std::move(MakePolicy("belady", o)).value();
  p->Access(t.requests[0], 0);
  p->Access(t.requests[1], 1);
  EXPECT_TRUE(p->Resident(t.requests[0].obj));
  EXPECT_FALSE(p->Resident(t.requests[1].obj));
}

TEST(ArcPolicy, ScanResistantAfterWarmup) {
  // A hot pair survives a one-pass scan of new objects.
  std::vector<int> ids = {1, 2, 1, 2, 1, 2};
  for (int i = 10; i < 14; ++i) ids.push_back(i);
  ids.push_back(1);
  ids.push_back(2);
  auto h = Hits("arc", Reads(ids), 400);
  EXPECT_TRUE(h[h.size() - 2]);
}

TEST(SmartCachePolicy, ReportsModelAccuracyFields) {
  auto t = Reads({1, 2, 3, 1, 2, 3});
  SimulationOptions o;
  auto r = SimulateOne(t, "smartcache", 1000, o);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->report.is_object());
  EXPECT_TRUE(r->report.contains("lifetime_within_2x"));
  EXPECT_TRUE(r->report.contains("reuse_accuracy"));
  EXPECT_TRUE(r->report.contains("retrains"));
}

}  // namespace
}  // namespace frugal::cache
