#include "frugal/perf/score.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "frugal/perf/features.h"
#include "frugal/perf/test_catalog.h"

namespace frugal {
namespace {

using testing::TheCatalog;

OpShape Linear(int64_t m, int64_t n, int64_t k) {
  OpShape s;
  s.op = PerfOp::kLinear;
  s.m = m;
  s.n = n;
  s.k = k;
  return s;
}

OpShape Elementwise(PerfOp op, int64_t b, int64_t h) {
  OpShape s;
  s.op = op;
  s.b = b;
  s.h = h;
  return s;
}

// Appends a row on `device` whose measured time is the roofline's
// prediction divided by (1 + err): the roofline's signed error on it is
// exactly `err`.
void AddRow(Dataset* d, const OpShape& shape, const std::string& device,
            double err) {
  const GpuSpec* g = TheCatalog().FindGpu(device);
  ASSERT_NE(g, nullptr) << device;
  Result<GpuFeatures> f = GpuFeaturesOf(*g);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  OpSample s;
  s.shape = shape;
  s.device = device;
  s.latency_ms = RooflineMs(shape, *f) / (1 + err);
  s.file = 0;
  s.line = static_cast<int32_t>(d->samples.size()) + 2;  // after the header
  d->samples.push_back(s);
}

constexpr char kT4[] = "T4";
constexpr char kV100[] = "V100-PCIE-32GB";

// Hand-computable errors, rows of the groups interleaved:
//   linear/T4   signed {-0.5, -0.2, 0.1, 0.3, 0.6}
//   linear/V100 signed {0.0, 0.2, -0.4}
//   add/T4      signed {0.1, 0.3}
Dataset HandData() {
  Dataset d;
  d.files = {"mem.csv"};
  AddRow(&d, Linear(64, 64, 64), kT4, -0.5);
  AddRow(&d, Linear(128, 64, 64), kV100, 0.0);
  AddRow(&d, Elementwise(PerfOp::kAdd, 32, 1024), kT4, 0.1);
  AddRow(&d, Linear(128, 128, 64), kT4, -0.2);
  AddRow(&d, Linear(256, 64, 64), kV100, 0.2);
  AddRow(&d, Linear(128, 128, 128), kT4, 0.1);
  AddRow(&d, Elementwise(PerfOp::kAdd, 64, 4096), kT4, 0.3);
  AddRow(&d, Linear(256, 128, 128), kT4, 0.3);
  AddRow(&d, Linear(512, 64, 64), kV100, -0.4);
  AddRow(&d, Linear(256, 256, 128), kT4, 0.6);
  return d;
}

void ExpectRow(const ScoreRow& r, const std::string& op, const std::string& gpu,
               int64_t n, double median, double p90, double bias) {
  EXPECT_EQ(r.op, op);
  EXPECT_EQ(r.gpu, gpu);
  EXPECT_EQ(r.n, n) << op << " " << gpu;
  EXPECT_NEAR(r.median_ape_pct, median, 1e-9) << op << " " << gpu;
  EXPECT_NEAR(r.p90_ape_pct, p90, 1e-9) << op << " " << gpu;
  EXPECT_NEAR(r.median_bias_pct, bias, 1e-9) << op << " " << gpu;
}

TEST(Score, GroupsAndErrorsOnAHandComputableCase) {
  std::unique_ptr<OpTimeModel> roofline = NewRooflineModel();
  Result<ScoreResult> r = ScoreOpTimeModel(*roofline, HandData(), TheCatalog());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->uncovered.empty());
  // Op in enum order (linear before add), GPU in name order, the op's "all"
  // only when it has more than one GPU, then the overall row.
  ASSERT_EQ(r->rows.size(), 5u);
  // APE sorted {0.1, 0.2, 0.3, 0.5, 0.6}: p90 at 3.6 -> 0.5 + 0.6 * 0.1.
  ExpectRow(r->rows[0], "linear", kT4, 5, 30, 56, 10);
  // APE sorted {0, 0.2, 0.4}: p90 at 1.8 -> 0.2 + 0.8 * 0.2.
  ExpectRow(r->rows[1], "linear", kV100, 3, 20, 36, 0);
  // APE {0, .1, .2, .2, .3, .4, .5, .6}: median (.2 + .3) / 2, p90 at 6.3;
  // signed {-.5, -.4, -.2, 0, .1, .2, .3, .6}: median .05.
  ExpectRow(r->rows[2], "linear", "all", 8, 25, 53, 5);
  // APE {0.1, 0.3}: p90 at 0.9 -> 0.1 + 0.9 * 0.2.
  ExpectRow(r->rows[3], "add", kT4, 2, 20, 28, 20);
  // APE {0, .1, .1, .2, .2, .3, .3, .4, .5, .6}: p90 at 8.1;
  // signed {-.5, -.4, -.2, 0, .1, .1, .2, .3, .3, .6}: median .1.
  ExpectRow(r->rows[4], "all", "all", 10, 25, 51, 10);

