// Conformance suite: every registry model trains on a small synthetic data
// set, predicts positive finite times for every op type, saves and loads
// back to identical predictions, and is deterministic. Then per-model checks.
#include "frugal/perf/op_time_model.h"

#include <gtest/gtest.h>

#include "frugal/graph/backward.h"
#include "frugal/graph/op_cost.h"
#include "frugal/graph/test_graphs.h"
#include "frugal/perf/test_catalog.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "frugal/base/file_io.h"

namespace frugal {
namespace {

namespace fs = std::filesystem;

using testing::TheCatalog;

using testing::CatalogGpu;

OpShape ShapeFor(PerfOp op, int i) {
  OpShape s;
  s.op = op;
  const int64_t v = 8 + 16 * (i % 13) + 3 * (i % 5);
  switch (op) {
    case PerfOp::kConv:
      s.b = 1 + i % 4;
      s.in_channels = v;
      s.out_channels = 16 + 8 * (i % 7);
      s.kernel = 1 + 2 * (i % 2);
      s.image = 8 + i % 24;
      s.stride = 1 + i % 2;
      s.padding = s.kernel / 2;
      break;
    case PerfOp::kLinear:
    case PerfOp::kBmm:
      s.b = op == PerfOp::kBmm ? 1 + i % 6 : 1;
      s.m = v;
      s.n = 32 + 7 * (i % 11);
      s.k = 16 + 5 * (i % 17);
      break;
    default:
      s.b = 1 + 4 * (i % 9);
      s.h = 64 * (1 + i % 15);
      break;
  }
  return s;
}

// Synthetic "measurements": roofline time x an op-dependent efficiency.
std::vector<TrainRow> SyntheticRows() {
  std::vector<TrainRow> rows;
  for (const char* name : {"T4", "V100-PCIE-32GB", "A100-PCIE-40GB"}) {
    const GpuSpec& g = CatalogGpu(name);
    GpuFeatures f = *GpuFeaturesOf(g);
    for (PerfOp op : AllPerfOps()) {
      for (int i = 0; i < 60; ++i) {
        OpShape s = ShapeFor(op, i);
        double eff = 0.3 + 0.05 * static_cast<int>(op) + 0.1 * (i % 3);
        rows.push_back(TrainRow{s, &g, RooflineMs(s, f) / eff + 0.003});
      }
    }
  }
  return rows;
}

TrainOptions FastOptions() {
  TrainOptions t;
  t.rounds = 15;
  t.max_depth = 4;
  t.threads = 1;
  return t;
}

using testing::MakeOp;

std::unique_ptr<OpTimeModel> Must(Result<std::unique_ptr<OpTimeModel>> r) {
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : nullptr;
}

std::vector<OpShape> Probe() {
  std::vector<OpShape> shapes;
  for (PerfOp op : AllPerfOps()) shapes.push_back(ShapeFor(op, 5));
  return shapes;
}

class OpTimeModelConformance : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<OpTimeModel> Trained() {
    Result<std::unique_ptr<OpTimeModel>> m =
        TrainOpTimeModel(GetParam(), SyntheticRows(), FastOptions());
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m.ok() ? std::move(*m) : nullptr;
  }
  std::string TempPath(const std::string& ext) {
    return (fs::temp_directory_path() /
            ("frugal_perf_model_" + GetParam() + "_" +
             std::to_string(::getpid()) + ext))
        .string();
  }
};

TEST_P(OpTimeModelConformance, NameMatchesRegistry) {
  Result<std::unique_ptr<OpTimeModel>> m = NewOpTimeModel(GetParam());
  ASSERT_TRUE(m.ok());
  EXPECT_EQ((*m)->name(), GetParam());
}

TEST_P(OpTimeModelConformance, PredictsPositiveTimesForEveryOpType) {
  auto m = Trained();
  ASSERT_TRUE(m);
  Result<std::vector<double>> t = m->PredictMs(Probe(), CatalogGpu("T4"));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->size(), Probe().size());
  for (double v : *t) {
    EXPECT_TRUE(std::isfinite(v));
    EXPECT_GT(v, 0);
  }
}

TEST_P(OpTimeModelConformance, SaveLoadRoundTripsBothFormats) {
  auto m = Trained();
  ASSERT_TRUE(m);
  std::vector<double> want = *m->PredictMs(Probe(), CatalogGpu("V100-PCIE-32GB"));
  for (const char* ext : {".json", ".ubj"}) {
    std::string path = TempPath(ext);
    ASSERT_TRUE(SaveOpTimeModel(*m, path).ok());
    Result<std::unique_ptr<OpTimeModel>> back = LoadOpTimeModel(path);
    fs::remove(path);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ((*back)->name(), GetParam());
    std::vector<double> got =
        *(*back)->PredictMs(Probe(), CatalogGpu("V100-PCIE-32GB"));
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-6 * want[i]) << ext;
  }
}

TEST_P(OpTimeModelConformance, SameSeedSameModel) {
  auto a = Trained(), b = Trained();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->ToJson(false).dump(), b->ToJson(false).dump());
}

