#include "frugal/perf/gbdt.h"

#include <algorithm>
#include <string>

#include <xgboost/c_api.h>

#include "frugal/perf/boosters.h"

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
  float out = 0;
  PredictBatch(row, 1, cols, &out);
  return out;
}

void GbdtRegressor::PredictBatch(const float* x, size_t rows, int cols, float* out) const {
  std::fill(out, out + rows, 0.f);
  if (rows == 0) return;
  DMatrix d;
  if (XGDMatrixCreateFromMat_omp(x, static_cast<bst_ulong>(rows), static_cast<bst_ulong>(cols), -1e30f, &d.h,
                                 1) != 0) {
    return;
  }
  bst_ulong len = 0;
  const float* pred = nullptr;
  if (XGBoosterPredict(booster_, d.h, 0, 0, 0, &len, &pred) != 0 || len != rows) return;
  std::copy(pred, pred + rows, out);
}

nlohmann::json GbdtRegressor::ToJson() const {
  bst_ulong len = 0;
  const char* buf = nullptr;
  if (booster_ == nullptr || XGBoosterSaveModelToBuffer(booster_, R"({"format": "json"})", &len, &buf) != 0) {
    return nullptr;
  }
  return nlohmann::json::parse(std::string(buf, len), nullptr, false);
}

Status GbdtRegressor::FromJson(const nlohmann::json& j, int cols, const std::string& what) {
  Status st = CheckXgbTreeModel(j, what);
  if (!st.ok()) return st;
  try {
    const nlohmann::json& n = j.at("learner").at("learner_model_param").at("num_feature");
    const std::string v = n.is_string() ? n.get<std::string>() : n.dump();
    if (v != std::to_string(cols)) {
      return InvalidArgument(what + ": reads " + v + " features, expected " + std::to_string(cols));
    }
  } catch (const std::exception&) {
    return InvalidArgument(what + ": model parameters missing");
  }
  const std::string text = j.dump();
  BoosterHandle b = nullptr;
  if (XGBoosterCreate(nullptr, 0, &b) != 0) return XgbError("booster");
  if (XGBoosterLoadModelFromBuffer(b, text.data(), static_cast<bst_ulong>(text.size())) != 0 ||
      XGBoosterSetParam(b, "nthread", "1") != 0) {
    const Status err = InvalidArgument(what + ": " + XGBGetLastError());
    XGBoosterFree(b);
    return err;
  }
  if (booster_ != nullptr) XGBoosterFree(booster_);
  booster_ = b;
  return Status::Ok();
}

}  // namespace frugal
