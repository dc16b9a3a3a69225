#include "frugal/share/k8s/extender.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "frugal/share/frag_experiment.h"

namespace frugal::share::k8s {
namespace {

Node MakeNode(const std::string& name, int gpus, int model, int64_t cpu = 32000) {
  Node n;
  n.spec = {name, cpu, 256 * 1024, gpus, gpus > 0 ? model : 0};
  return n;
}

PodSpec Spec(const std::string& name, int64_t cpu, int num_gpu, int gpu_milli,
             ModelMask models = 0) {
  PodSpec p;
  p.name = name;
  p.cpu_milli = cpu;
  p.memory_mib = 1024;
  p.num_gpu = num_gpu;
  p.gpu_milli = num_gpu > 0 ? gpu_milli : 0;
  p.models = models;
  return p;
}

Pod MakePod(const std::string& name, int64_t cpu, int num_gpu, int gpu_milli,
            ModelMask models = 0) {
  Pod p;
  p.uid = "uid-" + name;
  p.name = name;
  p.spec = Spec("default/" + name, cpu, num_gpu, gpu_milli, models);
  return p;
}

// A workload of sharing pods, whole-GPU pods and CPU pods.
std::vector<PodSpec> Workload() {
  std::vector<PodSpec> w;
  for (int i = 0; i < 6; ++i) w.push_back(Spec("s" + std::to_string(i), 2000, 1, 500));
  for (int i = 0; i < 3; ++i) w.push_back(Spec("w" + std::to_string(i), 4000, 1, 1000));
  w.push_back(Spec("m", 8000, 2, 1000));
  w.push_back(Spec("c", 1000, 0, 0));
  return w;
}

struct Fixture {
  GpuModelTable models;
  int t4 = 0, v100 = 0;
  std::vector<Node> nodes;
  std::unique_ptr<Extender> ext;
  explicit Fixture(ExtenderOptions o = {}) {
    t4 = *models.Intern("T4");
    v100 = *models.Intern("V100M16");
    nodes = {MakeNode("a", 4, t4), MakeNode("b", 4, t4), MakeNode("c", 8, v100),
             MakeNode("cpu", 0, 0)};
    auto e = Extender::Create(o, Workload(), models);
    EXPECT_TRUE(e.ok()) << e.status().message();
    ext = std::move(*e);
    ext->Sync(nodes, {}, 0);
  }
  std::vector<std::string> Names() const { return {"a", "b", "c", "cpu"}; }
};

TEST(Extender, CreateRejectsBadOptions) {
  EXPECT_FALSE(Extender::Create({}, {}, GpuModelTable()).ok());
  ExtenderOptions o;
  o.policy = "no-such-policy";
  EXPECT_EQ(Extender::Create(o, Workload(), GpuModelTable()).status().code(), StatusCode::kNotFound);
  o = {};
  o.assume_ttl_s = 0;
  EXPECT_FALSE(Extender::Create(o, Workload(), GpuModelTable()).ok());
  EXPECT_FALSE(ParseExtenderFilter("most").ok());
  EXPECT_EQ(*ParseExtenderFilter("fit"), ExtenderFilter::kFit);
}

TEST(Extender, FilterSaysWhyEachNodeFails) {
  Fixture f;
  f.nodes[1].schedulable = false;
  f.ext->Sync(f.nodes, {}, 0);
  const Pod pod = MakePod("p", 2000, 2, 1000, ModelMask{1} << f.t4);
  const FilterResult r = f.ext->Filter(pod, {"a", "b", "c", "cpu", "ghost"});
  EXPECT_EQ(r.nodes, std::vector<std::string>({"a"}));
  // None of these would take the pod if pods left them: preemption cannot help.
  EXPECT_TRUE(r.failed.empty());
  ASSERT_EQ(r.unresolvable.size(), 4u);
  EXPECT_EQ(r.unresolvable[0].first, "b");
  EXPECT_EQ(r.unresolvable[0].second, "node is cordoned (spec.unschedulable)");
  EXPECT_EQ(r.unresolvable[1].second, "GPU model V100M16 is not one the pod accepts");
  EXPECT_EQ(r.unresolvable[2].second, "node has no GPUs");
  EXPECT_EQ(r.unresolvable[3].second, "not a node the API server lists");
  const FilterResult big = f.ext->Filter(MakePod("q", 64000, 0, 0), {"a"});
  EXPECT_TRUE(big.nodes.empty());
  EXPECT_EQ(big.unresolvable[0].second, "needs 64000 CPU milli, 32000 free");
  EXPECT_EQ(f.ext->Filter(MakePod("g", 1000, 8, 1000), {"a"}).unresolvable[0].second,
            "needs 8 GPUs, the node has 4");
  // What departures can free is resolvable.
  ASSERT_TRUE(f.ext->Bind(MakePod("cpu-hog", 31000, 0, 0), "a", 0).ok());
  const FilterResult busy = f.ext->Filter(MakePod("q2", 2000, 1, 1000), {"a"});
  ASSERT_EQ(busy.failed.size(), 1u);
  EXPECT_EQ(busy.failed[0].second, "needs 2000 CPU milli, 1000 free");
  EXPECT_TRUE(busy.unresolvable.empty());
}

TEST(Extender, BestFilterKeepsTheTopScoresFitKeepsAll) {
  Fixture best;
  // Half a GPU on node a: fgd then prefers a for the next sharing pod.
  ASSERT_TRUE(best.ext->Bind(MakePod("first", 2000, 1, 500), "a", 0).ok());
  const Pod pod = MakePod("p", 2000, 1, 500);
  const FilterResult r = best.ext->Filter(pod, best.Names());
  EXPECT_EQ(r.nodes, std::vector<std::string>({"a"}));
  ExtenderOptions o;
  o.filter = ExtenderFilter::kFit;
  Fixture fit(o);
  ASSERT_TRUE(fit.ext->Bind(MakePod("first", 2000, 1, 500), "a", 0).ok());
  EXPECT_EQ(fit.ext->Filter(pod, fit.Names()).nodes, std::vector<std::string>({"a", "b", "c"}));
  // Prioritize ranks them: a on top, a node that cannot host the pod at 0.
  const std::vector<HostScore> s = fit.ext->Prioritize(pod, fit.Names());
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].host, "a");
  EXPECT_EQ(s[0].score, kMaxExtenderPriority);
  for (const HostScore& h : s) {
    EXPECT_GE(h.score, 0);
    EXPECT_LE(h.score, kMaxExtenderPriority);
  }
  EXPECT_LT(s[1].score, kMaxExtenderPriority);
  EXPECT_EQ(s[3].score, 0);
}

