#include "frugal/share/sharing_policy.h"

#include <gtest/gtest.h>

#include "frugal/share/plan.h"
#include "frugal/share/test_util.h"

namespace frugal::share {
namespace {
using testing::Gpu;
using testing::Roofline;

class PolicyConformance : public ::testing::TestWithParam<const char*> {};

TEST_P(PolicyConformance, PlacesEveryJobWithinMemory) {
  Workload w = testing::SmallWorkload();
  CostCache costs(Roofline());
  auto slow = NewAnalyticSlowdown();
  auto p = Planner::Create(w, Gpu("A100-SXM4-80GB"), &costs, *slow);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  auto pol = NewSharingPolicy(GetParam());
  ASSERT_TRUE(pol.ok());
  SharePlan plan = PlanWorkload(*p, **pol, 8);
  EXPECT_TRUE(plan.unschedulable.empty()) << plan.unschedulable[0].reason;
  int jobs = 0;
  for (const PlannedGpu& g : plan.gpus) {
    jobs += static_cast<int>(g.jobs.size());
    double mem = 0, share = 0;
    for (const PlannedJob& j : g.jobs) {
      mem += j.mem_gib;
      share += j.share;
      EXPECT_GT(j.speed, 0);
    }
    if (g.mechanism != Mechanism::kMig) {
      EXPECT_LE(mem, 80.0);
    }
    if (g.mechanism == Mechanism::kMps || g.mechanism == Mechanism::kMig) {
      EXPECT_LE(share, 1.0 + 1e-9);
    }
  }
  EXPECT_EQ(jobs, 4);
  // Deterministic.
  auto pol2 = NewSharingPolicy(GetParam());
  EXPECT_EQ(PlanToJson(PlanWorkload(*p, **pol2, 8)).dump(), PlanToJson(plan).dump());
}

INSTANTIATE_TEST_SUITE_P(All, PolicyConformance,
                         ::testing::Values("exclusive", "gandiva-pack", "mps-oblivious",
                                           "mig-static", "gshare"));

TEST(Registry, ListsAndParses) {
  EXPECT_EQ(SharingPolicies().size(), 5u);
  auto all = ParseSharingPolicyList("all");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 5u);
  auto two = ParseSharingPolicyList("gshare,exclusive,gshare");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(*two, (std::vector<std::string>{"gshare", "exclusive"}));
  EXPECT_FALSE(ParseSharingPolicyList("gshare,nope").ok());
  EXPECT_FALSE(NewSharingPolicy("nope").ok());
}

TEST(Gshare, MeetsPredictedSlosWithFewerGpusThanExclusive) {
  Workload w = testing::SmallWorkload();
  CostCache costs(Roofline());
  auto slow = NewAnalyticSlowdown();
  auto p = Planner::Create(w, Gpu("A100-SXM4-80GB"), &costs, *slow);
  ASSERT_TRUE(p.ok());
  auto gs = NewSharingPolicy("gshare");
  auto ex = NewSharingPolicy("exclusive");
  SharePlan g = PlanWorkload(*p, **gs, 8);
  SharePlan e = PlanWorkload(*p, **ex, 8);
  EXPECT_EQ(e.gpus_used, 4);
  EXPECT_LT(g.gpus_used, e.gpus_used);
  for (const PlannedGpu& gpu : g.gpus) {
    for (const PlannedJob& j : gpu.jobs) {
      if (j.service) {
        EXPECT_LE(j.p99_ms, j.slo_ms) << j.name;
      } else if (gpu.jobs.size() > 1) {
        EXPECT_GE(j.speed, 0.8 - 1e-9) << j.name;
      }
    }
  }
}

TEST(Planner, ImpossibleSloNamesTheService) {
  Workload w = testing::SmallWorkload();
  w.services[1].slo_p99_ms = 0.01;
  CostCache costs(Roofline());
  auto slow = NewAnalyticSlowdown();
  auto p = Planner::Create(w, Gpu("A100-SXM4-80GB"), &costs, *slow);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("service mobilenet"), std::string::npos)
      << p.status().message();
}

TEST(Planner, JobThatFitsNoGpuIsUnschedulable) {
  Workload w = testing::SmallWorkload();
  w.training[0].batch = 1024;  // vgg16 at batch 1024 needs far more than 16 GiB
  CostCache costs(Roofline());
  auto slow = NewAnalyticSlowdown();
  auto p = Planner::Create(w, Gpu("T4"), &costs, *slow);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  for (const char* name : {"exclusive", "gshare"}) {
    auto pol = NewSharingPolicy(name);
    SharePlan plan = PlanWorkload(*p, **pol, 8);
    ASSERT_EQ(plan.unschedulable.size(), 1u) << name;
    EXPECT_EQ(plan.unschedulable[0].name, "vgg");
    EXPECT_NE(plan.unschedulable[0].reason.find("GiB"), std::string::npos);
  }
  auto mig = NewSharingPolicy("mig-static");
  SharePlan plan = PlanWorkload(*p, **mig, 8);
  ASSERT_FALSE(plan.unschedulable.empty());
  EXPECT_NE(plan.unschedulable.back().reason.find("no MIG"), std::string::npos);
}

TEST(Planner, TooFewGpusLeavesJobsUnschedulable) {
  Workload w = testing::SmallWorkload();
  CostCache costs(Roofline());
  auto slow = NewAnalyticSlowdown();
  auto p = Planner::Create(w, Gpu("A100-SXM4-80GB"), &costs, *slow);
  ASSERT_TRUE(p.ok());
  auto ex = NewSharingPolicy("exclusive");
  SharePlan plan = PlanWorkload(*p, **ex, 1);
  EXPECT_EQ(plan.gpus_used, 1);
  EXPECT_EQ(plan.unschedulable.size(), 3u);
}

TEST(Mig, ProfilesOfA100) {
  auto p = MigProfilesFor(Gpu("A100-SXM4-40GB"));
  ASSERT_EQ(p.size(), 6u);
  EXPECT_EQ(p.front().name, "1g.5gb");
  EXPECT_DOUBLE_EQ(p.front().mem_gib, 5);
  EXPECT_EQ(p.back().name, "7g.40gb");
  EXPECT_TRUE(MigProfilesFor(Gpu("T4")).empty());
  const std::vector<int> ok = {2, 1, 0, 0}, too_many = {5, 0};
  EXPECT_TRUE(MigLayoutFits(p, ok));
  EXPECT_FALSE(MigLayoutFits(p, too_many));
}

}  // namespace
}  // namespace frugal::share
