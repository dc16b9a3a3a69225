#include "frugal/share/fitted_slowdown.h"

#include <gtest/gtest.h>

#include "frugal/share/test_util.h"

namespace frugal::share {
namespace {

ColoJobInfo Training(double compute, double memory, double util, Mechanism m) {
  ColoJobInfo j;
  j.family = "resnet";
  j.batch = 32;
  j.training = true;
  j.compute_ms = compute;
  j.memory_ms = memory;
  j.gpu_util = util;
  j.mem_bytes = 4.0 * (1 << 30);
  j.mechanism = m;
  return j;
}

class FittedSlowdownTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto m = InterferenceModel::Load(DefaultInterferenceModelPath());
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    model_ = NewFittedSlowdown(std::move(*m), NewAnalyticSlowdown());
    analytic_ = NewAnalyticSlowdown();
    gpu_ = &testing::Gpu("V100-PCIE-16GB");
    ASSERT_NE(gpu_, nullptr);
  }
  std::unique_ptr<SlowdownModel> model_, analytic_;
  const GpuSpec* gpu_ = nullptr;
};

TEST_F(FittedSlowdownTest, TimeSlicedTrainingUsesTheFittedPairs) {
  const ColoJobInfo self = Training(60, 40, 1, Mechanism::kTimeSlice);
  const ColoJobInfo other = Training(80, 20, 1, Mechanism::kTimeSlice);
  const double s = model_->Speed(self, other, *gpu_);
  EXPECT_GT(s, 0.05);
  EXPECT_LT(s, 1.0);
  EXPECT_STREQ(model_->name(), "fitted");
  // A co-runner busy half the time costs half the slowdown.
  ColoJobInfo half = other;
  half.gpu_util = 0.5;
  EXPECT_NEAR(1 - model_->Speed(self, half, *gpu_), (1 - s) / 2, 1e-9);
}

TEST_F(FittedSlowdownTest, OtherMechanismsAndServicesFallBackToAnalytic) {
  const ColoJobInfo other = Training(80, 20, 1, Mechanism::kMps);
  ColoJobInfo mps = Training(60, 40, 1, Mechanism::kMps);
  mps.share = 0.5;
  EXPECT_DOUBLE_EQ(model_->Speed(mps, other, *gpu_), analytic_->Speed(mps, other, *gpu_));
  ColoJobInfo service = Training(5, 5, 0.3, Mechanism::kTimeSlice);
  service.training = false;
  EXPECT_DOUBLE_EQ(model_->Speed(service, other, *gpu_),
                   analytic_->Speed(service, other, *gpu_));
  ColoJobInfo idle = other;
  idle.gpu_util = 0;
  const ColoJobInfo ts = Training(60, 40, 1, Mechanism::kTimeSlice);
  EXPECT_DOUBLE_EQ(model_->Speed(ts, idle, *gpu_), analytic_->Speed(ts, idle, *gpu_));
}

TEST(ToColoJob, ConvertsStepTimeAndDuty) {
  ColoJobInfo j = Training(6, 4, 0.25, Mechanism::kTimeSlice);
  const ColoJob c = ToColoJob(j);
  EXPECT_DOUBLE_EQ(c.solo_tput, 100.0);  // 10 ms per step
  EXPECT_DOUBLE_EQ(*c.gpu_util, 25.0);
  EXPECT_DOUBLE_EQ(*c.mem_gib, 4.0);
  EXPECT_DOUBLE_EQ(*c.compute_share, 0.6);
}

}  // namespace
}  // namespace frugal::share
