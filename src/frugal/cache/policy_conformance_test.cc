// One conformance suite for every row of the policy table.
#include <gtest/gtest.h>

#include "frugal/cache/generated_test_trace.h"
#include "frugal/cache/policy_registry.h"
#include "frugal/cache/simulator.h"

namespace frugal::cache {
namespace {

// A small pipeline trace with every event kind.
const RequestTrace& PipelineTrace() {
  static const RequestTrace t = GeneratedTestTrace("join", 2, 2, 0.001);
  return t;
}

// Objects of mixed sizes read with a skewed popularity, no deletes.
const RequestTrace& ObjectTrace() {
  static const RequestTrace* t = [] {
    std::vector<TraceEvent> ev;
    uint64_t s = 7;
    for (int i = 0; i < 6000; ++i) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      const uint64_t r = s >> 33;
      TraceEvent e;
      e.time_us = i * 1000;
      e.object_id = (r % 7 == 0) ? r % 900 : r % 60;
      e.size = e.length = 1000 + static_cast<int64_t>(e.object_id % 13) * 700;
      ev.push_back(e);
    }
    return new RequestTrace(std::move(LoadRequestTrace(ev, "objects")).value());
  }();
  return *t;
}

// `n` whole reads of one object of `size` bytes, one per microsecond.
std::vector<TraceEvent> RepeatedReads(int n, uint64_t object_id, int64_t size) {
  std::vector<TraceEvent> ev;
  for (int i = 0; i < n; ++i) {
    TraceEvent e;
    e.time_us = i;
    e.object_id = object_id;
    e.size = e.length = size;
    ev.push_back(e);
  }
  return ev;
}

class PolicyConformance : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<CachePolicy> Make(const RequestTrace& t, int64_t capacity) {
    PolicyOptions o;
    o.capacity_bytes = capacity;
    o.trace = &t;
    auto p = MakePolicy(GetParam(), o);
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    return std::move(p).value();
  }

  // Replays `t`; checks capacity, the hit contract and deletes as it goes.
  std::vector<bool> Replay(const RequestTrace& t, int64_t capacity) {
    auto p = Make(t, capacity);
    std::vector<bool> hits;
    for (size_t i = 0; i < t.requests.size(); ++i) {
      const Request& r = t.requests[i];
      switch (r.kind) {
        case RequestKind::kRead:
        case RequestKind::kWrite: {
          const bool resident = p->Resident(r.obj);
          const bool hit = p->Access(r, static_cast<int64_t>(i));
          EXPECT_EQ(hit, resident) << "request " << i;
          if (r.obj_size > capacity) {
            EXPECT_FALSE(p->Resident(r.obj)) << "request " << i;
          }
          if (r.kind == RequestKind::kRead) hits.push_back(hit);
          break;
        }
        case RequestKind::kDelete: {
          const int64_t before = p->used_bytes();
          const int64_t size = p->Resident(r.obj) ? p->ResidentSize(r.obj) : 0;
          p->Delete(r.obj);
          EXPECT_FALSE(p->Resident(r.obj));
          EXPECT_EQ(p->used_bytes(), before - size) << "delete frees space at once";
          break;
        }
        case RequestKind::kRename:
          p->Rename(r, static_cast<int64_t>(i));
          break;
      }
      EXPECT_LE(p->used_bytes(), capacity) << "request " << i;
      EXPECT_GE(p->used_bytes(), 0);
      if (HasFailure()) break;
    }
    return hits;
  }
};

TEST_P(PolicyConformance, StaysWithinCapacityOnObjectTrace) {
  Replay(ObjectTrace(), 60000);
}

TEST_P(PolicyConformance, StaysWithinCapacityOnPipelineTrace) {
  const RequestTrace& t = PipelineTrace();
  Replay(t, t.footprint_bytes / 20);
}

TEST_P(PolicyConformance, IsDeterministic) {
  const RequestTrace& t = PipelineTrace();
  EXPECT_EQ(Replay(t, t.footprint_bytes / 50), Replay(t, t.footprint_bytes / 50));
}

TEST_P(PolicyConformance, HitsARepeatedSmallObjectWhenAdmitted) {
  auto t = LoadRequestTrace(RepeatedReads(10, 1, 100));
  ASSERT_TRUE(t.ok());
  auto hits = Replay(*t, 10000);  // S3-FIFO admits only objects under 10%
  EXPECT_FALSE(hits[0]);
  EXPECT_TRUE(hits.back()) << "a policy must keep the only object it is asked for";
}

TEST_P(PolicyConformance, NeverAdmitsAnObjectLargerThanTheCache) {
  auto t = LoadRequestTrace(RepeatedReads(4, 9, 5000));
  ASSERT_TRUE(t.ok());
  for (bool hit : Replay(*t, 4999)) EXPECT_FALSE(hit);
}

TEST_P(PolicyConformance, RejectsAZeroCapacity) {
  PolicyOptions o;
  o.capacity_bytes = 0;
  o.trace = &ObjectTrace();
  auto p = MakePolicy(GetParam(), o);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("cache size must be > 0"), std::string::npos);
}

std::vector<std::string> PolicyNames() {
  std::vector<std::string> names;
  for (const auto& row : Policies()) names.push_back(row.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, PolicyConformance, ::testing::ValuesIn(PolicyNames()),
                         [](const auto& info) { return info.param; });

TEST(PolicyRegistry, UnknownNameListsTheValidOnes) {
  PolicyOptions o;
  o.capacity_bytes = 10;
  o.trace = &ObjectTrace();
  auto p = MakePolicy("mru", o);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("unknown policy 'mru' (expected fifo, lru"), std::string::npos);
}

}  // namespace
}  // namespace frugal::cache
