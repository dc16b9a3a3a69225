// Every online policy used as the mount uses it: created before any file is
// known (PolicyOptions::object_slots), over a trace whose objects appear as
// the requests reach them, and told of residency changes by an observer.
#include <gtest/gtest.h>

#include <set>

#include "frugal/cache/generated_test_trace.h"
#include "frugal/cache/policy_registry.h"

namespace frugal::cache {
namespace {

class Residency : public ResidencyObserver {
 public:
  void Admitted(uint32_t obj, int64_t) override { EXPECT_TRUE(in_.insert(obj).second) << obj; }
  void Dropped(uint32_t obj) override { EXPECT_EQ(in_.erase(obj), 1u) << obj; }
  const std::set<uint32_t>& in() const { return in_; }

 private:
  std::set<uint32_t> in_;
};

const RequestTrace& Loaded() {
  static const RequestTrace t = GeneratedTestTrace("text", 2, 2, 0.001);
  return t;
}

class OnlinePolicy : public ::testing::TestWithParam<std::string> {};

TEST_P(OnlinePolicy, GrowingTraceMatchesTheLoadedOne) {
  const RequestTrace& full = Loaded();
  const int64_t capacity = full.footprint_bytes / 20;
  RequestTrace live;
  live.groups = full.groups;
  live.has_paths = true;
  Residency seen;
  PolicyOptions o;
  o.capacity_bytes = capacity;
  o.trace = &live;
  o.object_slots = static_cast<int64_t>(full.objects.size()) + 1000;
  o.observer = &seen;
  auto online = std::move(MakePolicy(GetParam(), o)).value();
  PolicyOptions po;
  po.capacity_bytes = capacity;
  po.trace = &full;
  auto loaded = std::move(MakePolicy(GetParam(), po)).value();
  int64_t differ = 0, reads = 0;
  for (size_t i = 0; i < full.requests.size(); ++i) {
    Request r = full.requests[i];
    while (live.objects.size() <= r.obj) live.objects.push_back(full.objects[live.objects.size()]);
    r.next_read = kNever;  // the future is not known online
    const auto idx = static_cast<int64_t>(i);
    const bool a = online->Apply(r, idx);
    const bool b = loaded->Apply(full.requests[i], idx);
    differ += a != b;
    reads += r.kind == RequestKind::kRead;
    ASSERT_LE(online->used_bytes(), capacity);
  }
  ASSERT_GT(reads, 100);
  // The observer saw exactly the resident set.
  int64_t bytes = 0;
  for (uint32_t obj : seen.in()) {
    ASSERT_TRUE(online->Resident(obj));
    bytes += online->ResidentSize(obj);
  }
  EXPECT_EQ(bytes, online->used_bytes());
  // Policies whose state does not depend on the slot count decide the same.
  if (GetParam() != "wtinylfu" && GetParam() != "lrb" && GetParam() != "glcache") {
    EXPECT_EQ(differ, 0) << GetParam();
  }
}

std::vector<std::string> OnlineNames() {
  std::vector<std::string> names;
  for (const auto& row : Policies()) {
    if (!IsOfflinePolicy(row.name)) names.push_back(row.name);
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(All, OnlinePolicy, ::testing::ValuesIn(OnlineNames()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace frugal::cache
