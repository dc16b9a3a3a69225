#include "frugal/cache/throughput.h"

#include <gtest/gtest.h>

namespace frugal::cache {
namespace {

TEST(Throughput, NoHitsNoSpeedup) {
  std::vector<GroupIo> g = {{0, 1000000000, 0, 0}};
  EXPECT_DOUBLE_EQ(PipelineSpeedup(g, ThroughputOptions{}), 1.0);
}

TEST(Throughput, StageTimeIsMaxOfComputeAndIo) {
  ThroughputOptions o;
  o.remote_gbps = 1;
  o.cache_gbps = 10;
  o.compute_gbps = 2;
  // 2 GB read remotely: I/O 2 s, compute 1 s -> 2 s.
  EXPECT_DOUBLE_EQ(PipelineSeconds({{0, 2000000000, 0, 0}}, o), 2.0);
  // All hits: I/O 0.2 s, compute 1 s -> compute-bound, speed-up 2.
  EXPECT_DOUBLE_EQ(PipelineSeconds({{2000000000, 0, 0, 0}}, o), 1.0);
  EXPECT_DOUBLE_EQ(PipelineSpeedup({{2000000000, 0, 0, 0}}, o), 2.0);
  // Writes go to remote storage for every policy.
  EXPECT_DOUBLE_EQ(PipelineSeconds({{0, 0, 1000000000, 0}}, o), 1.0);
}

TEST(Throughput, EmptyTraceIsNeutral) {
  EXPECT_DOUBLE_EQ(PipelineSpeedup({}, ThroughputOptions{}), 1.0);
}

}  // namespace
}  // namespace frugal::cache