TEST(Extender, RandomPolicyKeepsOneFittingNode) {
  ExtenderOptions o;
  o.policy = "random";
  Fixture f(o);
  const FilterResult r = f.ext->Filter(MakePod("p", 1000, 1, 1000), f.Names());
  ASSERT_EQ(r.nodes.size(), 1u);
  EXPECT_NE(r.nodes[0], "cpu");
  EXPECT_EQ(r.failed.size(), 2u);  // drawn out
  EXPECT_EQ(r.unresolvable.size(), 1u);  // no GPUs
}

TEST(Extender, BindChargesUntilListedOrExpired) {
  ExtenderOptions o;
  o.assume_ttl_s = 30;
  Fixture f(o);
  const Pod pod = MakePod("p", 4000, 2, 1000);
  auto b = f.ext->Bind(pod, "c", 100);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->node, "c");
  EXPECT_EQ(b->gpus, GpuSet{0b11});  // the lowest fully free GPUs
  EXPECT_EQ(f.ext->assumed(), 1);
  auto free_on_c = [&]() { return f.ext->Nodes()[2].state.GpuLeftTotal(); };
  EXPECT_EQ(free_on_c(), 6000);
  // A listing that does not show the bind yet keeps it charged...
  f.ext->Sync(f.nodes, {}, 110);
  EXPECT_EQ(free_on_c(), 6000);
  // ...a listing that shows it charges it once...
  Pod bound = pod;
  bound.node_name = "c";
  bound.gpus = b->gpus;
  EXPECT_EQ(f.ext->Sync(f.nodes, {bound}, 111), 0);
  EXPECT_EQ(f.ext->assumed(), 0);
  EXPECT_EQ(free_on_c(), 6000);
  // ...and an assumed bind the listing never shows expires.
  ASSERT_TRUE(f.ext->Bind(MakePod("q", 1000, 1, 1000), "a", 200).ok());
  f.ext->Sync(f.nodes, {bound}, 229);
  EXPECT_EQ(f.ext->Nodes()[0].state.GpuLeftTotal(), 3000);
  f.ext->Sync(f.nodes, {bound}, 231);
  EXPECT_EQ(f.ext->Nodes()[0].state.GpuLeftTotal(), 4000);
  // Forget undoes a bind the API server refused.
  ASSERT_TRUE(f.ext->Bind(MakePod("r", 1000, 1, 1000), "a", 300).ok());
  EXPECT_EQ(f.ext->Nodes()[0].state.GpuLeftTotal(), 3000);
  f.ext->Forget("uid-r");
  EXPECT_EQ(f.ext->Nodes()[0].state.GpuLeftTotal(), 4000);
  EXPECT_EQ(f.ext->Nodes()[0].state.cpu_left, 32000);
  f.ext->Sync(f.nodes, {bound}, 301);
  EXPECT_EQ(f.ext->Nodes()[0].state.GpuLeftTotal(), 4000);
}

