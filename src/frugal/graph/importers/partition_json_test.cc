#include <filesystem>

#include <gtest/gtest.h>

#include "frugal/base/file_io.h"
#include "frugal/graph/importer.h"

namespace frugal {
namespace {

const std::string kDir = std::string(FRUGAL_SHARED_DATA) + "/graphs/dnn-partitioning/";

Result<OpGraph> FromText(const std::string& text) {
  return ImportGraphFromContents("bad.json", text, {}, "dnn-partitioning");
}

TEST(PartitionJsonImporter, KeepsMeasuredTimesAndSizesExactly) {
  auto g = ImportGraph(kDir + "throughput-inputs/OperatorGraphs/resnet50_training.json");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->source_format, "dnn-partitioning");
  EXPECT_EQ(g->num_ops(), 1243);
  EXPECT_EQ(g->edges.size(), 1806u);
  EXPECT_DOUBLE_EQ(g->device_mem_bytes, 17185374208.0);
  EXPECT_EQ(g->ops[0].name, "gpu_0/res4_2_branch2b_w_0");
  EXPECT_EQ(g->ops[0].measured_mem_bytes, 2359296);
  EXPECT_EQ(g->ops[0].color_class, 37);
  EXPECT_DOUBLE_EQ(g->edges[0].measured_cost_ms, 1.0986328125);
  EXPECT_EQ(g->edges[0].bytes, 2359296);
  EXPECT_TRUE(g->IsTraining());
}

TEST(PartitionJsonImporter, ImportsEveryGraphInTheSharedFolder) {
  int n = 0;
  for (const char* sub : {"throughput-inputs", "latency-inputs"}) {
    for (const char* kind : {"OperatorGraphs", "LayerGraphs"}) {
      for (const auto& e : std::filesystem::directory_iterator(kDir + sub + "/" + kind)) {
        auto g = ImportGraph(e.path().string());
        EXPECT_TRUE(g.ok()) << g.status().ToString();
        ++n;
      }
    }
  }
  EXPECT_GE(n, 20);
}

TEST(PartitionJsonImporter, RejectsBadInputWithOneLineErrors) {
  const std::string node =
      R"({"id": 0, "fpgaLatency": 1.0, "size": 10})";
  auto expect_error = [](const Result<OpGraph>& r, const std::string& needle) {
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("bad.json"), std::string::npos);
    EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
    EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
  };
  expect_error(FromText(R"({"nodes": [)"), "malformed JSON");
  expect_error(FromText(R"({"edges": []})"), "nodes");
  expect_error(FromText(R"({"nodes": [{"id": 0, "size": 1}], "edges": []})"), "fpgaLatency");
  expect_error(FromText(R"({"nodes": [{"id": 0, "fpgaLatency": -1, "size": 1}], "edges": []})"),
               "negative");
  expect_error(FromText(R"({"nodes": [{"id": 0, "fpgaLatency": 1, "size": -8}], "edges": []})"),
               "negative");
  expect_error(FromText(R"({"nodes": [)" + node + R"(], "edges": [{"sourceId": 0, "destId": 7, "cost": 1}]})"),
               "does not exist");
  expect_error(FromText(R"({"nodes": [)" + node + "," + node + R"(], "edges": []})"), "duplicate id");
  expect_error(
      FromText(R"({"nodes": [{"id": 0, "fpgaLatency": 1, "size": 1}, {"id": 1, "fpgaLatency": 1, "size": 1}],
                   "edges": [{"sourceId": 0, "destId": 1, "cost": 1}, {"sourceId": 1, "destId": 0, "cost": 1}]})"),
      "cycle");
  expect_error(FromText(R"({"nodes": [{"id": "x", "fpgaLatency": 1, "size": 1}], "edges": []})"),
               "not a number");
}

}  // namespace
}  // namespace frugal
