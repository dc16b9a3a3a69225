#include "frugal/perf/advisor.h"

#include <gtest/gtest.h>

#include "frugal/graph/test_graphs.h"
#include "frugal/graph/training.h"
#include "frugal/perf/test_catalog.h"

namespace frugal {
namespace {

// Two GPUs, a slow cheap one and a fast dear one, in 1- and 4-GPU boxes.
Catalog TestCatalog() {
  CatalogData d;
  d.references["test"] = SourceRef{"test", "test", "test", "2026-11-30", "read"};
  auto gpu = [](const char* name, const char* arch, double tflops, double bw) {
    GpuSpec g;
    g.name = name;
    g.vendor = "nvidia";
    g.architecture = arch;
    g.mem_gib = 16;
    g.mem_bw_gbps = bw;
    g.fp32_tflops = tflops;
    g.pcie_gen = 3;
    g.sources = {{"mem_gib", "test"}, {"mem_bw_gbps", "test"}, {"fp32_tflops", "test"},
                 {"pcie_gen", "test"}};
    return g;
  };
  d.gpus = {gpu("Slow", "turing", 8, 300), gpu("Fast", "hopper", 60, 3000)};
  auto inst = [](const char* name, const char* g, int n, double price) {
    InstanceSpec i;
    i.name = name;
    i.family = "test";
    i.gpu = g;
    i.gpu_count = n;
    i.interconnect = n > 1 ? Interconnect::kPcie : Interconnect::kNone;
    i.price_usd_per_hour = price;
    i.price_region = "test";
    i.price_date = "2026-11-30";
    i.sources = {{"price_usd_per_hour", "test"}};
    return i;
  };
  d.instances = {inst("slow.1", "Slow", 1, 0.5), inst("slow.4", "Slow", 4, 2.0),
                 inst("fast.1", "Fast", 1, 10.0)};
  auto c = Catalog::Build(std::move(d));
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return *c;
}

struct Fixture {
  std::unique_ptr<OpTimeModel> model = NewRooflineModel();
  OpGraph step = *BuildTrainingGraph(testing::TinyConvNet(64));
  Catalog catalog = TestCatalog();
  JobSpec job{1e7, 1, 64};
};

TEST(Advisor, PricesEveryInstanceAndCountAndMarksThePareto) {
  Fixture f;
  AdviseOptions o;
  o.max_instances = 2;
  auto a = Advise(*f.model, f.step, 1 << 20, f.catalog, f.job, o);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->configs.size(), 6u);
  int pareto = 0;
  for (const auto& c : a->configs) {
    EXPECT_TRUE(c.cost_usd.has_value());
    EXPECT_GT(c.hours, 0);
    pareto += c.pareto;
  }
  EXPECT_GE(pareto, 1);
  // Sorted by cost; without goals the cheapest is recommended.
  EXPECT_EQ(a->recommended, 0);
  EXPECT_TRUE(a->configs[0].pareto);
  ASSERT_GE(a->newest_gpu_rule, 0);
  EXPECT_EQ(a->configs[a->newest_gpu_rule].gpu, "Fast");
  ASSERT_GE(a->cheapest_instance_rule, 0);
  EXPECT_EQ(a->configs[a->cheapest_instance_rule].instance, "slow.1");
}

TEST(Advisor, UnpriceableFamiliesAreSkippedOnceWithTheReason) {
  CatalogData d;
  d.references["test"] = SourceRef{"test", "test", "test", "2026-11-30", "read"};
  GpuSpec slow = testing::TestGpu();
  slow.name = "Slow";
  GpuSpec blank = slow;  // no compute peak: no time model can price it
  blank.name = "Blank";
  blank.fp32_tflops.reset();
  d.gpus = {slow, blank};
  auto inst = [](const char* name, const char* family, const char* g,
                 std::optional<double> price) {
    InstanceSpec i;
    i.name = name;
    i.family = family;
    i.gpu = g;
    i.gpu_count = 1;
    i.price_usd_per_hour = price;
    if (price) {
      i.price_region = "test";
      i.price_date = "2026-11-30";
    }
    return i;
  };
  d.instances = {inst("s.1", "s", "Slow", 1.0), inst("u.1", "u", "Slow", std::nullopt),
                 inst("u.2", "u", "Slow", std::nullopt), inst("b.1", "b", "Blank", 2.0),
                 inst("b.2", "b", "Blank", 3.0)};
  auto catalog = Catalog::Build(std::move(d));
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  Fixture f;
  AdviseOptions o;
  o.max_instances = 3;
  auto a = Advise(*f.model, f.step, 1 << 20, *catalog, f.job, o);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  // Only s.1 is priced, at 1, 2 and 3 instances: the count is honest.
  ASSERT_EQ(a->configs.size(), 3u);
  for (const ConfigResult& c : a->configs) {
    EXPECT_EQ(c.instance, "s.1");
    EXPECT_TRUE(c.cost_usd.has_value());
  }
  ASSERT_EQ(a->skipped.size(), 2u);
  EXPECT_EQ(a->skipped[0].family, "b");
  EXPECT_EQ(a->skipped[0].instances, (std::vector<std::string>{"b.1", "b.2"}));
  EXPECT_NE(a->skipped[0].reason.find("Blank cannot be timed"), std::string::npos)
      << a->skipped[0].reason;
  EXPECT_NE(a->skipped[0].reason.find("fp32_tflops"), std::string::npos);
  EXPECT_EQ(a->skipped[1].family, "u");
  EXPECT_EQ(a->skipped[1].instances, (std::vector<std::string>{"u.1", "u.2"}));
  EXPECT_EQ(a->skipped[1].reason, "no on-demand price in the catalog");
}

TEST(Advisor, NothingPricedNamesEverySkippedFamily) {
  CatalogData d;
  GpuSpec blank = testing::TestGpu();
  blank.name = "Blank";
  blank.fp32_tflops.reset();
  d.gpus = {blank};
  InstanceSpec i;
  i.name = "b.1";
  i.family = "b";
  i.gpu = "Blank";
  i.gpu_count = 1;
  d.instances = {i};
  auto catalog = Catalog::Build(std::move(d));
  ASSERT_TRUE(catalog.ok());
  Fixture f;
  auto a = Advise(*f.model, f.step, 1 << 20, *catalog, f.job, AdviseOptions{});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(a.status().message().find("aws b: no on-demand price"), std::string::npos)
      << a.status().message();
}

TEST(Advisor, DeadlinePicksTheCheapestThatMeetsIt) {
  Fixture f;
  auto all = *Advise(*f.model, f.step, 1 << 20, f.catalog, f.job, {});
  double fastest = 1e30;
  for (const auto& c : all.configs) fastest = std::min(fastest, c.hours);
  AdviseOptions o;
  o.deadline_hours = fastest * 1.0001;
  auto a = Advise(*f.model, f.step, 1 << 20, f.catalog, f.job, o);
  ASSERT_GE(a->recommended, 0);
  EXPECT_LE(a->configs[a->recommended].hours, *o.deadline_hours);
  EXPECT_NE(a->reason.find("cheapest"), std::string::npos);
}

TEST(Advisor, BudgetPicksTheFastestWithinIt) {
  Fixture f;
  AdviseOptions o;
  o.budget_usd = 1e9;
  auto a = Advise(*f.model, f.step, 1 << 20, f.catalog, f.job, o);
  ASSERT_GE(a->recommended, 0);
  for (const auto& c : a->configs) EXPECT_GE(c.hours, a->configs[a->recommended].hours);
}

TEST(Advisor, ImpossibleGoalsSayWhy) {
  Fixture f;
  AdviseOptions o;
  o.deadline_hours = 1e-9;
  o.budget_usd = 1e-9;
  auto a = Advise(*f.model, f.step, 1 << 20, f.catalog, f.job, o);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->recommended, -1);
  EXPECT_NE(a->reason.find("no configuration meets the deadline"), std::string::npos);
  EXPECT_NE(a->reason.find("fastest:"), std::string::npos);
}

TEST(Advisor, ModelThatFitsNowhereIsAnError) {
  Fixture f;
  auto a = Advise(*f.model, f.step, int64_t{64} << 30, f.catalog, f.job, {});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(a.status().message().find("frugal place"), std::string::npos);
}

TEST(Advisor, RejectsBadJobs) {
  Fixture f;
  JobSpec bad = f.job;
  bad.samples = 0;
  EXPECT_FALSE(Advise(*f.model, f.step, 0, f.catalog, bad, {}).ok());
  bad = f.job;
  bad.batch_per_gpu = 0;
  EXPECT_FALSE(Advise(*f.model, f.step, 0, f.catalog, bad, {}).ok());
  AdviseOptions o;
  o.deadline_hours = -1;
  EXPECT_FALSE(Advise(*f.model, f.step, 0, f.catalog, f.job, o).ok());
}

}  // namespace
}  // namespace frugal