// A pod that binds and finishes between two Syncs is never listed bound:
// a watch names it departed, a listing may show it terminal; either ends
// its assumed bind at once instead of after the TTL.
TEST(Extender, DepartedOrTerminalPodsEndTheirAssumedBinds) {
  Fixture f;
  ASSERT_TRUE(f.ext->Bind(MakePod("s", 1000, 1, 1000), "a", 10).ok());
  ASSERT_TRUE(f.ext->Bind(MakePod("t", 1000, 1, 1000), "a", 10).ok());
  EXPECT_EQ(f.ext->Nodes()[0].state.GpuLeftTotal(), 2000);
  EXPECT_EQ(f.ext->Sync(f.nodes, {}, 11, {"uid-s", "uid-unknown"}), 0);
  EXPECT_EQ(f.ext->assumed(), 1);
  EXPECT_EQ(f.ext->Nodes()[0].state.GpuLeftTotal(), 3000);
  Pod done = MakePod("t", 1000, 1, 1000);
  done.node_name = "a";
  done.terminal = true;
  EXPECT_EQ(f.ext->Sync(f.nodes, {done}, 12), 0);
  EXPECT_EQ(f.ext->assumed(), 0);
  EXPECT_EQ(f.ext->Nodes()[0].state.GpuLeftTotal(), 4000);
}

