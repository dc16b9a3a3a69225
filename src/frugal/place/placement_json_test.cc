#include "frugal/place/placement_json.h"

#include <gtest/gtest.h>

#include "frugal/place/chrome_trace.h"
#include "frugal/place/test_problems.h"

namespace frugal::place {
namespace {

TEST(PlacementJson, RoundTripsDevicesAndOrders) {
  PlacementProblem p = testing::ForkJoin(3, 1, 0.2, 2);
  Placement pl = ScheduleByBottomLevel(p, {0, 0, 1, 0, 0});
  SimResult s = Simulate(p, pl, {.keep_timeline = true});
  ASSERT_TRUE(s.feasible);
  PlacementInfo info;
  info.method = "heft";
  info.lower_bound_ms = 1.0;
  nlohmann::json j = PlacementToJson(p, pl, s, info);
  EXPECT_EQ(j["nodes"].size(), 5u);
  EXPECT_EQ(j["nodes"][2]["device"], 1);
  EXPECT_EQ(j["method"], "heft");
  auto back = ParsePlacementJson("p.json", j.dump(), p);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->device, pl.device);
  EXPECT_EQ(back->order, pl.order);
  EXPECT_FALSE(ParsePlacementJson("p.json", "{}", p).ok());
}

TEST(ChromeTrace, HasOneEventPerOpAndTransfer) {
  PlacementProblem p = testing::ForkJoin(3, 1, 0.2, 2);
  Placement pl = ScheduleByBottomLevel(p, {0, 0, 1, 0, 0});
  SimResult s = Simulate(p, pl, {.keep_timeline = true});
  nlohmann::json t = ChromeTrace(p, pl, s);
  int ops = 0, transfers = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "op") ++ops;
    if (e["ph"] == "X" && e["cat"] == "transfer") ++transfers;
  }
  EXPECT_EQ(ops, 5);
  EXPECT_EQ(transfers, 2);
}

}  // namespace
}  // namespace frugal::place