  nlohmann::json j = ScoreResultToJson(*r);
  EXPECT_EQ(j["priced_rows"], 10);
  EXPECT_EQ(j["uncovered_rows"], 0);
  EXPECT_EQ(j["rows"].size(), 5u);
  EXPECT_EQ(j["rows"][0]["op"], "linear");
  EXPECT_EQ(j["rows"][0]["gpu"], kT4);
  EXPECT_NEAR(j["rows"][0]["p90_ape_pct"].get<double>(), 56, 1e-9);
  EXPECT_NEAR(j["rows"][3]["median_bias_pct"].get<double>(), 20, 1e-9);
  EXPECT_TRUE(j["uncovered"].empty());
}

TEST(Score, PredictionsAreInInputOrder) {
  const Dataset d = HandData();
  std::unique_ptr<OpTimeModel> roofline = NewRooflineModel();
  Result<ScoreResult> r = ScoreOpTimeModel(*roofline, d, TheCatalog());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->predicted_ms.size(), d.samples.size());
  ASSERT_EQ(r->gpu.size(), d.samples.size());
  for (size_t i = 0; i < d.samples.size(); ++i) {
    const OpSample& s = d.samples[i];
    const GpuSpec* g = TheCatalog().FindGpu(s.device);
    EXPECT_EQ(r->gpu[i], g->name) << i;
    Result<std::vector<double>> want =
        roofline->PredictMs(std::vector<OpShape>{s.shape}, *g);
    ASSERT_TRUE(want.ok());
    EXPECT_DOUBLE_EQ(r->predicted_ms[i], (*want)[0]) << i;
  }
}

TEST(Score, ResolvesCatalogAliasesOfTheDevice) {
  Dataset d;
  d.files = {"mem.csv"};
  AddRow(&d, Elementwise(PerfOp::kRelu, 8, 512), kT4, 0.0);
  d.samples[0].device = "Tesla T4";  // NeuSight's spelling
  std::unique_ptr<OpTimeModel> roofline = NewRooflineModel();
  Result<ScoreResult> r = ScoreOpTimeModel(*roofline, d, TheCatalog());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->gpu[0], "T4");
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_EQ(r->rows[0].gpu, "T4");
}