TEST(Extender, BindRefusesWhatNoLongerFits) {
  Fixture f;
  EXPECT_EQ(f.ext->Bind(MakePod("p", 1000, 1, 1000), "ghost", 0).status().code(),
            StatusCode::kNotFound);
  ASSERT_TRUE(f.ext->Bind(MakePod("p", 1000, 4, 1000), "a", 0).ok());
  auto again = f.ext->Bind(MakePod("q", 1000, 1, 1000), "a", 0);
  EXPECT_EQ(again.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(again.status().message(),
            "pod default/q no longer fits node a: needs 1 GPU(s) with 1000 milli free, 0 of 4 have it");
}

TEST(Extender, SyncChargesPodsOtherSchedulersBound) {
  Fixture f;
  // Known GPUs first, so the guessed pod does not take GPU 0.
  Pod known = MakePod("known", 1000, 1, 1000);
  known.node_name = "a";
  known.gpus = 0b0001;
  Pod guessed = MakePod("guessed", 1000, 1, 1000);
  guessed.node_name = "a";
  Pod done = MakePod("done", 1000, 4, 1000);
  done.node_name = "a";
  done.terminal = true;
  Pod pending = MakePod("pending", 1000, 4, 1000);
  EXPECT_EQ(f.ext->Sync(f.nodes, {guessed, known, done, pending}, 0), 0);
  const NodeState& a = f.ext->Nodes()[0].state;
  EXPECT_EQ(a.GpuLeftTotal(), 2000);
  EXPECT_EQ(a.gpu_left[0], 0);
  EXPECT_EQ(a.cpu_left, 30000);
  // Pods beyond a node's GPUs are counted as short-charged.
  Pod over = MakePod("over", 1000, 4, 1000);
  over.node_name = "a";
  over.gpus = 0b1111;
  EXPECT_EQ(f.ext->Sync(f.nodes, {known, over}, 0), 1);
}

// The extender driven the way kube-scheduler drives it (filter over every
// node in list order, bind to the first node kept) makes FGD's
// experiment's decisions: same final unallocated GPU share and failures.
TEST(Extender, ReplayMatchesTheFragExperiment) {
  GpuModelTable models;
  const int g2 = *models.Intern("G2"), t4 = *models.Intern("T4"), v100 = *models.Intern("V100M32");
  std::vector<Node> nodes;
  std::vector<NodeSpec> specs;
  for (int i = 0; i < 30; ++i) {
    const int gpus = i % 5 == 4 ? 0 : (i % 3 == 0 ? 8 : (i % 3 == 1 ? 4 : 2));
    const int model = i % 3 == 0 ? g2 : (i % 3 == 1 ? t4 : v100);
    Node n = MakeNode("node-" + std::to_string(i), gpus, model, 64000 + 32000 * (i % 2));
    nodes.push_back(n);
    specs.push_back(n.spec);
  }
  std::vector<PodSpec> trace;
  const int milli[] = {300, 600, 700, 400, 850, 1000, 200};
  for (int i = 0; i < 120; ++i) {
    const std::string name = "pod-" + std::to_string(1000 + i);
    const int kind = (i * 7) % 10;
    if (kind < 5) {
      trace.push_back(Spec(name, 2000 + 1000 * (i % 4), 1, milli[i % 7]));
    } else if (kind < 8) {
      trace.push_back(Spec(name, 8000, 2 << (i % 3), 1000, i % 6 == 0 ? ModelMask{1} << v100 : 0));
    } else {
      trace.push_back(Spec(name, 4000 + 2000 * (i % 3), 0, 0));
    }
  }
  int64_t capacity = 0;
  for (const NodeSpec& s : specs) capacity += int64_t{s.num_gpus} * kMilliPerGpu;
  std::vector<std::string> names;
  for (const Node& n : nodes) names.push_back(n.spec.name);

  std::map<std::string, double> unallocated;
  for (const char* policy : {"fgd", "best-fit", "dotprod", "gpu-packing"}) {
    FragExperimentOptions fo;
    fo.policies = {policy};
    fo.seeds = {42};
    fo.arrived_levels_pct = {1000};  // the final state only
    fo.threads = 1;
    fo.tune = 1.0;
    auto expected = RunFragExperiment(specs, trace, fo);
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    const FragRun& run = expected->results[0].runs[0];

    ExtenderOptions o;
    o.policy = policy;
    auto ext = Extender::Create(o, trace, models);
    ASSERT_TRUE(ext.ok());
    (*ext)->Sync(nodes, {}, 0);
    std::vector<Pod> bound;
    int64_t failed = 0;
    const std::vector<int> arrivals = BuildArrivals(trace, capacity, fo.tune, 42);
    for (size_t k = 0; k < arrivals.size(); ++k) {
      Pod p;
      p.uid = "u" + std::to_string(k);
      p.name = "p" + std::to_string(k);
      p.spec = trace[arrivals[k]];
      const FilterResult r = (*ext)->Filter(p, names);
      if (r.nodes.empty()) {
        ++failed;
        continue;
      }
      auto b = (*ext)->Bind(p, r.nodes[0], 0);
      ASSERT_TRUE(b.ok()) << b.status().message();
      p.node_name = b->node;
      p.gpus = b->gpus;
      bound.push_back(p);
      // Now and then the API server's listing catches up.
      if (k % 17 == 0) {
        ASSERT_EQ((*ext)->Sync(nodes, bound, 1), 0);
      }
    }
    int64_t free_milli = 0;
    for (const NodeView& v : (*ext)->Nodes()) free_milli += v.state.GpuLeftTotal();
    EXPECT_EQ(failed, run.failed_pods) << policy;
    EXPECT_GT(failed, 0) << policy;  // the workload overfills the cluster
    unallocated[policy] = 100.0 * static_cast<double>(free_milli) / static_cast<double>(capacity);
    EXPECT_NEAR(unallocated[policy], run.unallocated_gpu_pct.back(), 1e-9) << policy;
  }
  // The workload tells the policies apart.
  EXPECT_NE(unallocated["fgd"], unallocated["best-fit"]);

  // gshare picks its descent from the same rollouts as in the experiment.
  FragExperimentOptions go;
  go.policies = {"gshare"};
  go.seeds = {42};
  go.threads = 1;
  auto experiment = RunFragExperiment(specs, trace, go);
  ASSERT_TRUE(experiment.ok());
  ExtenderOptions o;
  o.policy = "gshare";
  auto gshare = Extender::Create(o, trace, models);
  ASSERT_TRUE(gshare.ok());
  EXPECT_EQ((*gshare)->decision(), "");
  (*gshare)->Sync(nodes, {}, 0);
  EXPECT_NE((*gshare)->decision(), "");
  EXPECT_EQ((*gshare)->decision(), experiment->results[0].decision);
}

}  // namespace
}  // namespace frugal::share::k8s
