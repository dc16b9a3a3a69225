#include "frugal/share/k8s/server.h"

#include "frugal/share/k8s/fake_api_test_util.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <array>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace frugal::share::k8s {
namespace {

using nlohmann::json;

std::vector<PodSpec> ThreePods() {
  std::vector<PodSpec> w(3);
  for (int i = 0; i < 3; ++i) {
    w[i].name = "w" + std::to_string(i);
    w[i].cpu_milli = 2000;
    w[i].num_gpu = 1;
    w[i].gpu_milli = i == 2 ? 1000 : 500;
  }
  return w;
}

struct Harness {
  FakeApi api;
  std::unique_ptr<ApiClient> client;
  std::unique_ptr<Extender> extender;
  std::unique_ptr<ExtenderServer> server;
  std::vector<std::string> log;
  double now = 0;
  Harness() {
    api.AddNode("n0", 2, "T4");
    api.AddNode("n1", 4, "T4");
    api.AddNode("n2", 8, "V100M16");
    ApiOptions ao;
    ao.url = api.url();
    auto c = ApiClient::Create(ao);
    EXPECT_TRUE(c.ok());
    client = std::move(*c);
    auto e = Extender::Create({}, ThreePods(), GpuModelTable());
    EXPECT_TRUE(e.ok());
    extender = std::move(*e);
    ServerOptions so;
    so.port = 0;
    so.log = [this](const std::string& l) { log.push_back(l); };
    so.clock = [this] { return now; };
    server = std::make_unique<ExtenderServer>(extender.get(), client.get(), so);
  }
  json FilterArgs(const json& pod) const { return {{"pod", pod}, {"nodenames", {"n0", "n1", "n2"}}}; }
  json BindArgs(const std::string& name, const std::string& node) const {
    return {{"podName", name}, {"podNamespace", "ml"}, {"podUID", "uid-" + name}, {"node", node}};
  }
};

TEST(ExtenderServer, FilterBindAnnotatesAndBinds) {
  Harness h;
  const json pod = h.api.AddPod("infer", 1, 500);
  const json f = h.server->Filter(h.FilterArgs(pod));
  ASSERT_FALSE(f.contains("error")) << f.dump();
  ASSERT_FALSE(f["nodenames"].empty());
  EXPECT_EQ(h.api.field_selector(),
            "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed");
  const std::string node = f["nodenames"][0];
  const json b = h.server->BindPod(h.BindArgs("infer", node));
  EXPECT_EQ(b, json::object()) << b.dump();
  const json bound = h.api.Pod("ml/infer");
  EXPECT_EQ(bound["spec"]["nodeName"], node);
  EXPECT_EQ(bound["metadata"]["annotations"][kGpuIndexKey], "0");
  EXPECT_TRUE(bound["metadata"]["annotations"].contains("alibabacloud.com/assume-time"));
  const json state = h.server->State();
  EXPECT_EQ(state["binds"], 1);
  EXPECT_EQ(state["gpus"], 14);
  EXPECT_NEAR(state["unallocated_gpu_pct"].get<double>(), 100.0 * 13.5 / 14, 1e-9);
  ASSERT_EQ(h.log.size(), 1u);
  EXPECT_EQ(h.log[0], "bind ml/infer -> " + node + " gpus 0");
}

TEST(ExtenderServer, PackingOverRefreshesNeverOvercommitsAGpu) {
  Harness h;
  int bound = 0, unschedulable = 0;
  for (int i = 0; i < 40; ++i) {
    const int kind = i % 4;
    const std::string name = "p" + std::to_string(i);
    const json pod = h.api.AddPod(name, kind == 3 ? 2 : 1, kind == 3 ? 1000 : 300 + 200 * kind);
    const json f = h.server->Filter(h.FilterArgs(pod));
    ASSERT_FALSE(f.contains("error")) << f.dump();
    if (f["nodenames"].empty()) {
      ++unschedulable;
      continue;
    }
    ASSERT_EQ(h.server->BindPod(h.BindArgs(name, f["nodenames"][0])), json::object());
    ++bound;
    h.now += 1;
  }
  EXPECT_GT(bound, 10);
  EXPECT_GT(unschedulable, 0);  // the cluster fills up
  // What the API server holds: each GPU's pods fit in it.
  std::map<std::string, std::array<int, 16>> used;
  for (const auto& [key, pod] : h.api.Pods()) {
    if (pod["spec"].value("nodeName", "").empty()) continue;
    GpuModelTable models;
    auto p = PodFromJson(pod, &models);
    ASSERT_TRUE(p.ok()) << p.status().message();
    ASSERT_TRUE(p->gpus.has_value()) << key;
    for (int g = 0; g < 16; ++g) {
      if ((*p->gpus >> g) & 1u) used[p->node_name][g] += p->spec.gpu_milli;
    }
  }
  for (const auto& [node, gpus] : used) {
    for (int milli : gpus) EXPECT_LE(milli, 1000) << node;
  }
  EXPECT_EQ(h.server->State()["binds"], bound);
}

TEST(ExtenderServer, ResyncReadsTheClusterAtMostThatOften) {
  FakeApi api;
  api.AddNode("n0", 2, "T4");
  ApiOptions ao;
  ao.url = api.url();
  auto client = ApiClient::Create(ao);
  ASSERT_TRUE(client.ok());
  auto extender = Extender::Create({}, ThreePods(), GpuModelTable());
  ASSERT_TRUE(extender.ok());
  double now = 0;
  ServerOptions so;
  so.clock = [&] { return now; };
  so.resync_s = 5;
  ExtenderServer server(extender->get(), client->get(), so);
  auto filter = [&](const std::string& name) {
    return server.Filter({{"pod", api.AddPod(name, 1, 1000)}, {"nodenames", {"n0", "n1"}}});
  };
  // n1 joins after the first read: unseen until resync_s has passed.
  EXPECT_EQ(filter("a")["nodenames"], json::array({"n0"}));
  api.AddNode("n1", 2, "T4");
  now = 4;
  EXPECT_EQ(filter("b")["failedAndUnresolvableNodes"]["n1"], "not a node the API server lists");
  now = 5;
  EXPECT_EQ(filter("c")["nodenames"].size(), 2u);
  // Its own binds count in between.
  ASSERT_EQ(server.BindPod({{"podName", "c"}, {"podNamespace", "ml"}, {"podUID", "uid-c"}, {"node", "n1"}}),
            json::object());
  ASSERT_EQ(server.BindPod({{"podName", "b"}, {"podNamespace", "ml"}, {"podUID", "uid-b"}, {"node", "n1"}}),
            json::object());
  now = 6;
  EXPECT_EQ(filter("d")["failedNodes"]["n1"], "needs 1 GPU(s) with 1000 milli free, 0 of 2 have it");
}

TEST(ExtenderServer, FilterEchoesNodeObjectsWhenNotCacheCapable) {
  Harness h;
  const json pod = h.api.AddPod("big", 8, 1000);
  json nodes = json::array();
  for (const char* n : {"n0", "n1", "n2"}) nodes.push_back({{"metadata", {{"name", n}}}});
  const json f = h.server->Filter({{"Pod", pod}, {"Nodes", {{"items", nodes}}}});
  EXPECT_EQ(f["nodenames"], json::array({"n2"}));
  ASSERT_EQ(f["nodes"]["items"].size(), 1u);
  EXPECT_EQ(f["nodes"]["items"][0]["metadata"]["name"], "n2");
  EXPECT_EQ(f["failedAndUnresolvableNodes"]["n0"], "needs 8 GPUs, the node has 2");
}

TEST(ExtenderServer, PrioritizeScoresEveryCandidate) {
  Harness h;
  ASSERT_TRUE(h.server->Refresh().ok());
  auto r = h.server->Prioritize(h.FilterArgs(h.api.AddPod("p", 1, 500)));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 3u);
  for (const json& s : *r) {
    EXPECT_GE(s["score"].get<int>(), 0);
    EXPECT_LE(s["score"].get<int>(), kMaxExtenderPriority);
  }
  EXPECT_FALSE(h.server->Prioritize(json::object()).ok());
}