TEST(Score, UnknownGpuIsNotFoundNamingFileLineAndDevice) {
  Dataset d = HandData();
  d.samples[6].device = "Imaginary GPU 9000";
  std::unique_ptr<OpTimeModel> roofline = NewRooflineModel();
  Result<ScoreResult> r = ScoreOpTimeModel(*roofline, d, TheCatalog());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  const std::string msg = r.status().message();
  EXPECT_NE(msg.find("mem.csv:8"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Imaginary GPU 9000"), std::string::npos) << msg;
}

TEST(Score, UnknownGpuFromAFileNamesThePath) {
  namespace fs = std::filesystem;
  const fs::path p = fs::temp_directory_path() /
                     ("frugal_score_test_" + std::to_string(::getpid()) + ".csv");
  std::ofstream(p) << "OPName,Latency (ms),Device,B,H\n"
                      "add,0.1,Tesla T4,4,8\n"
                      "\n"
                      "add,0.2,Imaginary GPU 9000,4,8\n";
  Result<Dataset> d = LoadTimingCsv(p.string());
  fs::remove(p);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  std::unique_ptr<OpTimeModel> roofline = NewRooflineModel();
  Result<ScoreResult> r = ScoreOpTimeModel(*roofline, *d, TheCatalog());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  const std::string msg = r.status().message();
  EXPECT_NE(msg.find(p.string() + ":4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Imaginary GPU 9000"), std::string::npos) << msg;
}

// Rows to train ceer on: add and linear on T4 only.
std::vector<TrainRow> T4TrainRows() {
  const GpuSpec* t4 = TheCatalog().FindGpu(kT4);
  std::vector<TrainRow> rows;
  for (int i = 1; i <= 20; ++i) {
    rows.push_back({Elementwise(PerfOp::kAdd, 8 * i, 1024), t4, 0.01 * i});
    rows.push_back({Linear(32 * i, 64, 64), t4, 0.02 * i});
  }
  return rows;
}

TEST(Score, GroupsTheModelCannotPriceAreReportedNotErrors) {
  Result<std::unique_ptr<OpTimeModel>> ceer =
      TrainOpTimeModel("ceer", T4TrainRows(), {});
  ASSERT_TRUE(ceer.ok()) << ceer.status().ToString();
  Dataset d;
  d.files = {"mem.csv"};
  AddRow(&d, Elementwise(PerfOp::kAdd, 16, 1024), kT4, 0.0);    // priced
  AddRow(&d, Elementwise(PerfOp::kAdd, 16, 1024), kV100, 0.0);  // GPU unseen
  AddRow(&d, Elementwise(PerfOp::kRelu, 16, 1024), kT4, 0.0);   // op unseen
  AddRow(&d, Elementwise(PerfOp::kAdd, 32, 1024), kV100, 0.0);
  AddRow(&d, Linear(64, 64, 64), kT4, 0.0);                      // priced
  Result<ScoreResult> r = ScoreOpTimeModel(**ceer, d, TheCatalog());
  ASSERT_TRUE(r.ok()) << r.status().ToString();

  // Uncovered groups in (op, GPU) order: relu/T4 sorts after add/V100.
  ASSERT_EQ(r->uncovered.size(), 2u);
  EXPECT_EQ(r->uncovered[0].op, "add");
  EXPECT_EQ(r->uncovered[0].gpu, kV100);
  EXPECT_EQ(r->uncovered[0].n, 2);
  EXPECT_NE(r->uncovered[0].reason.find(kV100), std::string::npos)
      << r->uncovered[0].reason;
  EXPECT_EQ(r->uncovered[1].op, "relu");
  EXPECT_EQ(r->uncovered[1].gpu, kT4);
  EXPECT_EQ(r->uncovered[1].n, 1);
  EXPECT_FALSE(r->uncovered[1].reason.empty());

  // Priced: linear/T4, add/T4, all.
  ASSERT_EQ(r->rows.size(), 3u);
  EXPECT_EQ(r->rows[0].op, "linear");
  EXPECT_EQ(r->rows[1].op, "add");
  EXPECT_EQ(r->rows[2].op, "all");
  EXPECT_EQ(r->rows[2].n, 2);

  // Unpriced rows keep their GPU and have a NaN prediction.
  ASSERT_EQ(r->predicted_ms.size(), 5u);
  EXPECT_TRUE(std::isfinite(r->predicted_ms[0]));
  EXPECT_TRUE(std::isnan(r->predicted_ms[1]));
  EXPECT_TRUE(std::isnan(r->predicted_ms[2]));
  EXPECT_TRUE(std::isnan(r->predicted_ms[3]));
  EXPECT_TRUE(std::isfinite(r->predicted_ms[4]));
  EXPECT_EQ(r->gpu[1], kV100);
  EXPECT_EQ(r->gpu[2], kT4);

  nlohmann::json j = ScoreResultToJson(*r);
  EXPECT_EQ(j["priced_rows"], 2);
  EXPECT_EQ(j["uncovered_rows"], 3);
  ASSERT_EQ(j["uncovered"].size(), 2u);
  EXPECT_EQ(j["uncovered"][0]["gpu"], kV100);
  EXPECT_EQ(j["uncovered"][0]["n"], 2);
  EXPECT_TRUE(j["uncovered"][0]["reason"].is_string());
}

TEST(Score, NothingPricedHasNoRowsAndCountsEveryRow) {
  Result<std::unique_ptr<OpTimeModel>> ceer =
      TrainOpTimeModel("ceer", T4TrainRows(), {});
  ASSERT_TRUE(ceer.ok()) << ceer.status().ToString();
  Dataset d;
  d.files = {"mem.csv"};
  AddRow(&d, Elementwise(PerfOp::kGelu, 16, 1024), kV100, 0.0);
  AddRow(&d, Elementwise(PerfOp::kGelu, 16, 2048), kV100, 0.0);
  Result<ScoreResult> r = ScoreOpTimeModel(**ceer, d, TheCatalog());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->rows.empty());
  ASSERT_EQ(r->uncovered.size(), 1u);
  EXPECT_EQ(r->uncovered[0].n, 2);
  nlohmann::json j = ScoreResultToJson(*r);
  EXPECT_EQ(j["priced_rows"], 0);
  EXPECT_EQ(j["uncovered_rows"], 2);
}

TEST(Score, UntrainedModelIsReportedPerGroup) {
  std::unique_ptr<OpTimeModel> ceer = NewCeerModel();  // never trained
  Result<ScoreResult> r = ScoreOpTimeModel(*ceer, HandData(), TheCatalog());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->rows.empty());
  int64_t n = 0;
  for (const UncoveredGroup& u : r->uncovered) {
    n += u.n;
    EXPECT_NE(u.reason.find("not trained"), std::string::npos) << u.reason;
  }
  EXPECT_EQ(n, 10);
}

TEST(Score, IsDeterministic) {
  Result<std::unique_ptr<OpTimeModel>> ceer =
      TrainOpTimeModel("ceer", T4TrainRows(), {});
  ASSERT_TRUE(ceer.ok()) << ceer.status().ToString();
  std::unique_ptr<OpTimeModel> roofline = NewRooflineModel();
  Dataset d = HandData();
  AddRow(&d, Elementwise(PerfOp::kTanh, 8, 256), kV100, 0.2);  // uncovered by ceer
  for (const OpTimeModel* m : {ceer->get(), roofline.get()}) {
    Result<ScoreResult> a = ScoreOpTimeModel(*m, d, TheCatalog());
    Result<ScoreResult> b = ScoreOpTimeModel(*m, d, TheCatalog());
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(ScoreResultToJson(*a).dump(), ScoreResultToJson(*b).dump())
        << m->name();
    EXPECT_EQ(a->gpu, b->gpu);
    ASSERT_EQ(a->predicted_ms.size(), b->predicted_ms.size());
    for (size_t i = 0; i < a->predicted_ms.size(); ++i) {
      const double x = a->predicted_ms[i], y = b->predicted_ms[i];
      EXPECT_TRUE((std::isnan(x) && std::isnan(y)) || x == y) << m->name() << i;
    }
  }
}

}  // namespace
}  // namespace frugal
