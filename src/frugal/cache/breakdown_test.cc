#include "frugal/cache/breakdown.h"

#include <gtest/gtest.h>

#include "frugal/cache/generated_test_trace.h"
#include "frugal/cache/simulator.h"

namespace frugal::cache {
namespace {

TraceEvent Ev(int64_t t_s, EventKind k, const std::string& path, int64_t len, int32_t stage) {
  TraceEvent e;
  e.time_us = t_s * 1000000;
  e.kind = k;
  e.path = path;
  e.length = len;
  e.size = len;
  e.pipeline = 0;
  e.stage = stage;
  return e;
}

// Day 0: stage 0 writes two shards and stage 1 reads them; day 1: stage 1
// reads one again.
RequestTrace TwoDays() {
  const int64_t day = 86400;
  std::vector<TraceEvent> ev = {
      Ev(0, EventKind::kWrite, "/out/p0/part-0001.rec", 100, 0),
      Ev(1, EventKind::kWrite, "/out/p0/part-0002.rec", 100, 0),
      Ev(2, EventKind::kRead, "/out/p0/part-0001.rec", 100, 1),
      Ev(3, EventKind::kRead, "/out/p0/part-0002.rec", 100, 1),
      Ev(day + 5, EventKind::kRead, "/out/p0/part-0001.rec", 100, 1),
  };
  return std::move(LoadRequestTrace(ev, "two-days")).value();
}

TEST(Breakdown, KeysInOrderOfFirstAppearance) {
  RequestTrace t = TwoDays();
  Result<Breakdown> b = MakeBreakdown(t, "stage");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_EQ(b->names, (std::vector<std::string>{"pipeline 0 stage 0", "pipeline 0 stage 1"}));
  ASSERT_EQ(b->of_request.size(), t.requests.size());
  EXPECT_EQ(b->of_request[0], 0u);
  EXPECT_EQ(b->of_request[4], 1u);

  b = MakeBreakdown(t, "day");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->names, (std::vector<std::string>{"day 0", "day 1"}));
  EXPECT_EQ(b->of_request[4], 1u);

  b = MakeBreakdown(t, "pattern");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->names, (std::vector<std::string>{"/out/p#/part-#.rec"}));
}

TEST(Breakdown, CombinedKeys) {
  RequestTrace t = TwoDays();
  Result<Breakdown> b = MakeBreakdown(t, "stage,day");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->names, (std::vector<std::string>{"pipeline 0 stage 0 · day 0", "pipeline 0 stage 1 · day 0",
                                                "pipeline 0 stage 1 · day 1"}));
  EXPECT_EQ(b->of_request[4], 2u);
}

TEST(Breakdown, ErrorsNameTheProblem) {
  RequestTrace t = TwoDays();
  Result<Breakdown> b = MakeBreakdown(t, "stage,weekday");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("unknown breakdown key 'weekday'"), std::string::npos);
  EXPECT_NE(b.status().message().find("stage, pattern, day"), std::string::npos);
  b = MakeBreakdown(t, "day,stage,day");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("breakdown key 'day' given twice"), std::string::npos);
  EXPECT_FALSE(MakeBreakdown(t, "").ok());
  EXPECT_FALSE(MakeBreakdown(t, "stage,").ok());

  TraceEvent e;
  e.kind = EventKind::kRead;
  e.object_id = 7;
  e.length = e.size = 10;
  RequestTrace pathless = std::move(LoadRequestTrace(std::vector<TraceEvent>{e}, "ids.bin")).value();
  b = MakeBreakdown(pathless, "pattern");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("ids.bin: the trace has no file paths"), std::string::npos);
  EXPECT_TRUE(MakeBreakdown(pathless, "stage,day").ok());
}

// The rows add up to the policy's totals, and the trace-level numbers do
// not move when a breakdown is asked for.
TEST(Breakdown, RowsSumToTheResult) {
  static const RequestTrace t = GeneratedTestTrace("text", 2, 2, 0.02);
  Result<Breakdown> b = MakeBreakdown(t, "pattern,day");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_GT(b->names.size(), 2u);
  SimulationOptions o;
  o.policies = {"lru", "smartcache", "belady"};
  o.cache_bytes = {t.footprint_bytes / 20};
  o.threads = 2;
  Result<std::vector<SimulationResult>> plain = Simulate(t, o);
  o.breakdown = &*b;
  Result<std::vector<SimulationResult>> split = Simulate(t, o);
  ASSERT_TRUE(plain.ok() && split.ok());
  for (size_t i = 0; i < split->size(); ++i) {
    const SimulationResult& r = (*split)[i];
    EXPECT_EQ(r.hit_bytes, (*plain)[i].hit_bytes) << r.policy;
    EXPECT_TRUE((*plain)[i].breakdown.empty());
    ASSERT_EQ(r.breakdown.size(), b->names.size());
    EXPECT_EQ(r.breakdown_by, "pattern,day");
    BreakdownCell sum;
    for (const BreakdownRow& row : r.breakdown) {
      sum.reads += row.cell.reads;
      sum.hits += row.cell.hits;
      sum.read_bytes += row.cell.read_bytes;
      sum.hit_bytes += row.cell.hit_bytes;
      EXPECT_LE(row.cell.hit_bytes, row.cell.read_bytes);
    }
    EXPECT_EQ(sum.reads, r.reads);
    EXPECT_EQ(sum.hits, r.hits);
    EXPECT_EQ(sum.read_bytes, r.read_bytes);
    EXPECT_EQ(sum.hit_bytes, r.hit_bytes);
    const nlohmann::json j = ResultToJson(r);
    double contribution = 0;
    for (const auto& row : j["breakdown"]["rows"]) contribution += row["byte_miss_contribution"].get<double>();
    EXPECT_NEAR(contribution, r.byte_miss_ratio, 1e-9);
  }
}

TEST(Breakdown, ABreakdownOfAnotherTraceIsRefused) {
  RequestTrace t = TwoDays();
  Result<Breakdown> b = MakeBreakdown(t, "day");
  ASSERT_TRUE(b.ok());
  static const RequestTrace other = GeneratedTestTrace("text", 1, 1, 0.02);
  SimulationOptions o;
  o.breakdown = &*b;
  Result<SimulationResult> r = SimulateOne(other, "lru", 1000, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("another trace"), std::string::npos);
}

}  // namespace
}  // namespace frugal::cache
