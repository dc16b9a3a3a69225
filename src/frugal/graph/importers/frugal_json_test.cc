#include <filesystem>

#include <gtest/gtest.h>

#include "frugal/base/file_io.h"
#include "frugal/graph/graph_json.h"
#include "frugal/graph/importer.h"
#include "frugal/graph/test_graphs.h"
#include "frugal/graph/training.h"

namespace frugal {
namespace {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / name).string();
}

void ExpectRoundTrip(const OpGraph& g, const std::string& file) {
  std::string path = TempPath(file);
  ASSERT_TRUE(WriteGraphJson(g, path).ok());
  auto back = ImportGraph(path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->source_format, g.source_format);
  EXPECT_TRUE(*back == g);
  std::filesystem::remove(path);
}

TEST(FrugalJsonImporter, RoundTripIsLossless) {
  OpGraph g = testing::TinyConvNet(3);
  g.source_format = "test";
  g.ops[0].attrs.floats["epsilon"] = 1e-5;
  g.ops[0].attrs.strings["auto_pad"] = "NOTSET";
  g.ops[2].measured_time_ms = 0.1234567890123;
  ExpectRoundTrip(g, "frugal_rt_forward.json");
  OpGraph t = *BuildTrainingGraph(g);
  ExpectRoundTrip(t, "frugal_rt_training.json");
}

TEST(FrugalJsonImporter, RoundTripsAProfiledGraph) {
  auto g = ImportGraph(std::string(FRUGAL_SHARED_DATA) +
                       "/graphs/dnn-partitioning/throughput-inputs/LayerGraphs/gnmt_training.json");
  ASSERT_TRUE(g.ok());
  ExpectRoundTrip(*g, "frugal_rt_gnmt.json");
}

TEST(FrugalJsonImporter, RejectsMissingFieldsAndBadValues) {
  auto from = [](const std::string& text) {
    return ImportGraphFromContents("g.json", text, {}, "frugal");
  };
  const std::string head = R"({"format": "frugal-graph", "version": 1, "name": "x", )";
  auto r = from(head + R"("edges": []})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("g.json: missing field 'ops'"), std::string::npos);
  r = from(head + R"("ops": [{"name": "a", "kind": "warp"}], "edges": []})");
  EXPECT_NE(r.status().message().find("unknown kind 'warp'"), std::string::npos);
  r = from(head + R"("ops": [{"name": "a", "kind": "relu", "flops": -3}], "edges": []})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("g.json"), std::string::npos);
  r = from(head + R"("ops": [{"name": "a", "kind": "relu"}, {"name": "b", "kind": "relu"}],
                      "edges": [{"src": 0, "dst": 1}, {"src": 1, "dst": 0}]})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cycle"), std::string::npos);
  r = from(head + R"("ops": [{"name": "a", "kind": "relu", "outputs": [{"name": "t", "dtype": "float32", "shape": [2, -1]}]}], "edges": []})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("negative dimension"), std::string::npos);
  r = from(R"({"format": "frugal-graph", "version": 9})");
  EXPECT_NE(r.status().message().find("unsupported version"), std::string::npos);
  r = from(head + R"("ops": "nope", "edges": []})");
  EXPECT_FALSE(r.ok());
  // Absurd integers: out of the field's range (not truncated), a float
  // where an integer belongs, a count no model has; and an empty graph.
  auto op = [&](const std::string& field) {
    return from(head + R"("ops": [{"name": "a", "kind": "relu", )" + field + "}], \"edges\": []}")
        .status()
        .message();
  };
  EXPECT_NE(op(R"("forward_op": 9223372036854775807)").find("field 'forward_op' is 9223372036854775807, not an integer"),
            std::string::npos);
  EXPECT_NE(op(R"("param_count": 1e308)").find("field 'param_count' is 1e+308, not an integer"), std::string::npos);
  EXPECT_NE(op(R"("param_count": 9223372036854775807)").find("absurd parameter count"), std::string::npos);
  EXPECT_NE(op(R"("bytes_read": 18446744073709551615)").find("not an integer"), std::string::npos);
  EXPECT_NE(from(head + R"("ops": [], "edges": []})").status().message().find("'ops' is empty"),
            std::string::npos);
}

}  // namespace
}  // namespace frugal
