#include "frugal/share/k8s/watch.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "frugal/share/k8s/fake_api_test_util.h"
#include "frugal/share/k8s/server.h"

namespace frugal::share::k8s {
namespace {

using nlohmann::json;

ApiOptions Options(const FakeApi& api) {
  ApiOptions o;
  o.url = api.url();
  o.timeout_s = 5;
  return o;
}

json Bound(json pod, const std::string& node, const std::string& gpus) {
  pod["spec"]["nodeName"] = node;
  pod["status"]["phase"] = "Running";
  pod["metadata"]["annotations"][kGpuIndexKey] = gpus;
  return pod;
}

// How long a wait below may take before the test gives up: generous, since
// each returns as soon as its condition holds and a loaded CI host can stall
// the watch thread for seconds.
constexpr std::chrono::seconds kPatience{30};

// Waits until the fake has had `n` watch requests (at most kPatience).
void WaitWatches(FakeApi& api, int n) {
  const auto until = std::chrono::steady_clock::now() + kPatience;
  while (api.watches() < n && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// Waits until `done` holds of a fresh snapshot (at most kPatience).
template <typename F>
ClusterWatch::View WaitFor(ClusterWatch& w, GpuModelTable* models, F done) {
  const auto until = std::chrono::steady_clock::now() + kPatience;
  uint64_t g = 0;
  for (;;) {
    ClusterWatch::View v = w.Snapshot(models);
    if (done(v) || std::chrono::steady_clock::now() > until) return v;
    g = w.WaitChange(g, 0.2);
  }
}

TEST(ClusterWatch, ListsThenFollowsEventsWithoutListingAgain) {
  FakeApi api;
  api.AddNode("n0", 2, "T4");
  const json a = api.AddPod("a", 1, 500);
  api.SetPod("ml/a", Bound(a, "n0", "0"));
  api.AddPod("pending", 1, 500);  // not bound: not in the pod list
  ClusterWatch w(Options(api));
  ASSERT_TRUE(w.Start().ok());
  GpuModelTable models;
  ClusterWatch::View v = w.Snapshot(&models);
  EXPECT_TRUE(v.changed);
  ASSERT_EQ(v.nodes.size(), 1u);
  ASSERT_EQ(v.pods.size(), 1u);
  EXPECT_EQ(v.pods[0].Key(), "ml/a");
  EXPECT_FALSE(w.Snapshot(&models).changed);

  // A node joins, a pod is bound by someone else, then `a` finishes: the
  // selector drops it, which the server sends as DELETED.
  api.AddNode("n1", 4, "T4");
  api.SetPod("ml/pending", Bound(api.Pod("ml/pending"), "n1", "2"));
  json done = api.Pod("ml/a");
  done["status"]["phase"] = "Succeeded";
  api.SetPod("ml/a", done);
  v = WaitFor(w, &models, [](const ClusterWatch::View& v) {
    return v.nodes.size() == 2 && v.pods.size() == 1 && v.pods[0].name == "pending";
  });
  ASSERT_EQ(v.nodes.size(), 2u);
  ASSERT_EQ(v.pods.size(), 1u);
  EXPECT_EQ(v.pods[0].name, "pending");
  EXPECT_EQ(v.pods[0].node_name, "n1");
  EXPECT_EQ(api.lists(), 2);
  EXPECT_EQ(w.stats().lists, 2);
  EXPECT_EQ(w.stats().events, 3);  // n1 added, pending added, a deleted
}

// A pod that binds and finishes between two Snapshots never shows in one;
// the Snapshot after names it departed, once.
TEST(ClusterWatch, NamesThePodsThatLeftSinceTheLastSnapshot) {
  FakeApi api;
  api.AddNode("n0", 2, "T4");
  ClusterWatch w(Options(api));
  ASSERT_TRUE(w.Start().ok());
  GpuModelTable models;
  EXPECT_TRUE(w.Snapshot(&models).departed.empty());
  json b = Bound(api.AddPod("b", 1, 1000), "n0", "0");
  api.SetPod("ml/b", b);
  b["status"]["phase"] = "Succeeded";
  api.SetPod("ml/b", b);
  const auto until = std::chrono::steady_clock::now() + kPatience;
  while (w.stats().events < 2 && std::chrono::steady_clock::now() < until) {
    w.WaitChange(w.generation(), 0.1);
  }
  ASSERT_EQ(w.stats().events, 2);  // b added, b deleted
  ClusterWatch::View v = w.Snapshot(&models);
  EXPECT_TRUE(v.pods.empty());
  EXPECT_EQ(v.departed, std::vector<std::string>{"uid-b"});
  EXPECT_TRUE(w.Snapshot(&models).departed.empty());
}

TEST(ClusterWatch, WatchesAgainWhenTheServerEndsAWatchAndListsAfterGone) {
  FakeApi api;
  api.AddNode("n0", 2, "T4");
  ClusterWatch w(Options(api));
  ASSERT_TRUE(w.Start().ok());
  GpuModelTable models;
  WaitWatches(api, 2);
  api.EndWatches();
  api.AddNode("n1", 2, "T4");
  ClusterWatch::View v = WaitFor(w, &models, [](const auto& v) { return v.nodes.size() == 2; });
  EXPECT_EQ(v.nodes.size(), 2u);
  EXPECT_EQ(api.lists(), 2);  // from the last version, not a new list
  EXPECT_GE(w.stats().rewatches, 1);

  // Events lost to compaction: the watch is refused (410) and re-lists.
  WaitWatches(api, 4);
  api.ExpireWatches();
  api.AddNode("n2", 2, "T4");
  v = WaitFor(w, &models, [](const auto& v) { return v.nodes.size() == 3; });
  EXPECT_EQ(v.nodes.size(), 3u);
  EXPECT_GT(w.stats().lists, 2);
}

TEST(ClusterWatch, StartFailsOnAnUnreachableServerAndStopIsPrompt) {
  ApiOptions o;
  o.url = "http://127.0.0.1:1";
  o.timeout_s = 1;
  ClusterWatch unreachable(o);
  const Status s = unreachable.Start();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/api/v1/nodes"), std::string::npos) << s.message();

  FakeApi api;
  ClusterWatch w(Options(api));
  ASSERT_TRUE(w.Start().ok());
  const auto t0 = std::chrono::steady_clock::now();
  w.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
}

TEST(ClusterWatch, UnreadableObjectsAreSkippedAndCounted) {
  FakeApi api;
  api.AddNode("n0", 2, "T4");
  json bad = api.AddPod("bad", 1, 500);
  bad["metadata"]["annotations"][kGpuMilliKey] = "2000";  // over 1000
  api.SetPod("ml/bad", Bound(bad, "n0", "0"));
  ClusterWatch w(Options(api));
  ASSERT_TRUE(w.Start().ok());
  GpuModelTable models;
  const ClusterWatch::View v = w.Snapshot(&models);
  EXPECT_EQ(v.pods.size(), 0u);
  EXPECT_EQ(v.skipped, 1);
  EXPECT_NE(v.first_skip.find("ml/bad"), std::string::npos) << v.first_skip;
}

// The extender served from a watch: its view follows the cluster without a
// list per filter, and its binds never over-commit a GPU.
TEST(ExtenderServer, FromAWatchFiltersWithoutListing) {
  FakeApi api;
  api.AddNode("n0", 2, "T4");
  api.AddNode("n1", 2, "T4");
  ApiOptions ao = Options(api);
  auto client = ApiClient::Create(ao);
  ASSERT_TRUE(client.ok());
  std::vector<PodSpec> workload(1);
  workload[0].name = "w";
  workload[0].cpu_milli = 2000;
  workload[0].num_gpu = 1;
  workload[0].gpu_milli = 1000;
  auto extender = Extender::Create({}, workload, GpuModelTable());
  ASSERT_TRUE(extender.ok());
  ClusterWatch w(ao);
  ASSERT_TRUE(w.Start().ok());
  ServerOptions so;
  so.watch = &w;
  ExtenderServer server(extender->get(), client->get(), so);
  int bound = 0;
  for (int i = 0; i < 6; ++i) {
    const std::string name = "p" + std::to_string(i);
    const json f = server.Filter({{"pod", api.AddPod(name, 1, 1000)}, {"nodenames", {"n0", "n1"}}});
    ASSERT_FALSE(f.contains("error")) << f.dump();
    if (f["nodenames"].empty()) continue;
    ASSERT_EQ(server.BindPod({{"podName", name}, {"podNamespace", "ml"}, {"podUID", "uid-" + name},
                              {"node", f["nodenames"][0]}}),
              json::object());
    ++bound;
  }
  EXPECT_EQ(bound, 4);  // four whole GPUs
  EXPECT_EQ(api.lists(), 2);
  // A pod finishes: once the watch has it, its GPU is free again.
  json done = api.Pod("ml/p0");
  done["status"]["phase"] = "Succeeded";
  api.SetPod("ml/p0", done);
  const auto until = std::chrono::steady_clock::now() + kPatience;
  json f;
  do {
    f = server.Filter({{"pod", api.AddPod("late", 1, 1000)}, {"nodenames", {"n0", "n1"}}});
  } while (f["nodenames"].empty() && std::chrono::steady_clock::now() < until &&
           (w.WaitChange(w.generation(), 0.1), true));
  EXPECT_EQ(f["nodenames"].size(), 1u) << f.dump();
  const json state = server.State();
  EXPECT_EQ(state["watch"]["lists"], 2);
  EXPECT_GE(state["watch"]["events"].get<int>(), 4);
}

}  // namespace
}  // namespace frugal::share::k8s
