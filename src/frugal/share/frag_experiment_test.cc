#include "frugal/share/frag_experiment.h"

#include <gtest/gtest.h>

#include <string>

#include "frugal/share/node_trace.h"
#include "frugal/share/placement/policies.h"
#include "frugal/share/pod_trace.h"

namespace frugal::share {
namespace {

struct Tiny {
  GpuModelTable models;
  std::vector<NodeSpec> nodes;
  std::vector<PodSpec> pods;
  Tiny() {
    nodes = *ReadNodeList("testdata/share/tiny_nodes.csv", &models);
    pods = *ReadPodTrace("testdata/share/tiny_pods.csv", &models);
  }
};

TEST(Arrivals, EveryTracePodOnceThenDrawsUpToTheTarget) {
  Tiny t;
  const int64_t capacity = 14000;  // the tiny cluster's GPUs
  const std::vector<int> a = BuildArrivals(t.pods, capacity, 2.0, 42);
  std::vector<int> first(a.begin(), a.begin() + 10);
  std::sort(first.begin(), first.end());
  for (int i = 0; i < 10; ++i) EXPECT_EQ(first[i], i);
  int64_t total = 0;
  for (int i : a) total += t.pods[i].TotalGpuMilli();
  // FGD's check adds the draw's per-GPU milli, so an 8-GPU draw may
  // overshoot by 7 GPUs; the last draw that stopped it would add >= 1.
  EXPECT_LE(total, 28000 + 7000);
  EXPECT_GT(total, 28000 - 1000);
  EXPECT_EQ(a, BuildArrivals(t.pods, capacity, 2.0, 42));
  EXPECT_NE(a, BuildArrivals(t.pods, capacity, 2.0, 43));
  // Tuning below the trace's total drops pods.
  const std::vector<int> down = BuildArrivals(t.pods, capacity, 0.5, 1);
  int64_t down_total = 0;
  for (int i : down) down_total += t.pods[i].TotalGpuMilli();
  EXPECT_LE(down_total, 7000);
}

TEST(FragExperiment, MetricsAreConsistentAndDeterministic) {
  Tiny t;
  FragExperimentOptions o;
  o.policies = {"random", "best-fit", "fgd", "gshare"};
  o.seeds = {1, 2, 3};
  o.tune = 1.5;
  o.threads = 1;
  auto r = RunFragExperiment(t.nodes, t.pods, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->cluster_gpu_milli, 14000);
  ASSERT_EQ(r->results.size(), 4u);
  for (const auto& p : r->results) {
    ASSERT_EQ(p.unallocated_gpu_pct.size(), r->arrived_pct.size());
    for (size_t l = 0; l < r->arrived_pct.size(); ++l) {
      // Unallocated never drops below what has not yet arrived.
      EXPECT_GE(p.unallocated_gpu_pct[l] + 1e-9, 100 - r->arrived_pct[l]) << p.policy;
      EXPECT_GE(p.frag_gpu_pct[l], 0);
      EXPECT_LE(p.frag_gpu_pct[l], p.unallocated_gpu_pct[l] + 1e-9);
      if (l > 0) {
        EXPECT_LE(p.unallocated_gpu_pct[l], p.unallocated_gpu_pct[l - 1] + 1e-9);
      }
    }
    EXPECT_GT(p.failed_pods, 0) << "150 % of capacity cannot all fit";
    // Only gshare decides anything on its own, and it decides once per
    // experiment: every run the same descent.
    if (p.policy == "gshare") {
      EXPECT_NE(p.decision.find(" (over 16 rollouts, mean unallocated GPU % minus fgd's: "), std::string::npos)
          << p.decision;
      for (const auto& run : p.runs) EXPECT_EQ(run.decision, p.runs[0].decision);
    } else {
      EXPECT_EQ(p.decision, "") << p.policy;
    }
  }
  o.threads = 3;
  auto again = RunFragExperiment(t.nodes, t.pods, o);
  ASSERT_TRUE(again.ok());
  for (size_t i = 0; i < r->results.size(); ++i) {
    EXPECT_EQ(r->results[i].unallocated_gpu_pct, again->results[i].unallocated_gpu_pct);
    EXPECT_EQ(r->results[i].frag_gpu_pct, again->results[i].frag_gpu_pct);
  }
}

TEST(FragRollouts, ManyAnswerAsOneAtATime) {
  Tiny t;
  auto many = MakeFragRollouts(t.nodes, t.pods);
  auto one = MakeFragRollouts(t.nodes, t.pods);
  ASSERT_NE(many, nullptr);
  const std::vector<RolloutKey> keys = {
      {&NewFgdPolicy, 0}, {&NewGshareBlendPolicy, 0}, {&NewFgdPolicy, 3}, {&NewFgdPolicy, 0}};
  const std::vector<std::vector<double>> got = many->RunMany(keys);
  ASSERT_EQ(got.size(), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_FALSE(got[i].empty());
    EXPECT_EQ(got[i], one->Run(keys[i].make, keys[i].k)) << i;
  }
  EXPECT_EQ(got[0], got[3]);
  EXPECT_EQ(many->RunMany(keys), got);  // replayed once, answered again
}

// 16 nodes of 8 CPUs, the odd ones with one GPU; pods that take a whole
// node's CPU (CPU-only) or one GPU with 4 CPUs. gpu-packing scores every
// node 0 for a CPU-only pod, so which node it lands on is the filter
// order's "first": node-list order puts CPU-only pods on GPU nodes 1, 3, ...
// as readily as on CPU nodes; Kubernetes' interleaved order (chunks of 2)
// reaches the even CPU nodes first.
struct Striped {
  std::vector<NodeSpec> nodes;
  std::vector<PodSpec> pods;
  Striped() {
    for (int i = 0; i < 16; ++i) {
      nodes.push_back({"n" + std::to_string(100 + i), 8000, 65536, i % 2, i % 2});
    }
    for (int i = 0; i < 16; ++i) {
      PodSpec p;
      p.name = "p" + std::to_string(100 + i);
      p.memory_mib = 1024;
      if (i % 2 == 0) {
        p.cpu_milli = 8000;
      } else {
        p.cpu_milli = 4000;
        p.num_gpu = 1;
        p.gpu_milli = 1000;
      }
      pods.push_back(p);
    }
  }
};

TEST(FragExperiment, FilterOrderDecidesTheFirstOfEqualScores) {
  Striped t;
  FragExperimentOptions o;
  o.policies = {"gpu-packing", "random"};
  o.seeds = {1, 2, 3, 4};
  o.tune = 1.0;
  o.threads = 1;
  auto list = RunFragExperiment(t.nodes, t.pods, o);
  ASSERT_TRUE(list.ok()) << list.status().message();
  o.filter_order = {1, 0};  // one goroutine: node-list order again
  auto one = RunFragExperiment(t.nodes, t.pods, o);
  ASSERT_TRUE(one.ok());
  o.filter_order = {16, 0};
  auto parallel = RunFragExperiment(t.nodes, t.pods, o);
  ASSERT_TRUE(parallel.ok());
  EXPECT_EQ(list->results[0].unallocated_gpu_pct, one->results[0].unallocated_gpu_pct);
  // Fewer GPU nodes lose their CPUs to CPU-only pods.
  EXPECT_LT(parallel->results[0].unallocated_gpu_pct.back(),
            list->results[0].unallocated_gpu_pct.back());
  // random picks a random node and ignores the order.
  EXPECT_EQ(list->results[1].unallocated_gpu_pct, parallel->results[1].unallocated_gpu_pct);
  o.filter_order = {16, 1.0};
  auto timed = RunFragExperiment(t.nodes, t.pods, o);
  ASSERT_TRUE(timed.ok());
  auto again = RunFragExperiment(t.nodes, t.pods, o);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(timed->results[0].unallocated_gpu_pct, again->results[0].unallocated_gpu_pct);

  o.tie_break = TieBreak::kRandom;
  EXPECT_FALSE(RunFragExperiment(t.nodes, t.pods, o).ok());
  o.tie_break = TieBreak::kFirst;
  o.filter_order = {17, 0};
  EXPECT_FALSE(RunFragExperiment(t.nodes, t.pods, o).ok());
  o.filter_order = {4, 1.5};
  EXPECT_FALSE(RunFragExperiment(t.nodes, t.pods, o).ok());
}

TEST(FragExperiment, RefusesEmptyOrMeaninglessInputs) {
  Tiny t;
  FragExperimentOptions o;
  o.policies = {"fgd"};
  EXPECT_FALSE(RunFragExperiment({}, t.pods, o).ok());
  EXPECT_FALSE(RunFragExperiment(t.nodes, {}, o).ok());
  o.policies = {"nope"};
  EXPECT_FALSE(RunFragExperiment(t.nodes, t.pods, o).ok());
  o.policies = {"fgd"};
  o.tune = 0;
  EXPECT_FALSE(RunFragExperiment(t.nodes, t.pods, o).ok());
  o.tune = 1.3;
  std::vector<NodeSpec> cpu_only = {t.nodes[3]};
  EXPECT_FALSE(RunFragExperiment(cpu_only, t.pods, o).ok());
}

}  // namespace
}  // namespace frugal::share
