#include "frugal/share/serving_sim.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "frugal/share/test_util.h"

namespace frugal::share {
namespace {
using testing::Gpu;
using testing::Roofline;

TEST(SimulateRequests, DynamicBatchingWaitsForAFullBatchOrTheDelay) {
  const std::vector<double> arr = {0.000, 0.001, 0.002};
  const std::vector<int64_t> sizes = {1, 2};
  const LatencySegment seg{0, {10, 10}};
  // Batch {0, 1} dispatches at 1 ms (full), ends at 11 ms; request 2 then
  // waited past the 5 ms delay and runs alone: ends at 21 ms.
  RequestStats st = SimulateRequests(arr, sizes, 5, 15, std::span(&seg, 1));
  EXPECT_EQ(st.requests, 3);
  EXPECT_EQ(st.over_slo, 1);  // 19 ms > 15
  EXPECT_NEAR(st.p50_ms, 11, 1e-3);  // latencies 11, 10, 19
  EXPECT_NEAR(st.p99_ms, 19, 1e-3);
  EXPECT_NEAR(st.mean_batch, 1.5, 1e-12);
}

TEST(SimulateRequests, AlonePartialBatchWaitsTheDelay) {
  const std::vector<double> arr = {1.0};
  const std::vector<int64_t> sizes = {1, 4};
  const LatencySegment seg{0, {2, 5}};
  RequestStats st = SimulateRequests(arr, sizes, 3, 100, std::span(&seg, 1));
  EXPECT_NEAR(st.p99_ms, 5, 1e-3);  // 3 ms delay + batch 1
}

TEST(SimulateRequests, RequestsWithoutAGpuFail) {
  const std::vector<double> arr = {0.5, 1.5, 2.5};
  const std::vector<int64_t> sizes = {1};
  const std::vector<LatencySegment> segs = {{0, {1}}, {1, {}}, {2, {1}}};
  RequestStats st = SimulateRequests(arr, sizes, 0, 10, segs);
  EXPECT_EQ(st.failed, 1);
  EXPECT_EQ(st.over_slo, 1);
}

TEST(GenerateArrivals, PoissonRateAndDeterminism) {
  ArrivalSpec a;
  a.rate_rps = 50;
  auto x = GenerateArrivals(a, 0, 1000, 7);
  EXPECT_NEAR(x.size() / 1000.0, 50, 2.5);
  EXPECT_TRUE(std::is_sorted(x.begin(), x.end()));
  EXPECT_EQ(x, GenerateArrivals(a, 0, 1000, 7));
  EXPECT_NE(x, GenerateArrivals(a, 0, 1000, 8));
  a.diurnal_amplitude = 0.5;
  auto d = GenerateArrivals(a, 0, 86400, 7);
  EXPECT_NEAR(d.size() / 86400.0, MeanRate(a, 0, 86400), 1.0);
  EXPECT_DOUBLE_EQ(PeakRate(a, 0, 86400), 75);
  a.kind = ArrivalKind::kBursty;
  a.on_s = 1;
  a.off_s = 3;
  auto b = GenerateArrivals(a, 0, 4000, 7);
  EXPECT_NEAR(b.size() / 4000.0, 12.5, 2.5);
}

// The small workload on one A100, priced by the roofline model.
class SmallClusterSim : public ::testing::Test {
 protected:
  void SetUp() override {
    auto p = Planner::Create(w_, Gpu("A100-SXM4-80GB"), &costs_, *slow_);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    planner_.emplace(std::move(*p));
  }
  Workload w_ = testing::SmallWorkload();
  CostCache costs_{Roofline()};
  std::unique_ptr<SlowdownModel> slow_ = NewAnalyticSlowdown();
  std::optional<Planner> planner_;
};

TEST_F(SmallClusterSim, DeterministicAndCountsGpuHours) {
  const Planner& p = *planner_;
  SimOptions o;
  auto excl = NewSharingPolicy("exclusive");
  ASSERT_TRUE(excl.ok());
  SimResult a = SimulateCluster(p, **excl, o);
  SimResult b = SimulateCluster(p, **excl, o);
  EXPECT_EQ(a.gpu_hours, b.gpu_hours);
  EXPECT_EQ(a.over_slo, b.over_slo);
  // Two services for 2 h and two training jobs alone at full speed.
  EXPECT_NEAR(a.gpu_hours, 2 * 2 + (1800 + 3600) / 3600.0, 1e-6);
  EXPECT_EQ(a.peak_gpus, 4);
  EXPECT_NEAR(a.mean_training_speed, 1.0, 1e-9);
  auto gs = NewSharingPolicy("gshare");
  SimResult g = SimulateCluster(p, **gs, o);
  EXPECT_LT(g.gpu_hours, a.gpu_hours);
  EXPECT_GT(g.requests, 0);
  EXPECT_LE(g.over_slo_pct, 1.0);
  for (const TrainingOutcome& t : g.training) EXPECT_GE(t.speed, 0.8 - 1e-6) << t.name;
}

TEST_F(SmallClusterSim, ReportsProgressAtEveryTickWithoutChangingTheResult) {
  const Planner& p = *planner_;
  auto gs = NewSharingPolicy("gshare");
  ASSERT_TRUE(gs.ok());
  SimOptions o;
  const SimResult quiet = SimulateCluster(p, **gs, o);
  std::vector<double> seen;
  o.progress = [&seen](double now_s) { seen.push_back(now_s); };
  const SimResult loud = SimulateCluster(p, **gs, o);
  ASSERT_GE(seen.size(), 2u);  // the 2 h workload has 8 ticks of 15 min
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_DOUBLE_EQ(seen[1] - seen[0], o.tick_s);
  EXPECT_EQ(quiet.gpu_hours, loud.gpu_hours);
  EXPECT_EQ(quiet.over_slo, loud.over_slo);
}

}  // namespace
}  // namespace frugal::share