TEST_P(OpTimeModelConformance, GpuWithoutFp32FigureIsAnError) {
  auto m = Trained();
  ASSERT_TRUE(m);
  GpuSpec g = CatalogGpu("T4");
  g.fp32_tflops.reset();
  if (GetParam() == "ceer") return;  // ceer never reads catalog figures
  EXPECT_FALSE(m->PredictMs(Probe(), g).ok());
}

INSTANTIATE_TEST_SUITE_P(Registry, OpTimeModelConformance,
                         ::testing::Values("roofline", "ceer", "learned", "efficiency"),
                         [](const auto& info) { return info.param; });

TEST(OpTimeModels, RegistryListsFourModels) {
  EXPECT_EQ(RowNames(OpTimeModels()), "roofline, ceer, learned, efficiency");
  Result<std::unique_ptr<OpTimeModel>> m = NewOpTimeModel("magic");
  EXPECT_EQ(m.status().code(), StatusCode::kNotFound);
  EXPECT_NE(m.status().message().find("roofline, ceer, learned"),
            std::string::npos);
}

TEST(CeerModel, RefusesGpusWithoutMeasurements) {
  auto m = Must(TrainOpTimeModel("ceer", SyntheticRows(), FastOptions()));
  Result<std::vector<double>> t = m->PredictMs(Probe(), CatalogGpu("H100"));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kNotFound);
  EXPECT_NE(t.status().message().find("H100-SXM5-80GB"), std::string::npos);
  EXPECT_NE(t.status().message().find("T4"), std::string::npos);
}

TEST(CeerModel, FitsLinearTimesOfHeavyOpsExactly) {
  // Times linear in FLOPs are inside the regression's span.
  std::vector<TrainRow> rows;
  const GpuSpec& g = CatalogGpu("T4");
  for (int i = 0; i < 50; ++i) {
    OpShape s = ShapeFor(PerfOp::kLinear, i);
    rows.push_back(TrainRow{s, &g, 0.01 + 2e-9 * WorkOf(s).flops});
  }
  auto m = Must(TrainOpTimeModel("ceer", rows, FastOptions()));
  OpShape s = ShapeFor(PerfOp::kLinear, 77);
  EXPECT_NEAR((*m->PredictMs({&s, 1}, g))[0], 0.01 + 2e-9 * WorkOf(s).flops,
              1e-6);
}

TEST(LearnedModel, PricesGpusItHasNotSeen) {
  auto m = Must(TrainOpTimeModel("learned", SyntheticRows(), FastOptions()));
  for (const char* gpu : {"H100", "L4", "H200"}) {
    Result<std::vector<double>> t = m->PredictMs(Probe(), CatalogGpu(gpu));
    ASSERT_TRUE(t.ok()) << gpu << ": " << t.status().ToString();
    for (double v : *t) EXPECT_GT(v, 0) << gpu;
  }
  // A faster GPU is not slower on a large GEMM.
  OpShape big{.op = PerfOp::kLinear, .m = 4096, .n = 4096, .k = 4096};
  double t4 = (*m->PredictMs({&big, 1}, CatalogGpu("T4")))[0];
  double h100 = (*m->PredictMs({&big, 1}, CatalogGpu("H100")))[0];
  EXPECT_LT(h100, t4);
}

TEST(LoadOpTimeModel, RejectsOtherFiles) {
  std::string path =
      (fs::temp_directory_path() / "frugal_perf_bad_model.json").string();
  ASSERT_TRUE(WriteStringToFile(path, R"({"format": "something-else"})").ok());
  Result<std::unique_ptr<OpTimeModel>> m = LoadOpTimeModel(path);
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(m.status().message().find(path), std::string::npos);
  ASSERT_TRUE(WriteStringToFile(
                  path, R"({"format": "frugal-perf-model", "model": "roofline",
      "feature_version": 0, "state": {}})")
                  .ok());
  m = LoadOpTimeModel(path);
  EXPECT_NE(m.status().message().find("feature version"), std::string::npos);
  ASSERT_TRUE(WriteStringToFile(path, "\x01\x02garbage").ok());
  EXPECT_EQ(LoadOpTimeModel(path).status().code(),
            StatusCode::kInvalidArgument);
  fs::remove(path);
  EXPECT_EQ(LoadOpTimeModel(path).status().code(), StatusCode::kNotFound);
}

