#include "frugal/perf/boosters.h"

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace frugal {
namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// Rows of `cols` features with y depending on the first two; `nan_col`, when
// in range, is NaN in every row.
void Data(size_t rows, size_t cols, size_t nan_col, std::vector<float>* x,
          std::vector<float>* y) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-2, 2);
  x->clear();
  y->clear();
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) x->push_back(c == nan_col ? kNan : u(rng));
    const float a = (*x)[r * cols], b = (*x)[r * cols + 1];
    y->push_back(a * a + (b > 0 ? 1.0f : -1.0f));
  }
}

// The same rows with column `at` (all NaN) removed.
std::vector<float> Without(const std::vector<float>& x, size_t cols, size_t at) {
  std::vector<float> out;
  for (size_t i = 0; i < x.size(); ++i) {
    if (i % cols != at) out.push_back(x[i]);
  }
  return out;
}

TrainOptions Small() {
  TrainOptions o;
  o.rounds = 20;
  o.threads = 1;
  return o;
}

TEST(OpBoosters, ColumnWithoutValuesLeavesTheTreesAsWithoutIt) {
  std::vector<float> x, y;
  Data(400, 6, 4, &x, &y);
  const std::vector<float> x5 = Without(x, 6, 4);
  OpBoosters with, without;
  ASSERT_TRUE(with.Fit(PerfOp::kLinear, x, 6, y, Small()).ok());
  ASSERT_TRUE(without.Fit(PerfOp::kLinear, x5, 5, y, Small()).ok());
  auto a = with.Predict("t", PerfOp::kLinear, x, 6);
  auto b = without.Predict("t", PerfOp::kLinear, x5, 5);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);  // bit for bit: column sampling drew among the same 5
}

TEST(OpBoosters, KeptColumnsSurviveSavingAndLoading) {
  std::vector<float> x, y;
  Data(300, 6, 2, &x, &y);
  OpBoosters fitted;
  ASSERT_TRUE(fitted.Fit(PerfOp::kSoftmax, x, 6, y, Small()).ok());
  for (bool binary : {true, false}) {
    OpBoosters loaded;
    ASSERT_TRUE(loaded.FromJson("t", fitted.ToJson(binary)).ok());
    auto a = fitted.Predict("t", PerfOp::kSoftmax, x, 6);
    auto b = loaded.Predict("t", PerfOp::kSoftmax, x, 6);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(*a, *b);
  }
  // A build with fewer features than the booster reads is an error, not a
  // read past the row.
  auto short_rows = fitted.Predict("t", PerfOp::kSoftmax, std::vector<float>(5, 0.f), 5);
  ASSERT_FALSE(short_rows.ok());
  EXPECT_NE(short_rows.status().message().find("reads feature 5"), std::string::npos);
}

TEST(OpBoosters, MalformedColumnListIsRejected) {
  std::vector<float> x, y;
  Data(300, 4, 1, &x, &y);
  OpBoosters fitted;
  ASSERT_TRUE(fitted.Fit(PerfOp::kLayerNorm, x, 4, y, Small()).ok());
  nlohmann::json j = fitted.ToJson(false);
  auto& attrs = j["ln"]["learner"]["attributes"];
  ASSERT_EQ(attrs["frugal_columns"], "0,2,3");
  for (const char* bad : {"0,2", "0,3,2", "0,x,3", "", "0,,3", "0,2,3,"}) {
    attrs["frugal_columns"] = bad;
    OpBoosters loaded;
    EXPECT_FALSE(loaded.FromJson("t", j).ok()) << bad;
  }
}

}  // namespace
}  // namespace frugal
