// A small gradient-boosted regression-tree learner over the XGBoost C API,
// for the learned cache policies (lrb, smartcache) and G-Share's
// interference model. Dense float features,
// one target; single-threaded and seeded, so fits are deterministic. One
// instance per policy; not thread-safe (instances are independent).
#ifndef FRUGAL_PERF_GBDT_H_
#define FRUGAL_PERF_GBDT_H_

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "frugal/base/status.h"

namespace frugal {

struct GbdtOptions {
  int trees = 30;
  int max_depth = 6;
  double learning_rate = 0.3;
  uint64_t seed = 1;
  // Histogram bins per feature (XGBoost's default). Split search costs
  // nodes x features x bins per tree; fewer bins fit faster.
  int max_bin = 256;
};

class GbdtRegressor {
 public:
  explicit GbdtRegressor(GbdtOptions options = {}) : options_(options) {}
  ~GbdtRegressor();
  GbdtRegressor(const GbdtRegressor&) = delete;
  GbdtRegressor& operator=(const GbdtRegressor&) = delete;

  // Replaces the model with one fitted to rows x cols features `x` (row
  // major) and targets `y`. REQUIRES: x.size() == y.size() * cols, rows > 0.
  Status Fit(const std::vector<float>& x, int cols, const std::vector<float>& y);
  bool fitted() const { return booster_ != nullptr; }
  // Predicts one row of `cols` features. REQUIRES: fitted().
  float Predict(const float* row, int cols) const;
  // Predicts `rows` rows of `cols` features (row major) into out[0..rows);
  // the same values as Predict row by row, and as XGBoost's own predictor.
  // REQUIRES: fitted().
  void PredictBatch(const float* x, size_t rows, int cols, float* out) const;

  // The fitted model as XGBoost JSON. REQUIRES: fitted().
  nlohmann::json ToJson() const;
  // Replaces the model with `j` (from ToJson) after checking its trees and
  // that it reads `cols` features; InvalidArgument naming `what` otherwise.
  Status FromJson(const nlohmann::json& j, int cols, const std::string& what);

 private:
  // The fitted trees, flattened for prediction without an XGBoost call
  // (an in-place XGBoost prediction parses two JSON documents per call,
  // and building a DMatrix reads cgroup files, several times the cost of
  // walking 30 small trees). Read from the booster's UBJSON, so split
  // values and leaves are XGBoost's own floats; sums are taken in
  // XGBoost's order (base score, then tree by tree, in float), so the
  // values are XGBoost's to the bit.
  struct Node {
    int32_t left = -1, right = -1;  // -1: a leaf
    uint32_t feature = 0;
    float value = 0;  // split condition, or the leaf's value
    bool default_left = false;
  };
  Status Flatten();
  // Replaces the model with `booster` (owned from now on) and flattens it;
  // on failure, back to unfitted.
  Status Adopt(void* booster);
  void Reset();  // back to unfitted

  GbdtOptions options_;
  void* booster_ = nullptr;
  std::vector<Node> nodes_;
  std::vector<int32_t> roots_;  // per tree, its first node in nodes_
  float base_score_ = 0;
};

}  // namespace frugal

#endif  // FRUGAL_PERF_GBDT_H_
