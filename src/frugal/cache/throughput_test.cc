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

TEST(Throughput, WithoutOverlapComputeAndIoAddUp) {
  ThroughputOptions o;
  o.remote_gbps = 1;
  o.cache_gbps = 10;
  o.compute_gbps = 2;
  o.overlap = false;
  // 2 GB read remotely: I/O 2 s + compute 1 s.
  EXPECT_DOUBLE_EQ(PipelineSeconds({{0, 2000000000, 0, 0}}, o), 3.0);
  // All hits: I/O 0.2 s + compute 1 s; against 3 s with no cache.
  EXPECT_DOUBLE_EQ(PipelineSeconds({{2000000000, 0, 0, 0}}, o), 1.2);
  EXPECT_DOUBLE_EQ(PipelineSpeedup({{2000000000, 0, 0, 0}}, o), 2.5);
  // A compute-bound group still gains from hits (with overlap it would not).
  o.compute_gbps = 0.5;
  EXPECT_GT(PipelineSpeedup({{2000000000, 0, 0, 0}}, o), 1.4);
  o.overlap = true;
  EXPECT_DOUBLE_EQ(PipelineSpeedup({{2000000000, 0, 0, 0}}, o), 1.0);
}

TEST(Throughput, EmptyTraceIsNeutral) {
  EXPECT_DOUBLE_EQ(PipelineSpeedup({}, ThroughputOptions{}), 1.0);
}

}  // namespace
}  // namespace frugal::cache
