#include "frugal/share/interference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace frugal::share {
namespace {

ColoJob Job(const std::string& family, double batch, double solo, double util) {
  ColoJob j;
  j.family = family;
  j.model = family + " " + std::to_string(static_cast<int>(batch));
  j.batch = batch;
  j.solo_tput = solo;
  j.gpu_util = util;
  j.mem_gib = util / 20;
  return j;
}

// A synthetic world in which a job keeps the share of the GPU that the other
// one leaves: norm = min(1, (100 - 0.8 * util_other) / util_self).
std::vector<ColoSample> World() {
  std::vector<ColoJob> jobs;
  const char* fams[] = {"a", "b", "c", "d", "e"};
  for (int f = 0; f < 5; ++f) {
    for (int b = 0; b < 4; ++b) {
      const double util = 15 + 17 * f + 5 * b;
      jobs.push_back(Job(fams[f], 8 << b, 100.0 / (1 + f + b), util));
    }
  }
  std::vector<ColoSample> out;
  for (const ColoJob& a : jobs) {
    for (const ColoJob& b : jobs) {
      ColoSample s{a, b, "", 0};
      s.norm_tput = std::min(1.0, (100 - 0.8 * *b.gpu_util) / *a.gpu_util);
      out.push_back(s);
    }
  }
  return out;
}

TEST(InterferenceModel, LearnsTheSyntheticWorldBetterThanALine) {
  const std::vector<ColoSample> w = World();
  EvalOptions o;
  Result<EvalResult> r = EvaluateHoldout(w, nullptr, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->per_gpu.size(), 1u);
  EXPECT_EQ(r->groups.size(), 5u);
  EXPECT_EQ(r->per_gpu[0].samples, 400);
  EXPECT_LT(r->per_gpu[0].mae, 0.1);
  EXPECT_LT(r->per_gpu[0].mae, r->per_gpu[0].floor_mae);
}

TEST(InterferenceModel, FitIsDeterministicAndSaveLoadRoundTrips) {
  const std::vector<ColoSample> w = World();
  Result<InterferenceModel> a = InterferenceModel::Fit(w, nullptr, "test");
  Result<InterferenceModel> b = InterferenceModel::Fit(w, nullptr, "test");
  ASSERT_TRUE(a.ok() && b.ok());
  const std::string path = testing::TempDir() + "/interference_model.json";
  ASSERT_TRUE(a->Save(path).ok());
  Result<InterferenceModel> c = InterferenceModel::Load(path);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->source(), "test");
  EXPECT_EQ(c->training_rows(), w.size());
  for (size_t i = 0; i < w.size(); i += 37) {
    const double pa = a->PredictNormalizedTput(w[i].self, w[i].other, nullptr);
    EXPECT_EQ(pa, b->PredictNormalizedTput(w[i].self, w[i].other, nullptr));
    EXPECT_NEAR(pa, c->PredictNormalizedTput(w[i].self, w[i].other, nullptr),
                1e-6);
    EXPECT_GE(pa, 0);
    EXPECT_LE(pa, 1.2);
  }
}

TEST(InterferenceModel, MissingFeaturesStillPredict) {
  Result<InterferenceModel> m =
      InterferenceModel::Fit(World(), nullptr, "test");
  ASSERT_TRUE(m.ok());
  ColoJob svc;
  svc.model = "service";
  svc.solo_tput = 30;
  svc.batch = 4;  // no utilisation, memory or compute share known
  const double p = m->PredictNormalizedTput(svc, Job("a", 8, 50, 20), nullptr);
  EXPECT_TRUE(std::isfinite(p));
  EXPECT_GE(p, 0);
}

TEST(InterferenceModel, RejectsBadSamplesAndFiles) {
  std::vector<ColoSample> w = World();
  w[3].norm_tput = std::nan("");
  EXPECT_NE(InterferenceModel::Fit(w, nullptr, "t")
                .status()
                .message()
                .find("sample 3"),
            std::string::npos);
  w[3].norm_tput = 0.5;
  w[4].other.solo_tput = -1;
  EXPECT_NE(InterferenceModel::Fit(w, nullptr, "t")
                .status()
                .message()
                .find("not positive"),
            std::string::npos);
  EXPECT_FALSE(InterferenceModel::Fit({}, nullptr, "t").ok());
  EXPECT_FALSE(LinearBaseline::Fit({}).ok());
  EXPECT_EQ(InterferenceModel::Load("testdata/share/none.json").status().code(),
            StatusCode::kNotFound);
  EXPECT_NE(InterferenceModel::Load("testdata/share/gavel_tiny.json")
                .status()
                .message()
                .find("not an interference model"),
            std::string::npos);
}

