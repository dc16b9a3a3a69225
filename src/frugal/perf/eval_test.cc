#include "frugal/perf/eval.h"

#include <gtest/gtest.h>

#include "frugal/perf/test_catalog.h"

namespace frugal {
namespace {

using testing::TheCatalog;

// Rows whose times are exactly the roofline's: roofline scores 0% error.
std::vector<TrainRow> RooflineRows() {
  std::vector<TrainRow> rows;
  for (const char* name : {"T4", "V100-PCIE-32GB"}) {
    const GpuSpec* g = TheCatalog().FindGpu(name);
    GpuFeatures f = *GpuFeaturesOf(*g);
    for (PerfOp op : {PerfOp::kLinear, PerfOp::kAdd}) {
      for (int i = 1; i <= 40; ++i) {
        OpShape s;
        s.op = op;
        s.m = s.n = s.k = 16 * i;
        s.h = 1000 * i;
        rows.push_back(TrainRow{s, g, RooflineMs(s, f)});
      }
    }
  }
  return rows;
}

TEST(Evaluate, PerfectModelScoresZero) {
  Result<std::vector<EvalRow>> r =
      EvaluateOpTimeModel("roofline", RooflineRows(), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Per split: 2 ops x (2 GPUs + all) + overall.
  ASSERT_EQ(r->size(), 2u * (2 * 3 + 1));
  for (const EvalRow& row : *r) {
    EXPECT_TRUE(row.error.empty());
    EXPECT_NEAR(row.median_ape_pct, 0, 1e-9);
    EXPECT_NEAR(row.mean_ape_pct, 0, 1e-9);
  }
  EXPECT_EQ((*r)[0].split, "random");
  EXPECT_EQ((*r)[0].op, "linear");
  EXPECT_EQ((*r)[0].n, 8);  // 20% of 40
  EXPECT_EQ(r->back().split, "logo");
  EXPECT_EQ(r->back().op, "all");
  EXPECT_EQ(r->back().n, 160);
}

TEST(Evaluate, SignedBiasShowsUnderestimates) {
  std::vector<TrainRow> rows = RooflineRows();
  for (TrainRow& r : rows) r.latency_ms *= 2;  // roofline predicts half
  EvalOptions o;
  o.random_split = false;
  Result<std::vector<EvalRow>> r = EvaluateOpTimeModel("roofline", rows, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (const EvalRow& row : *r) {
    EXPECT_NEAR(row.median_ape_pct, 50, 1e-9);
    EXPECT_NEAR(row.median_bias_pct, -50, 1e-9);
  }
  EXPECT_DOUBLE_EQ(EvalRowToJson(r->back())["median_bias_pct"], -50);
}

TEST(Evaluate, CalibratedLeaveOneGpuOutRemovesAGpuLevelBias) {
  std::vector<TrainRow> rows = RooflineRows();
  for (TrainRow& r : rows) r.latency_ms *= 3;
  EvalOptions o;
  o.random_split = false;
  o.calibration_rows = 5;
  Result<std::vector<EvalRow>> r = EvaluateOpTimeModel("roofline", rows, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  int calibrated = 0;
  for (const EvalRow& row : *r) {
    EXPECT_EQ(row.n, row.op == "all" ? 2 * 2 * 35 : row.gpu == "all" ? 70 : 35)
        << row.split << " " << row.op << " " << row.gpu;
    if (row.split != "logo-cal") continue;
    ++calibrated;
    EXPECT_NEAR(row.median_ape_pct, 0, 1e-9);
  }
  EXPECT_EQ(calibrated, 2 * 3 + 1);
}

TEST(Evaluate, CeerCannotDoLeaveOneGpuOut) {
  EvalOptions o;
  o.random_split = false;
  o.calibration_rows = 5;
  Result<std::vector<EvalRow>> r =
      EvaluateOpTimeModel("ceer", RooflineRows(), o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->empty());
  for (const EvalRow& row : *r) {
    EXPECT_FALSE(row.error.empty()) << row.op << " " << row.gpu;
    if (row.op != "all") {
      EXPECT_EQ(row.n, row.gpu == "all" ? 70 : 35);
    }
  }
  EXPECT_TRUE(EvalRowToJson((*r)[0]).contains("error"));
}

TEST(Evaluate, IsDeterministic) {
  EvalOptions o;
  o.leave_one_gpu_out = false;
  o.train.rounds = 10;
  o.train.max_depth = 3;
  o.train.threads = 1;
  auto a = EvaluateOpTimeModel("learned", RooflineRows(), o);
  auto b = EvaluateOpTimeModel("learned", RooflineRows(), o);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), b->size());
  for (size_t i = 0; i < a->size(); ++i) {
    EXPECT_EQ(EvalRowToJson((*a)[i]).dump(), EvalRowToJson((*b)[i]).dump());
  }
}

TEST(Evaluate, RejectsUnknownModels) {
  EXPECT_EQ(EvaluateOpTimeModel("nope", RooflineRows(), {}).status().code(),
            StatusCode::kNotFound);
}

}  // namespace
}  // namespace frugal
