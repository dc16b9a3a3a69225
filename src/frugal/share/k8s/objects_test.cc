#include "frugal/share/k8s/objects.h"

#include <gtest/gtest.h>

namespace frugal::share::k8s {
namespace {

using nlohmann::json;

TEST(Quantity, ParsesKubernetesSuffixes) {
  EXPECT_DOUBLE_EQ(*ParseQuantity("500m"), 0.5);
  EXPECT_DOUBLE_EQ(*ParseQuantity("2"), 2);
  EXPECT_DOUBLE_EQ(*ParseQuantity("1.5"), 1.5);
  EXPECT_DOUBLE_EQ(*ParseQuantity("64Gi"), 64.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*ParseQuantity("128974848"), 128974848);
  EXPECT_DOUBLE_EQ(*ParseQuantity("129M"), 129e6);
  EXPECT_DOUBLE_EQ(*ParseQuantity("1e3"), 1000);
  EXPECT_DOUBLE_EQ(*ParseQuantity("+3k"), 3000);
  EXPECT_DOUBLE_EQ(*ParseQuantity(".5"), 0.5);
  for (const char* bad : {"", "-1", "abc", "1x", "1Gib", "1e", "1e99", "1e-99", "..5", "9E18",
                          "1 Gi"}) {
    auto q = ParseQuantity(bad);
    EXPECT_FALSE(q.ok()) << bad;
  }
}

TEST(GpuIndex, RoundTrips) {
  EXPECT_EQ(*ParseGpuIndex("2"), GpuSet{4});
  EXPECT_EQ(*ParseGpuIndex("0-1-3"), GpuSet{0b1011});
  EXPECT_EQ(GpuIndexString(0b1011), "0-1-3");
  EXPECT_EQ(GpuIndexString(0), "");
  for (const char* bad : {"", "-", "1-", "1--2", "a", "16", "1-1", "-1", "3.0"}) {
    EXPECT_FALSE(ParseGpuIndex(bad).ok()) << bad;
  }
}

json GpuNode(const std::string& name, const std::string& gpus, const std::string& model) {
  return {{"metadata", {{"name", name}, {"labels", {{kGpuModelKey, model}}}}},
          {"status",
           {{"allocatable", {{"cpu", "96"}, {"memory", "512Gi"}, {kGpuCountKey, gpus}}}}}};
}

TEST(NodeFromJson, ReadsAllocatableAndModel) {
  GpuModelTable models;
  auto n = NodeFromJson(GpuNode("n1", "8", "V100M16"), &models);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(n->spec.name, "n1");
  EXPECT_EQ(n->spec.cpu_milli, 96000);
  EXPECT_EQ(n->spec.memory_mib, 512 * 1024);
  EXPECT_EQ(n->spec.num_gpus, 8);
  EXPECT_EQ(models.Name(n->spec.model), "V100M16");
  EXPECT_TRUE(n->schedulable);
}

TEST(NodeFromJson, NvidiaDevicePluginAndCordon) {
  GpuModelTable models;
  json j = {{"metadata",
             {{"name", "a100-0"}, {"labels", {{kNvidiaProductKey, "NVIDIA-A100-SXM4-80GB"}}}}},
            {"spec", {{"unschedulable", true}}},
            {"status", {{"capacity", {{"cpu", "64"}, {"memory", "1Ti"}, {kNvidiaGpuKey, 4}}}}}};
  auto n = NodeFromJson(j, &models);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(n->spec.num_gpus, 4);
  EXPECT_EQ(models.Name(n->spec.model), "NVIDIA-A100-SXM4-80GB");
  EXPECT_FALSE(n->schedulable);
  // A CPU node has no model.
  json cpu = {{"metadata", {{"name", "c"}}}, {"status", {{"allocatable", {{"cpu", "8"}}}}}};
  auto c = NodeFromJson(cpu, &models);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->spec.num_gpus, 0);
  EXPECT_EQ(c->spec.model, 0);
}

TEST(NodeFromJson, BadNodesNameTheNodeAndTheProblem) {
  GpuModelTable models;
  EXPECT_EQ(NodeFromJson(json::array(), &models).status().message(), "node: not a JSON object");
  EXPECT_EQ(NodeFromJson(json::object(), &models).status().message(), "node: no metadata.name");
  auto too_many = NodeFromJson(GpuNode("big", "17", "G2"), &models);
  EXPECT_EQ(too_many.status().message(), "node big: 17 GPUs (at most 16)");
  auto half = NodeFromJson(GpuNode("h", "1.5", "G2"), &models);
  EXPECT_EQ(half.status().message(), "node h: GPU count: not a whole number");
  json bad_cpu = GpuNode("b", "1", "G2");
  bad_cpu["status"]["allocatable"]["cpu"] = "lots";
  EXPECT_EQ(NodeFromJson(bad_cpu, &models).status().message(), "node b: cpu: bad quantity 'lots'");
  GpuModelTable full;
  for (int i = 0; i < kMaxGpuModels; ++i) ASSERT_TRUE(full.Intern("m" + std::to_string(i)).ok());
  EXPECT_FALSE(NodeFromJson(GpuNode("x", "1", "one-too-many"), &full).ok());
}

json Container(json requests, json limits = nullptr) {
  json resources = {{"requests", std::move(requests)}};
  if (!limits.is_null()) resources["limits"] = std::move(limits);
  return {{"name", "c"}, {"resources", resources}};
}

json PodJson(const std::string& name, json containers, json annotations = json::object()) {
  return {{"metadata",
           {{"name", name}, {"namespace", "ml"}, {"uid", "uid-" + name},
            {"annotations", std::move(annotations)}}},
          {"spec", {{"containers", std::move(containers)}}},
          {"status", {{"phase", "Pending"}}}};
}

TEST(PodFromJson, SharedGpuFromAnnotations) {
  GpuModelTable models;
  auto p = PodFromJson(PodJson("infer", json::array({Container({{"cpu", "4"}, {"memory", "16Gi"}})}),
                               {{kGpuMilliKey, "250"}, {kGpuModelKey, "V100M16|V100M32"}}),
                       &models);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->Key(), "ml/infer");
  EXPECT_EQ(p->uid, "uid-infer");
  EXPECT_EQ(p->spec.name, "ml/infer");
  EXPECT_EQ(p->spec.cpu_milli, 4000);
  EXPECT_EQ(p->spec.memory_mib, 16 * 1024);
  EXPECT_EQ(p->spec.num_gpu, 1);
  EXPECT_EQ(p->spec.gpu_milli, 250);
  EXPECT_EQ(p->spec.models, (ModelMask{1} << models.Find("V100M16")) |
                                (ModelMask{1} << models.Find("V100M32")));
  EXPECT_TRUE(p->node_name.empty());
  EXPECT_FALSE(p->gpus.has_value());
  EXPECT_FALSE(p->terminal);
}