TEST(EvaluateHoldout, NeedsTwoGroups) {
  std::vector<ColoSample> w = World();
  std::vector<ColoSample> one;
  for (const ColoSample& s : w) {
    if (s.self.family == "a" && s.other.family == "a") one.push_back(s);
  }
  EXPECT_FALSE(EvaluateHoldout(one, nullptr, {}).ok());
}

}  // namespace
}  // namespace frugal::share

namespace frugal::share {
namespace {

// The bundled model loads, refits exactly and answers for jobs it has seen
// (a profile) and for a service it has not.
TEST(BundledModel, LoadsAndPredicts) {
  Result<InterferenceModel> m =
      InterferenceModel::Load("models/share/interference_gavel.json");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_GT(m->training_rows(), 1000u);
  ASSERT_NE(m->FindProfile("v100", "ResNet-50 (batch size 64)"), nullptr);
  GpuSpec v100;
  v100.name = "v100";
  v100.mem_gib = 16;
  v100.mem_bw_gbps = 900;
  v100.fp32_tflops = 15.7;
  ColoJob train;
  train.family = "ResNet-50";
  train.model = "ResNet-50 (batch size 64)";
  train.batch = 64;
  train.solo_tput = 2.9;
  ColoJob svc;
  svc.model = "bert-service";
  svc.batch = 8;
  svc.solo_tput = 40;
  svc.gpu_util = 35;
  const double a = m->PredictNormalizedTput(train, svc, v100);
  const double b = m->PredictNormalizedTput(svc, train, v100);
  EXPECT_GT(a, 0.05);
  EXPECT_LE(a, 1.2);
  EXPECT_GT(b, 0.05);
  EXPECT_LE(b, 1.2);
}

}  // namespace
}  // namespace frugal::share

namespace frugal::share {
namespace {

TEST(InterferenceModel, LoadRejectsCorruptFilesNamingThem) {
  const std::string dir = testing::TempDir();
  auto load = [&](const std::string& name, const std::string& text) {
    const std::string path = dir + "/" + name;
    FILE* f = std::fopen(path.c_str(), "w");
    std::fputs(text.c_str(), f);
    std::fclose(f);
    return InterferenceModel::Load(path).status().message();
  };
  const std::string head =
      R"({"format": "frugal-interference-v1", "source": "t", "options": {"trees": 5,
          "max_depth": 2, "learning_rate": 0.1, "seed": 1}, "gpus": {},
          "jobs": [{"family": "a", "model": "a", "batch": 1, "solo_tput": 2, "amp": false}],
          "samples": )";
  EXPECT_NE(load("m1.json", head + "[[\"\", 0, 3, 0.5]]}")
                .find("m1.json: sample 0: no such job"),
            std::string::npos);
  EXPECT_NE(
      load("m2.json", head + "[[\"\", 0, 0, -0.5]]}").find("m2.json: sample 0"),
      std::string::npos);
  EXPECT_NE(
      load("m3.json", head + "[[\"\", 0]]}").find("expected [gpu, self, other"),
      std::string::npos);
  EXPECT_NE(load("m4.json", head + "[]}").find("no training samples"),
            std::string::npos);
  EXPECT_NE(load("m5.json", head + "[[\"\", 0, 0, 0.5]]")
                .find("m5.json: malformed JSON"),
            std::string::npos);
  EXPECT_NE(load("m7.json", head + "[[\"\", 0, 0, 1e300]]}")
                .find("m7.json: sample 0 (a): normalised throughput 1e+300 is not in [0, 10]"),
            std::string::npos);
  EXPECT_EQ(load("m6.json", head + "[[\"\", 0, 0, 0.5]]}"), "");
}

}  // namespace
}  // namespace frugal::share