TEST(ExtenderServer, RefusedBindIsForgotten) {
  Harness h;
  const json pod = h.api.AddPod("p", 4, 1000);
  const json f = h.server->Filter(h.FilterArgs(pod));
  ASSERT_FALSE(f["nodenames"].empty());
  h.api.set_refuse_binds(true);
  const json b = h.server->BindPod(h.BindArgs("p", f["nodenames"][0]));
  ASSERT_TRUE(b.contains("error"));
  EXPECT_NE(b["error"].get<std::string>().find("HTTP 409"), std::string::npos) << b.dump();
  EXPECT_EQ(h.server->State()["assumed_pods"], 0);
  EXPECT_EQ(h.server->State()["bind_failures"], 1);
  // A pod bind has not seen through filter is fetched from the API server.
  h.api.set_refuse_binds(false);
  h.api.AddPod("direct", 1, 1000);
  EXPECT_EQ(h.server->BindPod(h.BindArgs("direct", "n1")), json::object());
  EXPECT_NE(h.server->BindPod(h.BindArgs("ghost", "n1")).value("error", "").find("HTTP 404"),
            std::string::npos);
  EXPECT_EQ(h.server->BindPod({{"node", "n1"}}), json({{"error", "bind: podName and node are required"}}));
}

TEST(ExtenderServer, ErrorsReachTheScheduler) {
  Harness h;
  EXPECT_EQ(h.server->Filter(json::object()), json({{"error", "filter: no pod in the request"}}));
  const json bad_pod = h.server->Filter({{"pod", {{"metadata", {{"name", "x"}}}}}});
  EXPECT_EQ(bad_pod, json({{"error", "filter: pod default/x: no spec"}}));
  // A token the API server rejects.
  h.api.set_token("secret");
  const json denied = h.server->Filter(h.FilterArgs(h.api.AddPod("p", 1, 500)));
  EXPECT_NE(denied.value("error", "").find("HTTP 401"), std::string::npos) << denied.dump();
}