TEST(PodFromJson, ContainerResourcesSumAndInitContainersAndOverhead) {
  GpuModelTable models;
  json j = PodJson("train",
                   json::array({Container({{"cpu", "500m"}, {kGpuCountKey, "2"}}),
                                Container({{"cpu", "1500m"}}, {{"memory", "1Gi"}})}));
  j["spec"]["initContainers"] = json::array({Container({{"cpu", "3"}, {"memory", "512Mi"}})});
  j["spec"]["overhead"] = {{"cpu", "100m"}, {"memory", "64Mi"}};
  auto p = PodFromJson(j, &models);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->spec.cpu_milli, 3100);      // max(0.5 + 1.5, 3) + 0.1
  EXPECT_EQ(p->spec.memory_mib, 1024 + 64);  // max(1Gi limit, 512Mi) + 64Mi
  EXPECT_EQ(p->spec.num_gpu, 2);
  EXPECT_EQ(p->spec.gpu_milli, 1000);
}

TEST(PodFromJson, NvidiaGpuBoundAndTerminal) {
  GpuModelTable models;
  json j = PodJson("n", json::array({Container({{kNvidiaGpuKey, 2}})}), {{kGpuIndexKey, "1-3"}});
  j["spec"]["nodeName"] = "node-7";
  auto p = PodFromJson(j, &models);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->spec.num_gpu, 2);
  EXPECT_EQ(p->spec.gpu_milli, 1000);
  EXPECT_EQ(p->node_name, "node-7");
  EXPECT_EQ(p->gpus, GpuSet{0b1010});
  j["status"]["phase"] = "Succeeded";
  EXPECT_TRUE(PodFromJson(j, &models)->terminal);
  j["status"]["phase"] = "Running";
  EXPECT_FALSE(PodFromJson(j, &models)->terminal);
  j["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  EXPECT_TRUE(PodFromJson(j, &models)->terminal);
}

