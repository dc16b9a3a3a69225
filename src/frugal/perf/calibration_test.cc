#include "frugal/perf/calibration.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "frugal/perf/test_catalog.h"

namespace frugal {
namespace {

namespace fs = std::filesystem;
using testing::CatalogGpu;

OpShape Shape(PerfOp op, int i) {
  OpShape s;
  s.op = op;
  s.b = 1;
  s.m = s.n = s.k = 32 * i;
  s.h = 4096 * i;
  return s;
}

// `n` rows of `op` on `gpu` measured at `factor` x the roofline.
std::vector<TrainRow> Rows(const char* gpu, PerfOp op, int n, double factor) {
  std::vector<TrainRow> rows;
  GpuFeatures f = *GpuFeaturesOf(CatalogGpu(gpu));
  for (int i = 1; i <= n; ++i) {
    OpShape s = Shape(op, i);
    rows.push_back(TrainRow{s, &CatalogGpu(gpu), factor * RooflineMs(s, f)});
  }
  return rows;
}

std::unique_ptr<OpTimeModel> Roofline() {
  Result<std::unique_ptr<OpTimeModel>> m = NewOpTimeModel("roofline");
  return std::move(*m);
}

double Predict(const OpTimeModel& m, PerfOp op, const char* gpu) {
  OpShape s = Shape(op, 3);
  return (*m.PredictMs({&s, 1}, CatalogGpu(gpu)))[0];
}

TEST(Calibration, FitsTheMeasuredOverPredictedRatio) {
  auto roofline = Roofline();
  std::vector<TrainRow> rows = Rows("T4", PerfOp::kLinear, 9, 2.0);
  rows[0].latency_ms *= 10;  // an outlier does not move the median
  Result<Calibration> c = FitCalibration(*roofline, rows);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const CalibrationScale& s = c->at("T4").at(PerfOp::kLinear);
  EXPECT_NEAR(s.scale, 2.0, 1e-9);
  EXPECT_EQ(s.rows, 9);
  EXPECT_NEAR(s.median_ape_before_pct, 50, 1e-9);
  EXPECT_NEAR(s.median_ape_after_pct, 0, 1e-9);
}

TEST(Calibration, ScalesOnlyTheCalibratedGpuAndClassesWithoutOwnRows) {
  std::vector<TrainRow> rows = Rows("T4", PerfOp::kLinear, 5, 2.0);
  for (TrainRow& r : Rows("T4", PerfOp::kBmm, 5, 4.0)) rows.push_back(r);
  for (TrainRow& r : Rows("T4", PerfOp::kAdd, 5, 0.5)) rows.push_back(r);
  auto base = Roofline();
  Calibration c = *FitCalibration(*base, rows);
  auto cal = Calibrate(Roofline(), c);
  ASSERT_NE(CalibrationOf(*cal), nullptr);
  EXPECT_EQ(CalibrationOf(*base), nullptr);
  EXPECT_STREQ(cal->name(), "roofline");
  auto ratio = [&](PerfOp op, const char* gpu) {
    return Predict(*cal, op, gpu) / Predict(*base, op, gpu);
  };
  EXPECT_NEAR(ratio(PerfOp::kLinear, "T4"), 2.0, 1e-9);
  EXPECT_NEAR(ratio(PerfOp::kBmm, "T4"), 4.0, 1e-9);
  // conv: no rows; the median of T4's heavy ops (linear, bmm).
  EXPECT_NEAR(ratio(PerfOp::kConv, "T4"), std::sqrt(8.0), 1e-9);
  // relu: no rows; T4's light ops (add).
  EXPECT_NEAR(ratio(PerfOp::kRelu, "T4"), 0.5, 1e-9);
  EXPECT_NEAR(ratio(PerfOp::kLinear, "V100-PCIE-32GB"), 1.0, 1e-12);
}

TEST(Calibration, NeedsEnoughRows) {
  auto roofline = Roofline();
  Result<Calibration> c = FitCalibration(
      *roofline, Rows("T4", PerfOp::kLinear, kMinCalibrationRows - 1, 2.0));
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("at least"), std::string::npos);
}

TEST(Calibration, JsonRejectsBadScalesAndOps) {
  auto bad = [](const char* text) {
    return CalibrationFromJson(nlohmann::json::parse(text)).status().code();
  };
  EXPECT_EQ(bad(R"({"T4": {"linear": {"scale": -1}}})"),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(bad(R"({"T4": {"linear": {"scale": 0}}})"),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(bad(R"({"T4": {"nope": {"scale": 1}}})"),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(bad(R"({"T4": {"linear": {}}})"), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad("[1, 2]"), StatusCode::kInvalidArgument);
}

TEST(Calibration, SurvivesSaveAndLoad) {
  Calibration c = *FitCalibration(*Roofline(),
                                  Rows("T4", PerfOp::kLinear, 5, 3.0));
  auto cal = Calibrate(Roofline(), c);
  for (const char* ext : {".json", ".ubj"}) {
    std::string path =
        (fs::temp_directory_path() / (std::string("frugal_cal_model") + ext))
            .string();
    ASSERT_TRUE(SaveOpTimeModel(*cal, path).ok());
    Result<std::unique_ptr<OpTimeModel>> back = LoadOpTimeModel(path);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ASSERT_NE(CalibrationOf(**back), nullptr) << ext;
    EXPECT_DOUBLE_EQ(Predict(**back, PerfOp::kLinear, "T4"),
                     Predict(*cal, PerfOp::kLinear, "T4"));
    fs::remove(path);
  }
}

}  // namespace
}  // namespace frugal