TEST(ExtenderServer, TokenIsSentAndRereadEachRequest) {
  FakeApi api;
  api.AddNode("n0", 1, "T4");
  api.set_token("tok-1");
  const std::string token_file = ::testing::TempDir() + "/k8s_token";
  auto write = [&](const std::string& t) {
    FILE* f = std::fopen(token_file.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(t.c_str(), f);
    std::fclose(f);
  };
  write("tok-1\n");
  ApiOptions ao;
  ao.url = api.url();
  ao.token_file = token_file;
  auto client = ApiClient::Create(ao);
  ASSERT_TRUE(client.ok());
  EXPECT_TRUE((*client)->Get("/api/v1/nodes").ok());
  api.set_token("tok-2");
  write("tok-2");
  EXPECT_TRUE((*client)->Get("/api/v1/nodes").ok());
  std::remove(token_file.c_str());
  const Status gone = (*client)->Get("/api/v1/nodes").status();
  EXPECT_NE(gone.message().find("API token"), std::string::npos) << gone.message();
}

TEST(ApiClient, BadUrlsAndUnreachableServers) {
  for (const char* url : {"", "127.0.0.1:8001", "ftp://h", "http://", "http:///x"}) {
    ApiOptions o;
    o.url = url;
    EXPECT_EQ(ApiClient::Create(o).status().code(), StatusCode::kInvalidArgument) << url;
  }
  ApiOptions o;
  o.timeout_s = 0;
  EXPECT_FALSE(ApiClient::Create(o).ok());
  // Nothing listens on a port we bound and closed.
  int port = 0;
  {
    httplib::Server s;
    port = s.bind_to_any_port("127.0.0.1");
  }
  o = {};
  o.url = "http://127.0.0.1:" + std::to_string(port) + "/prefix/";
  o.timeout_s = 2;
  auto c = ApiClient::Create(o);
  ASSERT_TRUE(c.ok()) << c.status().message();
  const Status s = (*c)->Get("/api/v1/nodes").status();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("GET " + o.url + "/api/v1/nodes: cannot reach the API server"),
            std::string::npos)
      << s.message();
}

TEST(ExtenderServer, ServesTheProtocolOverHttp) {
  Harness h;
  auto port = h.server->Bind();
  ASSERT_TRUE(port.ok()) << port.status().message();
  std::thread t([&] { h.server->Run(); });
  httplib::Client c("127.0.0.1", *port);
  // The server thread may start late on a loaded host: wait for it (up to
  // 30 s, returning as soon as it answers).
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!c.Get("/healthz") && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  auto health = c.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->body, "ok");
  const json pod = h.api.AddPod("web", 1, 250);
  auto f = c.Post("/scheduler/filter", h.FilterArgs(pod).dump(), "application/json");
  ASSERT_TRUE(f);
  const json fj = json::parse(f->body);
  ASSERT_FALSE(fj["nodenames"].empty()) << f->body;
  auto p = c.Post("/scheduler/prioritize", h.FilterArgs(pod).dump(), "application/json");
  ASSERT_TRUE(p);
  EXPECT_EQ(json::parse(p->body).size(), 3u);
  auto b = c.Post("/scheduler/bind", h.BindArgs("web", fj["nodenames"][0]).dump(), "application/json");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->body, "{}");
  auto bad = c.Post("/scheduler/filter", "{not json", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(json::parse(bad->body)["error"], "filter: the request is not JSON");
  auto bad_p = c.Post("/scheduler/prioritize", "[", "application/json");
  ASSERT_TRUE(bad_p);
  EXPECT_EQ(bad_p->status, 400);
  auto state = c.Get("/state");
  ASSERT_TRUE(state);
  EXPECT_EQ(json::parse(state->body)["binds"], 1);
  // A second server cannot take the same port.
  ServerOptions so;
  so.port = *port;
  ExtenderServer other(h.extender.get(), h.client.get(), so);
  EXPECT_EQ(other.Bind().status().code(), StatusCode::kFailedPrecondition);
  h.server->Stop();
  t.join();
}

}  // namespace
}  // namespace frugal::share::k8s
