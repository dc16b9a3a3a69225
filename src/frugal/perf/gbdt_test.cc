#include "frugal/perf/gbdt.h"

#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <xgboost/c_api.h>

namespace frugal {
namespace {

// XGBoost's own predictor on the same trees: the model saved by ToJson,
// loaded into a fresh booster, run over a DMatrix.
std::vector<float> XgboostPredict(const nlohmann::json& model, const std::vector<float>& x, size_t rows, int cols) {
  const std::string text = model.dump();
  BoosterHandle b = nullptr;
  EXPECT_EQ(XGBoosterCreate(nullptr, 0, &b), 0);
  EXPECT_EQ(XGBoosterLoadModelFromBuffer(b, text.data(), text.size()), 0);
  DMatrixHandle d = nullptr;
  EXPECT_EQ(XGDMatrixCreateFromMat_omp(x.data(), rows, static_cast<bst_ulong>(cols), -1e30f, &d, 1), 0);
  bst_ulong len = 0;
  const float* pred = nullptr;
  EXPECT_EQ(XGBoosterPredict(b, d, 0, 0, 0, &len, &pred), 0);
  std::vector<float> out(pred, pred + len);
  XGDMatrixFree(d);
  XGBoosterFree(b);
  return out;
}

TEST(Gbdt, PredictionsAreXgboostsToTheBit) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-3, 3);
  const int cols = 5;
  const size_t rows = 3000;
  std::vector<float> x(rows * cols), y(rows);
  for (size_t r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) x[r * cols + c] = u(rng);
    y[r] = std::sin(x[r * cols]) * x[r * cols + 1] + (x[r * cols + 2] > 0.5f ? 2.f : -1.f) + 0.1f * u(rng);
  }
  GbdtRegressor g(GbdtOptions{30, 6, 0.3, 1});
  ASSERT_TRUE(g.Fit(x, cols, y).ok());
  // Rows with NaN (missing) features, and features exactly on the trees'
  // split thresholds (where < and <= part ways).
  std::vector<float> probe = x;
  for (size_t r = 0; r < rows; r += 7) probe[r * cols + 3] = NAN;
  size_t r = 1;
  const nlohmann::json model = g.ToJson();
  for (const auto& t : model["learner"]["gradient_booster"]["model"]["trees"]) {
    for (size_t i = 0; i < t["left_children"].size() && r < rows; ++i, r += 3) {
      if (t["left_children"][i].get<int>() < 0) continue;
      probe[r * cols + t["split_indices"][i].get<size_t>()] = t["split_conditions"][i].get<float>();
    }
  }
  ASSERT_GT(r, rows / 2);
  std::vector<float> ours(rows);
  g.PredictBatch(probe.data(), rows, cols, ours.data());
  const std::vector<float> theirs = XgboostPredict(model, probe, rows, cols);
  ASSERT_EQ(theirs.size(), rows);
  for (r = 0; r < rows; ++r) {
    ASSERT_EQ(std::memcmp(&ours[r], &theirs[r], sizeof(float)), 0) << "row " << r << ": " << ours[r] << " vs "
                                                                    << theirs[r];
    ASSERT_EQ(g.Predict(&probe[r * cols], cols), ours[r]);
  }
  // A model read back from its JSON predicts the same.
  GbdtRegressor h;
  ASSERT_TRUE(h.FromJson(model, cols, "model").ok());
  std::vector<float> again(rows);
  h.PredictBatch(probe.data(), rows, cols, again.data());
  EXPECT_EQ(again, ours);
}

// A model file whose tree points back at an earlier node is refused, not
// walked forever.
TEST(Gbdt, ModelWithABackwardChildIsRefused) {
  std::vector<float> x, y;
  for (int i = 0; i < 200; ++i) {
    x.push_back(static_cast<float>(i % 7));
    y.push_back(static_cast<float>(i % 7) * 0.5f);
  }
  GbdtRegressor g(GbdtOptions{3, 3, 0.3, 1});
  ASSERT_TRUE(g.Fit(x, 1, y).ok());
  nlohmann::json model = g.ToJson();
  auto& tree = model["learner"]["gradient_booster"]["model"]["trees"][0];
  ASSERT_GE(tree["left_children"][0].get<int>(), 1);
  const int child = tree["left_children"][0].get<int>();
  ASSERT_GE(tree["left_children"][child].get<int>(), 0) << "the test needs a tree of depth 2";
  tree["left_children"][child] = 0;
  GbdtRegressor h;
  const Status st = h.FromJson(model, 1, "cyclic.json");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cyclic.json"), std::string::npos) << st.message();
  EXPECT_FALSE(h.fitted());
}

// max_bin reaches XGBoost: splits fall only on the feature's histogram
// cuts, at most max_bin of them per feature.
TEST(Gbdt, MaxBinBoundsTheSplitThresholds) {
  std::vector<float> x(2000), y(2000);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(i);
    y[i] = std::sin(static_cast<float>(i) * 0.01f);
  }
  auto thresholds = [&](int bins) {
    GbdtRegressor g(GbdtOptions{30, 6, 0.3, 1, bins});
    EXPECT_TRUE(g.Fit(x, 1, y).ok());
    std::set<float> cuts;
    const nlohmann::json model = g.ToJson();
    for (const auto& t : model["learner"]["gradient_booster"]["model"]["trees"]) {
      for (size_t i = 0; i < t["left_children"].size(); ++i) {
        if (t["left_children"][i].get<int>() >= 0) cuts.insert(t["split_conditions"][i].get<float>());
      }
    }
    return cuts.size();
  };
  EXPECT_LE(thresholds(8), 8u);
  EXPECT_GT(thresholds(256), 8u);
}

}  // namespace
}  // namespace frugal
