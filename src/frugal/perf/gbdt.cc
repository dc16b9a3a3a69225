#include "frugal/perf/gbdt.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include <xgboost/c_api.h>

#include "frugal/base/file_io.h"
#include "frugal/perf/boosters.h"

namespace frugal {
namespace {

Status XgbError(const char* what) {
  return Internal(std::string("xgboost ") + what + ": " + XGBGetLastError());
}

// Fit's missing-value marker: no real feature takes it.
constexpr float kMissing = -1e30f;

struct DMatrix {
  DMatrixHandle h = nullptr;
  ~DMatrix() {
    if (h != nullptr) XGDMatrixFree(h);
  }
};

}  // namespace

GbdtRegressor::~GbdtRegressor() { Reset(); }

Status GbdtRegressor::Fit(const std::vector<float>& x, int cols, const std::vector<float>& y) {
  static const int kQuiet = XGBSetGlobalConfig("{\"verbosity\": 0}");
  (void)kQuiet;
  const auto rows = static_cast<bst_ulong>(y.size());
  if (rows == 0 || cols <= 0 || x.size() != rows * static_cast<size_t>(cols)) {
    return InvalidArgument("learner: feature matrix does not match the targets");
  }
  DMatrix d;
  if (XGDMatrixCreateFromMat_omp(x.data(), rows, static_cast<bst_ulong>(cols), kMissing, &d.h, 1) != 0) {
    return XgbError("DMatrix");
  }
  if (XGDMatrixSetFloatInfo(d.h, "label", y.data(), rows) != 0) return XgbError("labels");
  BoosterHandle b = nullptr;
  if (XGBoosterCreate(&d.h, 1, &b) != 0) return XgbError("booster");
  const std::string depth = std::to_string(options_.max_depth);
  const std::string eta = std::to_string(options_.learning_rate);
  const std::string seed = std::to_string(options_.seed % 2147483647);
  const std::string bins = std::to_string(options_.max_bin);
  const std::pair<const char*, std::string> params[] = {
      {"tree_method", "hist"}, {"nthread", "1"},  {"max_depth", depth},
      {"eta", eta},            {"seed", seed},    {"objective", "reg:squarederror"},
      {"verbosity", "0"},      {"max_bin", bins},
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
  return Adopt(b);
}

Status GbdtRegressor::Adopt(void* booster) {
  Reset();
  booster_ = booster;
  Status st = Flatten();
  if (!st.ok()) Reset();
  return st;
}

void GbdtRegressor::Reset() {
  if (booster_ != nullptr) XGBoosterFree(booster_);
  booster_ = nullptr;
  nodes_.clear();
  roots_.clear();
  base_score_ = 0;
}

float GbdtRegressor::Predict(const float* row, int cols) const {
  float out = 0;
  PredictBatch(row, 1, cols, &out);
  return out;
}

void GbdtRegressor::PredictBatch(const float* x, size_t rows, int cols, float* out) const {
  for (size_t r = 0; r < rows; ++r) {
    const float* row = x + r * static_cast<size_t>(cols);
    float sum = base_score_;
    for (int32_t root : roots_) {
      const Node* n = &nodes_[static_cast<size_t>(root)];
      while (n->left >= 0) {
        const float v = n->feature < static_cast<uint32_t>(cols) ? row[n->feature] : NAN;
        // A value equal to Fit's missing marker, or NaN, takes the default branch.
        const bool missing = std::isnan(v) || v == kMissing;
        n = &nodes_[static_cast<size_t>(root + (missing ? (n->default_left ? n->left : n->right)
                                                        : (v < n->value ? n->left : n->right)))];
      }
      sum += n->value;
    }
    out[r] = sum;
  }
}

Status GbdtRegressor::Flatten() {
  nodes_.clear();
  roots_.clear();
  bst_ulong len = 0;
  const char* buf = nullptr;
  if (XGBoosterSaveModelToBuffer(booster_, R"({"format": "ubj"})", &len, &buf) != 0) return XgbError("saving");
  Result<nlohmann::json> j = ParseUbjson(std::string(buf, len), "xgboost model");
  if (!j.ok()) return j.status();
  try {
    const nlohmann::json& learner = j->at("learner");
    const std::string base = learner.at("learner_model_param").at("base_score").get<std::string>();
    base_score_ = std::stof(base);
    for (const nlohmann::json& t : learner.at("gradient_booster").at("model").at("trees")) {
      const auto& left = t.at("left_children");
      const auto& right = t.at("right_children");
      const auto& feature = t.at("split_indices");
      const auto& value = t.at("split_conditions");
      const auto& dflt = t.at("default_left");
      const size_t n = left.size();
      if (right.size() != n || feature.size() != n || value.size() != n || dflt.size() != n || n == 0) {
        return Internal("xgboost model: a tree's node arrays differ in length");
      }
      if (t.contains("split_type")) {
        for (const auto& type : t.at("split_type")) {
          if (type.get<int>() != 0) return Internal("xgboost model: a categorical split");
        }
      }
      roots_.push_back(static_cast<int32_t>(nodes_.size()));
      for (size_t i = 0; i < n; ++i) {
        Node node;
        node.left = left[i].get<int32_t>();
        node.right = right[i].get<int32_t>();
        node.feature = feature[i].get<uint32_t>();
        node.value = value[i].get<float>();
        node.default_left = dflt[i].is_boolean() ? dflt[i].get<bool>() : dflt[i].get<int>() != 0;
        // A child comes after its parent (XGBoost appends children as it
        // grows a tree), so every walk ends, whatever a model file says.
        const auto bad = [n, i](int32_t c) { return c >= static_cast<int32_t>(n) || c <= static_cast<int32_t>(i); };
        if ((node.left >= 0) != (node.right >= 0) || (node.left >= 0 && (bad(node.left) || bad(node.right)))) {
          return Internal("xgboost model: a tree node's children are out of range");
        }
        nodes_.push_back(node);
      }
    }
  } catch (const std::exception& e) {
    return Internal(std::string("xgboost model: ") + e.what());
  }
  return Status::Ok();
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
  if (Status st = Adopt(b); !st.ok()) return InvalidArgument(what + ": " + st.message());
  return Status::Ok();
}

}  // namespace frugal
