#include "frugal/place/topology.h"

#include <gtest/gtest.h>

namespace frugal::place {
namespace {

TEST(Topology, NvlinkHasOneLinkPerDirectedPair) {
  Topology t = NvlinkTopology(3);
  EXPECT_EQ(t.links.size(), 6u);
  EXPECT_NE(t.Route(0, 1), t.Route(1, 0));
  EXPECT_TRUE(t.Route(2, 2).empty());
}

TEST(Topology, PcieSharesOneBridge) {
  Topology t = PcieTopology(4);
  EXPECT_EQ(t.Route(0, 1), t.Route(2, 3));
}

TEST(Topology, MeasuredCostWinsOverBytes) {
  Topology t = NvlinkTopology(2);
  EXPECT_DOUBLE_EQ(t.TransferMs(1 << 30, 2.5, 0, 1), 2.5);
  // 50 GB/s: 5e9 bytes take 100 ms plus 5 us.
  EXPECT_NEAR(t.TransferMs(5'000'000'000, -1, 0, 1), 100.005, 1e-9);
}

TEST(Topology, ParsesCustomFile) {
  auto t = ParseTopology("t.json", R"({"devices": 2, "links": [
      {"name": "a", "bw_gbps": 10, "latency_us": 1, "pairs": [[0, 1]]},
      {"name": "b", "bw_gbps": 20, "pairs": [[1, 0]]}]})", 2);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->Route(0, 1), std::vector<int>{0});
  EXPECT_NEAR(t->TransferMs(10'000'000, -1, 0, 1), 1.001, 1e-9);
}

TEST(Topology, RejectsMissingRouteAndBadBandwidth) {
  auto t = ParseTopology("t.json", R"({"links": [{"name": "a", "bw_gbps": 10, "pairs": [[0, 1]]}]})", 2);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("t.json: no link carries transfers from device 1"),
            std::string::npos);
  t = ParseTopology("t.json", R"({"links": [{"bw_gbps": -1}]})", 2);
  EXPECT_FALSE(t.ok());
  t = ParseTopology("t.json", R"({"devices": 4, "links": []})", 2);
  EXPECT_FALSE(t.ok());
  EXPECT_FALSE(MakeTopology("nvlink", 0).ok());
}

TEST(Topology, UnknownKeysAndRepeatedPairsAreErrors) {
  const std::string ring = R"({"name": "ring 0->1", "bw_gbps": 25, "pairs": [[0, 1]]},
                               {"name": "ring 1->0", "bw_gbps": 25, "pairs": [[1, 0]]})";
  EXPECT_TRUE(ParseTopology("t.json", "{\"links\": [" + ring + "]}", 2).ok());
  auto t = ParseTopology("t.json", "{\"link\": 1, \"links\": [" + ring + "]}", 2);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("t.json: unknown key 'link'"), std::string::npos) << t.status().message();
  t = ParseTopology("t.json", R"({"links": [{"bw_gbps": 25, "bandwidth": 5, "pairs": [[0, 1], [1, 0]]}]})", 2);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("link 0: unknown key 'bandwidth'"), std::string::npos);
  t = ParseTopology("t.json", R"({"links": [{"bw_gbps": 25, "pairs": [[0, 1], [1, 0], [0, 1]]}]})", 2);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("pair [0, 1] listed twice"), std::string::npos);
}

TEST(Topology, NonStringLinkNameIsAnError) {
  // Found by fuzz_topology: nlohmann's value() threw on a non-string name.
  auto t = ParseTopology("t.json", R"({"links": [{"name": [[0, 1]], "bw_gbps": 1}]})", 2);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "t.json: link 0: 'name' is not a string");
}

}  // namespace
}  // namespace frugal::place
