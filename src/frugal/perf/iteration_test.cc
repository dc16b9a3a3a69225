#include "frugal/perf/iteration.h"

#include <gtest/gtest.h>

#include "frugal/graph/test_graphs.h"
#include "frugal/perf/test_catalog.h"
#include "frugal/graph/training.h"

namespace frugal {
namespace {

using testing::TestGpu;

OpGraph TrainingGraph(int64_t batch) {
  return *BuildTrainingGraph(testing::TinyConvNet(batch));
}

TEST(Iteration, PhasesAddUpOnOneGpu) {
  auto model = NewRooflineModel();
  OpGraph g = TrainingGraph(4);
  auto p = PredictIteration(*model, g, 1 << 20, TestGpu(), {});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_GT(p->forward_ms, 0);
  EXPECT_GT(p->backward_ms, 0);
  EXPECT_GT(p->optimizer_ms, 0);
  EXPECT_EQ(p->comm_ms, 0);
  EXPECT_DOUBLE_EQ(p->iteration_ms, p->forward_ms + p->backward_ms + p->optimizer_ms);
  EXPECT_EQ(p->ops.size(), g.ops.size());
  EXPECT_TRUE(p->fits);
}

TEST(Iteration, DataParallelAddsAllReduce) {
  auto model = NewRooflineModel();
  OpGraph g = TrainingGraph(4);
  GpuSpec gpu = TestGpu();
  IterationOptions io;
  io.gpus = 8;
  io.links = LinksFor(gpu, nullptr, 1);
  io.bucket_bytes = 1024;  // several buckets for the tiny net
  auto one = PredictIteration(*model, g, 0, gpu, {});
  auto eight = PredictIteration(*model, g, 0, gpu, io);
  ASSERT_TRUE(eight.ok());
  EXPECT_GT(eight->comm_total_ms, 0);
  EXPECT_GE(eight->comm_ms, 0);
  EXPECT_LE(eight->comm_ms, eight->comm_total_ms + 1e-12);
  EXPECT_GE(eight->iteration_ms, one->iteration_ms);
  // Slower links expose more communication.
  IterationOptions slow = io;
  slow.links.intra_gbps = 0.01;
  auto s = PredictIteration(*model, g, 0, gpu, slow);
  EXPECT_GT(s->comm_ms, eight->comm_ms);
}

TEST(Iteration, RingAllReduceFormula) {
  CommLinks l;
  l.intra_gbps = 100;
  l.step_latency_us = 0;
  // 2 (n-1)/n * bytes / bw.
  EXPECT_NEAR(RingAllReduceMs(1e9, 4, l), 1e3 * 2 * 0.75 * 1e9 / 100e9, 1e-9);
  EXPECT_EQ(RingAllReduceMs(1e9, 1, l), 0);
  l.inter_gbps = 10;  // the network is the bottleneck
  EXPECT_NEAR(RingAllReduceMs(1e9, 4, l), 1e3 * 2 * 0.75 * 1e9 / 10e9, 1e-9);
}

TEST(Iteration, LinksFollowTheInstance) {
  GpuSpec gpu = TestGpu();
  InstanceSpec pcie;
  pcie.name = "pcie.box";
  pcie.gpu_count = 4;
  pcie.interconnect = Interconnect::kPcie;
  pcie.network_gbit_per_s = 100;
  CommLinks a = LinksFor(gpu, &pcie, 1);
  CommLinks b = LinksFor(gpu, nullptr, 1);
  EXPECT_LT(a.intra_gbps, b.intra_gbps);  // PCIe gen3 < NVLink
  EXPECT_EQ(a.inter_gbps, 0);
  CommLinks c = LinksFor(gpu, &pcie, 2);
  EXPECT_NEAR(c.inter_gbps, 0.8 * 100 / 8, 1e-12);
  EXPECT_NE(c.description.find("100 Gbit/s"), std::string::npos);
}

TEST(Iteration, MemoryFitUsesTheGpuCapacity) {
  auto model = NewRooflineModel();
  OpGraph g = TrainingGraph(2);
  auto p = PredictIteration(*model, g, int64_t{20} << 30, TestGpu(), {});
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->fits);
}

TEST(Iteration, MeasuredTimesAndViewsArePricedAsGiven) {
  auto model = NewRooflineModel();
  OpGraph g = testing::TinyConvNet(2);
  g.ops[0].measured_time_ms = 7.5;
  g.ops[2].attrs.ints["view"] = {1};
  auto ops = PredictOps(*model, g, TestGpu());
  ASSERT_TRUE(ops.ok());
  EXPECT_DOUBLE_EQ((*ops)[0].time_ms, 7.5);
  EXPECT_EQ((*ops)[2].time_ms, 0);
  EXPECT_GT((*ops)[1].time_ms, 0);
}

TEST(Iteration, RejectsZeroGpus) {
  auto model = NewRooflineModel();
  IterationOptions io;
  io.gpus = 0;
  EXPECT_FALSE(PredictIteration(*model, TrainingGraph(1), 0, TestGpu(), io).ok());
}

}  // namespace
}  // namespace frugal