TEST(PredictOp, RecurrenceLaunchesTwoKernelsPerStep) {
  // nn.LSTM(10, 20) over 5 steps: its forward and the backward op carrying
  // the recurrence wait for each step; the weight gradient is one GEMM.
  auto m = Must(NewOpTimeModel("roofline"));
  Op l = MakeOp("lstm", OpKind::kRnn,
                {Act("x", {5, 3, 10}), Param("W", {1, 80, 10}), Param("R", {1, 80, 20}),
                 Param("B", {1, 160})},
                {Act("y", {5, 1, 3, 20})}, "LSTM");
  ASSERT_TRUE(ComputeForwardCost(l).ok());
  const GpuSpec gpu = CatalogGpu("T4");
  const GpuFeatures f = *GpuFeaturesOf(gpu);
  const double once = RooflineCoreMs(l.flops, static_cast<double>(l.bytes_read + l.bytes_written), f);
  Result<OpTimePrediction> p = PredictOp(*m, l, gpu);
  ASSERT_TRUE(p.ok());
  EXPECT_NEAR(p->time_ms, once + 2 * 5 * kLaunchOverheadMs, 1e-12);
  EXPECT_NE(p->basis.find("5 sequential steps"), std::string::npos) << p->basis;
  std::vector<Op> back = MakeBackwardOps(l, {true}, 1);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(SequentialSteps(back[0]), 5);  // data: through time
  EXPECT_EQ(SequentialSteps(back[1]), 0);  // weights: one GEMM over all steps
  p = PredictOp(*m, back[1], gpu);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->basis.find("sequential"), std::string::npos) << p->basis;
}

TEST(PredictOp, FallsBackToRooflineWithoutMeasurements) {
  auto m = Must(NewOpTimeModel("roofline"));
  Op exp = MakeOp("exp", OpKind::kExp);
  exp.inputs = {TensorInfo{"x", DType::kFloat32, {1000, 1000}}};
  exp.outputs = {TensorInfo{"y", DType::kFloat32, {1000, 1000}}};
  exp.flops = 1e6;
  exp.bytes_read = exp.bytes_written = 4000000;
  Result<OpTimePrediction> p = PredictOp(*m, exp, CatalogGpu("T4"));
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->fallback);
  EXPECT_NEAR(p->time_ms, 1e3 * 8e6 / 320e9 + kLaunchOverheadMs, 1e-9);

  Op relu = exp;
  relu.kind = OpKind::kRelu;
  p = PredictOp(*m, relu, CatalogGpu("T4"));
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->fallback);
  EXPECT_EQ(p->basis, "relu");

  Op view = MakeOp("view", OpKind::kReshape);
  p = PredictOp(*m, view, CatalogGpu("T4"));
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->fallback);
  EXPECT_EQ(p->time_ms, 0);
}

TEST(PredictOp, CeerErrorsAreNotHiddenByTheFallback) {
  auto m = Must(TrainOpTimeModel("ceer", SyntheticRows(), FastOptions()));
  Op relu = MakeOp("relu", OpKind::kRelu);
  relu.inputs = {TensorInfo{"x", DType::kFloat32, {8, 8}}};
  relu.outputs = {TensorInfo{"y", DType::kFloat32, {8, 8}}};
  EXPECT_EQ(PredictOp(*m, relu, CatalogGpu("H100")).status().code(),
            StatusCode::kNotFound);
}

TEST(BundledModel, LoadsAndPredictsIfPresent) {
  std::string path = std::string(FRUGAL_SOURCE_ROOT) + "/data/perf/learned.ubj";
  if (!fs::exists(path)) GTEST_SKIP() << path << " not shipped";
  Result<std::unique_ptr<OpTimeModel>> m = LoadOpTimeModel(path);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  Result<std::vector<double>> t = (*m)->PredictMs(Probe(), CatalogGpu("H100"));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
}

}  // namespace
}  // namespace frugal

namespace frugal {
namespace {

// A regression guard on the shipped model (trained on all the shared data,
// so this is in-sample): median error per op type on a seeded sample.
TEST(BundledModel, FitsTheSharedTimings) {
  std::string model_path =
      std::string(FRUGAL_SOURCE_ROOT) + "/data/perf/learned.ubj";
  std::string data_path = DefaultTimingDataPath();
  if (!fs::exists(model_path) || !fs::exists(data_path)) GTEST_SKIP();
  Result<std::unique_ptr<OpTimeModel>> m = LoadOpTimeModel(model_path);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  Result<Dataset> data = LoadTimingData(data_path);
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  Result<std::vector<TrainRow>> rows = ResolveRows(*data, TheCatalog());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  TrainOptions sample;
  sample.max_rows_per_group = 100;
  sample.seed = 99;
  std::map<std::pair<PerfOp, std::string>, std::vector<const TrainRow*>> groups;
  std::vector<TrainRow> kept = Subsample(*rows, sample);
  for (const auto& r : kept) groups[{r.shape.op, r.gpu->name}].push_back(&r);
  std::map<PerfOp, std::vector<double>> ape;
  for (const auto& [key, members] : groups) {
    std::vector<OpShape> shapes;
    for (const auto* r : members) shapes.push_back(r->shape);
    Result<std::vector<double>> t = (*m)->PredictMs(shapes, *members[0]->gpu);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    for (size_t i = 0; i < members.size(); ++i) {
      ape[key.first].push_back(std::abs((*t)[i] / members[i]->latency_ms - 1));
    }
  }
  ASSERT_EQ(ape.size(), static_cast<size_t>(kNumPerfOps));
  for (auto& [op, v] : ape) {
    std::sort(v.begin(), v.end());
    EXPECT_LT(v[v.size() / 2], IsHeavyPerfOp(op) ? 0.15 : 0.10)
        << PerfOpName(op);
  }
}

}  // namespace
}  // namespace frugal
