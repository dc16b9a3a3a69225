#include "frugal/share/slowdown.h"

#include <gtest/gtest.h>

namespace frugal::share {
namespace {

ColoJobInfo Job(double compute, double memory, double util, Mechanism m, double share) {
  ColoJobInfo j;
  j.compute_ms = compute;
  j.memory_ms = memory;
  j.gpu_util = util;
  j.mechanism = m;
  j.share = share;
  return j;
}

TEST(AnalyticSlowdown, ExclusiveIsFullSpeed) {
  auto m = NewAnalyticSlowdown();
  GpuSpec gpu;
  EXPECT_DOUBLE_EQ(m->Speed(Job(3, 1, 1, Mechanism::kExclusive, 1), Job(1, 1, 1, Mechanism::kExclusive, 1), gpu), 1.0);
}

TEST(AnalyticSlowdown, MpsShareScalesComputeAndCoRunnerSharesBandwidth) {
  auto m = NewAnalyticSlowdown();
  GpuSpec gpu;
  const ColoJobInfo self = Job(6, 4, 1, Mechanism::kMps, 0.5);
  // Idle co-runner: 6 / 0.5 + 4 = 16 ms vs 10 alone.
  EXPECT_NEAR(m->SpeedAlone(self, gpu), 10.0 / 16, 1e-12);
  // Co-runner always busy and all memory-bound: memory time doubles.
  EXPECT_NEAR(m->Speed(self, Job(0, 5, 1, Mechanism::kMps, 0.5), gpu), 10.0 / 20, 1e-12);
  // A compute-bound co-runner does not touch memory time.
  EXPECT_NEAR(m->Speed(self, Job(5, 0, 1, Mechanism::kMps, 0.5), gpu), 10.0 / 16, 1e-12);
}

TEST(AnalyticSlowdown, TimeSlicingAddsTheCoRunnersSlice) {
  AnalyticSlowdownOptions o;
  o.slice_ms = 2;
  auto m = NewAnalyticSlowdown(o);
  GpuSpec gpu;
  const ColoJobInfo self = Job(5, 5, 1, Mechanism::kTimeSlice, 1);
  EXPECT_NEAR(m->Speed(self, Job(1, 1, 0.5, Mechanism::kTimeSlice, 1), gpu), 10.0 / 16, 1e-12);
  EXPECT_NEAR(m->SpeedAlone(self, gpu), 1.0, 1e-12);
}

TEST(AnalyticSlowdown, MigHasNoInterference) {
  auto m = NewAnalyticSlowdown();
  GpuSpec gpu;
  ColoJobInfo self = Job(7, 8, 1, Mechanism::kMig, 3.0 / 7);
  self.mem_bw_share = 0.5;
  const double busy = m->Speed(self, Job(0, 10, 1, Mechanism::kMig, 1), gpu);
  EXPECT_DOUBLE_EQ(busy, m->SpeedAlone(self, gpu));
  EXPECT_NEAR(busy, 15.0 / (7 / (3.0 / 7) + 16), 1e-12);
}

TEST(CombineCoRunners, DutiesAddAndCap) {
  std::vector<ColoJobInfo> o = {Job(1, 1, 0.7, Mechanism::kMps, 0.5),
                                Job(2, 0, 0.6, Mechanism::kMps, 0.5)};
  ColoJobInfo c = CombineCoRunners(o);
  EXPECT_DOUBLE_EQ(c.gpu_util, 1.0);
  EXPECT_NEAR(c.memory_fraction(), 0.7 * 0.5 / 1.3, 1e-12);
}

}  // namespace
}  // namespace frugal::share