TEST(PodFromJson, KeysMatchIgnoringCase) {
  GpuModelTable models;
  json j = {{"Metadata", {{"Name", "x"}}}, {"Spec", {{"Containers", json::array()}}}};
  auto p = PodFromJson(j, &models);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->Key(), "default/x");
  EXPECT_EQ(p->spec.num_gpu, 0);
}

TEST(PodFromJson, BadPodsNameThePodAndTheProblem) {
  GpuModelTable models;
  auto msg = [&](const json& j) { return PodFromJson(j, &models).status().message(); };
  const json none = json::array();
  EXPECT_EQ(msg(json(3)), "pod: not a JSON object");
  EXPECT_EQ(msg(json::object()), "pod: no metadata.name");
  EXPECT_EQ(msg({{"metadata", {{"name", "p"}}}}), "pod default/p: no spec");
  EXPECT_EQ(msg(PodJson("p", none, {{kGpuMilliKey, "1200"}})),
            "pod ml/p: alibabacloud.com/gpu-milli 1200 is outside 1..1000");
  EXPECT_EQ(msg(PodJson("p", none, {{kGpuMilliKey, "500"}, {kGpuCountKey, "2"}})),
            "pod ml/p: a shared GPU (500 milli) asked of 2 GPUs");
  EXPECT_EQ(msg(PodJson("p", none, {{kGpuCountKey, "17"}})), "pod ml/p: asks for 17 GPUs (at most 16)");
  EXPECT_EQ(msg(PodJson("p", none, {{kGpuCountKey, "1.5"}})),
            "pod ml/p: alibabacloud.com/gpu-count: not a whole number");
  EXPECT_EQ(msg(PodJson("p", none, {{kGpuMilliKey, 500}})),
            "pod ml/p: alibabacloud.com/gpu-milli: annotation is not a string");
  EXPECT_EQ(msg(PodJson("p", json::array({Container({{kNvidiaGpuKey, 1}})}), {{kGpuCountKey, "1"}})),
            "pod ml/p: asks for both nvidia.com/gpu and alibabacloud.com/gpu-count / "
            "alibabacloud.com/gpu-milli");
  EXPECT_EQ(msg(PodJson("p", none, {{kGpuCountKey, "2"}, {kGpuIndexKey, "3"}})),
            "pod ml/p: alibabacloud.com/gpu-index names 1 GPUs, the pod asks 2");
  EXPECT_EQ(msg(PodJson("p", none, {{kGpuCountKey, "1"}, {kGpuIndexKey, "x"}})),
            "pod ml/p: alibabacloud.com/gpu-index: bad GPU list 'x'");
  EXPECT_EQ(msg(PodJson("p", json::array({Container({{"cpu", "-1"}})}))),
            "pod ml/p: cpu: bad quantity '-1'");
  EXPECT_EQ(msg(PodJson("p", json::array({7}))), "pod ml/p: a container is not an object");
}

TEST(Lists, ItemsOrAnError) {
  GpuModelTable models;
  json list = {{"kind", "NodeList"}, {"items", json::array({GpuNode("a", "2", "T4")})}};
  auto nodes = NodesFromList(list, &models, "nodes.json");
  ASSERT_TRUE(nodes.ok());
  EXPECT_EQ(nodes->size(), 1u);
  EXPECT_TRUE(NodesFromList({{"items", nullptr}}, &models, "x")->empty());
  EXPECT_EQ(NodesFromList(json::object(), &models, "nodes.json").status().message(),
            "nodes.json: not a list (no items array)");
  EXPECT_EQ(PodsFromList({{"items", json::array({json::object()})}}, &models, "pods.json")
                .status()
                .message(),
            "pods.json: pod: no metadata.name");
}

}  // namespace
}  // namespace frugal::share::k8s
