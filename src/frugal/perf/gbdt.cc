#include "frugal/perf/gbdt.h"

#include <string>

#include <xgboost/c_api.h>

namespace frugal {
namespace {

Status XgbError(const char* what) {
  return Internal(std::string("xgboost ") + what + ": " + XGBGetLastError());
}

struct DMatrix {
  DMatrixHandle h = nullptr;
  ~DMatrix() {
    if (h != nullptr) XGDMatrixFree(h);
  }
};

}  // namespace

GbdtRegressor::~GbdtRegressor() {
  if (booster_ != nullptr) XGBoosterFree(booster_);
}

Status GbdtRegressor::Fit(const std::vector<float>& x, int cols, const std::vector<float>& y) {
  static const int kQuiet = XGBSetGlobalConfig("{\"verbosity\": 0}");
  (void)kQuiet;
  const auto rows = static_cast<bst_ulong>(y.size());
  if (rows == 0 || cols <= 0 || x.size() != rows * static_cast<size_t>(cols)) {
    return InvalidArgument("learner: feature matrix does not match the targets");
  }
  DMatrix d;
  if (XGDMatrixCreateFromMat_omp(x.data(), rows, static_cast<bst_ulong>(cols), -1e30f, &d.h, 1) != 0) {
    return XgbError("DMatrix");
  }
  if (XGDMatrixSetFloatInfo(d.h, "label", y.data(), rows) != 0) return XgbError("labels");
  BoosterHandle b = nullptr;
  if (XGBoosterCreate(&d.h, 1, &b) != 0) return XgbError("booster");
  const std::string depth = std::to_string(options_.max_depth);
  const std::string eta = std::to_string(options_.learning_rate);
  const std::string seed = std::to_string(options_.seed % 2147483647);
  const std::pair<const char*, std::string> params[] = {
      {"tree_method", "hist"}, {"nthread", "1"},  {"max_depth", depth},
      {"eta", eta},            {"seed", seed},    {"objective", "reg:squarederror"},
      {"verbosity", "0"},
  };
  for (const auto& [k, v] : params) {
    if (XGBoosterSetParam(b, k, v.c_str()) != 0) {
      XGBoosterFree(b);
      return XgbError("parameter");
    }
  }
  for (int i = 0; i < options_.trees; ++i) {
    if (XGBoosterUpdateOneIter(b, i, d.h) != 0) {
      XGBoosterFree(b);
      return XgbError("training");
    }
  }
  if (booster_ != nullptr) XGBoosterFree(booster_);
  booster_ = b;
  return Status::Ok();
}

float GbdtRegressor::Predict(const float* row, int cols) const {
  DMatrix d;
  if (XGDMatrixCreateFromMat_omp(row, 1, static_cast<bst_ulong>(cols), -1e30f, &d.h, 1) != 0) return 0;
  bst_ulong len = 0;
  const float* out = nullptr;
  if (XGBoosterPredict(booster_, d.h, 0, 0, 0, &len, &out) != 0 || len < 1) return 0;
  return out[0];
}

}  // namespace frugal
