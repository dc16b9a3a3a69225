#include "frugal/share/interference.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "frugal/base/file_io.h"
#include "frugal/cache/learner.h"

namespace frugal::share {

const char* const kFeatureNames[kNumFeatures] = {
    "log_solo_tput_self", "log_solo_tput_other", "log_batch_self", "log_batch_other",
    "gpu_util_self",      "gpu_util_other",      "mem_gib_self",   "mem_gib_other",
    "compute_share_self", "compute_share_other", "amp_self",       "amp_other",
    "gpu_fp32_tflops",    "gpu_mem_bw_gbps",     "gpu_mem_gib",    "log_solo_tput_ratio",
    "gpu_util_sum",       "mem_gib_sum",
};

namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
// The learner wrapper's missing-value marker.
constexpr float kMissing = -1e30f;
constexpr char kFormat[] = "frugal-interference-v1";

float Opt(const std::optional<double>& v) { return v ? static_cast<float>(*v) : kNan; }

float Log(double v) { return v > 0 ? static_cast<float>(std::log(v)) : kNan; }

std::vector<float> ToLearner(std::vector<float> row) {
  for (float& v : row) {
    if (!std::isfinite(v)) v = kMissing;
  }
  return row;
}

Status CheckSample(const ColoSample& s, size_t i) {
  for (const ColoJob* j : {&s.self, &s.other}) {
    if (!(j->solo_tput > 0) || !std::isfinite(j->solo_tput)) {
      return InvalidArgument(fmt::format("sample {} ({}): solo throughput {} is not positive",
                                         i, j->model, j->solo_tput));
    }
  }
  if (!(s.norm_tput >= 0) || !std::isfinite(s.norm_tput)) {
    return InvalidArgument(fmt::format("sample {} ({}): normalised throughput {} is not >= 0",
                                       i, s.self.model, s.norm_tput));
  }
  return Status::Ok();
}

const GpuSpec* FindGpu(const Catalog* gpus, const std::string& name) {
  return gpus == nullptr || name.empty() ? nullptr : gpus->FindGpu(name);
}

}  // namespace

std::vector<float> PairFeatures(const ColoJob& self, const ColoJob& other, const GpuSpec* gpu) {
  std::vector<float> f(kNumFeatures, kNan);
  f[0] = Log(self.solo_tput);
  f[1] = Log(other.solo_tput);
  f[2] = Log(self.batch);
  f[3] = Log(other.batch);
  f[4] = Opt(self.gpu_util);
  f[5] = Opt(other.gpu_util);
  f[6] = Opt(self.mem_gib);
  f[7] = Opt(other.mem_gib);
  f[8] = Opt(self.compute_share);
  f[9] = Opt(other.compute_share);
  f[10] = self.amp ? 1.0f : 0.0f;
  f[11] = other.amp ? 1.0f : 0.0f;
  f[12] = gpu && gpu->fp32_tflops ? static_cast<float>(*gpu->fp32_tflops) : 0.0f;
  f[13] = gpu ? static_cast<float>(gpu->mem_bw_gbps) : 0.0f;
  f[14] = gpu ? static_cast<float>(gpu->mem_gib) : 0.0f;
  f[15] = f[0] - f[1];
  f[16] = f[4] + f[5];  // NaN unless both are known
  f[17] = f[6] + f[7];
  return f;
}

struct InterferenceModel::Trees {
  explicit Trees(const InterferenceOptions& o)
      : gbdt(cache::GbdtOptions{o.trees, o.max_depth, o.learning_rate, o.seed}) {}
  cache::GbdtRegressor gbdt;
};

InterferenceModel::InterferenceModel() = default;
InterferenceModel::~InterferenceModel() = default;
InterferenceModel::InterferenceModel(InterferenceModel&&) noexcept = default;
InterferenceModel& InterferenceModel::operator=(InterferenceModel&&) noexcept = default;

Status InterferenceModel::Refit() {
  if (targets_.empty()) return InvalidArgument("interference model: no training samples");
  if (options_.trees < 1 || options_.trees > 5000 || options_.max_depth < 1 ||
      options_.max_depth > 16 || !(options_.learning_rate > 0) || options_.learning_rate > 1) {
    return InvalidArgument("interference model: options out of range");
  }
  trees_ = std::make_unique<Trees>(options_);
  return trees_->gbdt.Fit(rows_, kNumFeatures, targets_);
}

Result<InterferenceModel> InterferenceModel::Fit(const std::vector<ColoSample>& samples,
                                                 const Catalog* gpus, const std::string& source,
                                                 const InterferenceOptions& options) {
  InterferenceModel m;
  m.source_ = source;
  m.options_ = options;
  m.rows_.reserve(samples.size() * kNumFeatures);
  for (size_t i = 0; i < samples.size(); ++i) {
    const ColoSample& s = samples[i];
    FRUGAL_RETURN_IF_ERROR(CheckSample(s, i));
    const std::vector<float> row =
        ToLearner(PairFeatures(s.self, s.other, FindGpu(gpus, s.gpu)));
    m.rows_.insert(m.rows_.end(), row.begin(), row.end());
    m.targets_.push_back(static_cast<float>(s.norm_tput));
  }
  FRUGAL_RETURN_IF_ERROR(m.Refit());
  return m;
}

double InterferenceModel::PredictFeatures(const std::vector<float>& row) const {
  if (!trees_ || row.size() != static_cast<size_t>(kNumFeatures)) return 1.0;
  const std::vector<float> r = ToLearner(row);
  const double p = trees_->gbdt.Predict(r.data(), kNumFeatures);
  return std::clamp(p, 0.0, 1.2);
}

double InterferenceModel::PredictNormalizedTput(const ColoJob& self, const ColoJob& other,
                                                const GpuSpec* gpu) const {
  return PredictFeatures(PairFeatures(self, other, gpu));
}

Status InterferenceModel::Save(const std::string& path) const {
  nlohmann::json j;
  j["format"] = kFormat;
  j["source"] = source_;
  j["options"] = {{"trees", options_.trees},
                  {"max_depth", options_.max_depth},
                  {"learning_rate", options_.learning_rate},
                  {"seed", options_.seed}};
  j["features"] = nlohmann::json::array();
  for (const char* n : kFeatureNames) j["features"].push_back(n);
  nlohmann::json rows = nlohmann::json::array();
  for (size_t i = 0; i < targets_.size(); ++i) {
    nlohmann::json r = nlohmann::json::array();
    for (int k = 0; k < kNumFeatures; ++k) {
      const float v = rows_[i * kNumFeatures + k];
      if (v == kMissing) {
        r.push_back(nullptr);
      } else {
        r.push_back(v);
      }
    }
    rows.push_back({{"x", r}, {"y", targets_[i]}});
  }
  j["rows"] = std::move(rows);
  return WriteStringToFile(path, j.dump(1) + "\n");
}

Result<InterferenceModel> InterferenceModel::Load(const std::string& path) {
  FRUGAL_ASSIGN_OR_RETURN(nlohmann::json j, ReadJsonFile(path));
  auto bad = [&](const std::string& what) {
    return InvalidArgument(fmt::format("{}: {}", path, what));
  };
  if (!j.is_object() || j.value("format", "") != kFormat) {
    return bad(fmt::format("not an interference model (\"format\" must be \"{}\")", kFormat));
  }
  InterferenceModel m;
  try {
    m.source_ = j.at("source").get<std::string>();
    const auto& o = j.at("options");
    m.options_.trees = o.at("trees").get<int>();
    m.options_.max_depth = o.at("max_depth").get<int>();
    m.options_.learning_rate = o.at("learning_rate").get<double>();
    m.options_.seed = o.at("seed").get<uint64_t>();
    const auto& names = j.at("features");
    if (!names.is_array() || names.size() != static_cast<size_t>(kNumFeatures)) {
      return bad(fmt::format("\"features\" must list the {} features", kNumFeatures));
    }
    for (int k = 0; k < kNumFeatures; ++k) {
      if (names[k].get<std::string>() != kFeatureNames[k]) {
        return bad(fmt::format("feature {} is \"{}\", expected \"{}\"", k,
                               names[k].get<std::string>(), kFeatureNames[k]));
      }
    }
    const auto& rows = j.at("rows");
    if (!rows.is_array()) return bad("\"rows\" must be an array");
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto& x = rows[i].at("x");
      if (!x.is_array() || x.size() != static_cast<size_t>(kNumFeatures)) {
        return bad(fmt::format("row {}: \"x\" must have {} values", i, kNumFeatures));
      }
      for (const auto& v : x) {
        if (v.is_null()) {
          m.rows_.push_back(kMissing);
        } else {
          const double d = v.get<double>();
          if (!std::isfinite(d)) return bad(fmt::format("row {}: feature is not finite", i));
          m.rows_.push_back(static_cast<float>(d));
        }
      }
      const double y = rows[i].at("y").get<double>();
      if (!(y >= 0) || !std::isfinite(y)) {
        return bad(fmt::format("row {}: target {} is not >= 0", i, y));
      }
      m.targets_.push_back(static_cast<float>(y));
    }
  } catch (const nlohmann::json::exception& e) {
    return bad(fmt::format("bad field: {}", e.what()));
  }
  Status st = m.Refit();
  if (!st.ok()) return bad(st.message());
  return m;
}

Result<LinearBaseline> LinearBaseline::Fit(const std::vector<ColoSample>& samples) {
  if (samples.empty()) return InvalidArgument("linear baseline: no training samples");
  std::vector<std::vector<float>> f;
  f.reserve(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    FRUGAL_RETURN_IF_ERROR(CheckSample(samples[i], i));
    f.push_back(PairFeatures(samples[i].self, samples[i].other, nullptr));
  }
  LinearBaseline b;
  for (int k : {0, 1, 2, 3, 4, 5, 6, 7, 10, 11}) {
    bool all = true;
    bool varies = false;
    for (const auto& r : f) {
      all = all && std::isfinite(r[k]);
      varies = varies || r[k] != f[0][k];
    }
    if (all && varies) b.features_.push_back(k);
  }
  const int cols = static_cast<int>(b.features_.size()) + 1;
  Eigen::MatrixXd a(static_cast<Eigen::Index>(f.size()), cols);
  Eigen::VectorXd y(static_cast<Eigen::Index>(f.size()));
  for (size_t i = 0; i < f.size(); ++i) {
    a(i, 0) = 1;
    for (int c = 1; c < cols; ++c) a(i, c) = f[i][b.features_[c - 1]];
    y(i) = samples[i].norm_tput;
  }
  const Eigen::VectorXd x = a.colPivHouseholderQr().solve(y);
  b.coef_.assign(x.data(), x.data() + x.size());
  return b;
}

double LinearBaseline::Predict(const ColoSample& s) const {
  const std::vector<float> f = PairFeatures(s.self, s.other, nullptr);
  double p = coef_.empty() ? 1.0 : coef_[0];
  for (size_t c = 0; c < features_.size(); ++c) {
    const float v = f[features_[c]];
    p += coef_[c + 1] * (std::isfinite(v) ? v : 0.0);
  }
  return std::clamp(p, 0.0, 1.2);
}

const char* HoldoutName(Holdout h) { return h == Holdout::kFamily ? "family" : "model"; }

Result<EvalResult> EvaluateHoldout(const std::vector<ColoSample>& samples, const Catalog* gpus,
                                   const EvalOptions& options) {
  auto group = [&](const ColoJob& j) {
    return options.holdout == Holdout::kFamily ? j.family : j.model;
  };
  std::set<std::string> groups;
  for (const ColoSample& s : samples) groups.insert(group(s.self));
  if (groups.size() < 2) {
    return InvalidArgument(fmt::format("holdout by {} needs at least two {}s, got {}",
                                       HoldoutName(options.holdout),
                                       HoldoutName(options.holdout), groups.size()));
  }
  std::vector<double> ours(samples.size(), 0), floor(samples.size(), 0);
  for (const std::string& g : groups) {
    std::vector<ColoSample> train;
    std::vector<size_t> test;
    for (size_t i = 0; i < samples.size(); ++i) {
      const ColoSample& s = samples[i];
      const bool involves = group(s.self) == g || group(s.other) == g;
      if (group(s.self) == g) test.push_back(i);
      if (!involves) train.push_back(s);
    }
    // Per-GPU training sets when not pooling: one model per GPU in the test.
    std::set<std::string> test_gpus;
    for (size_t i : test) test_gpus.insert(samples[i].gpu);
    for (const std::string& gpu : test_gpus) {
      std::vector<ColoSample> gtrain;
      for (const ColoSample& s : train) {
        if (options.pool_gpus || s.gpu == gpu) gtrain.push_back(s);
      }
      std::vector<ColoSample> ftrain;  // the floor is always per GPU
      for (const ColoSample& s : train) {
        if (s.gpu == gpu) ftrain.push_back(s);
      }
      if (gtrain.empty() || ftrain.empty()) {
        return InvalidArgument(fmt::format("holdout {}: no training samples left on '{}'", g, gpu));
      }
      FRUGAL_ASSIGN_OR_RETURN(InterferenceModel m,
                              InterferenceModel::Fit(gtrain, gpus, "holdout", options.trees));
      FRUGAL_ASSIGN_OR_RETURN(LinearBaseline lin, LinearBaseline::Fit(ftrain));
      const GpuSpec* spec = FindGpu(gpus, gpu);
      for (size_t i : test) {
        if (samples[i].gpu != gpu) continue;
        ours[i] = m.PredictNormalizedTput(samples[i].self, samples[i].other, spec);
        floor[i] = lin.Predict(samples[i]);
      }
    }
  }
  std::map<std::string, GroupScore> by_gpu;
  for (size_t i = 0; i < samples.size(); ++i) {
    GroupScore& sc = by_gpu[samples[i].gpu];
    sc.gpu = samples[i].gpu;
    const double e = std::abs(ours[i] - samples[i].norm_tput);
    const double ef = std::abs(floor[i] - samples[i].norm_tput);
    sc.samples += 1;
    sc.mae += e;
    sc.within_0_1 += e <= 0.1 ? 1 : 0;
    sc.floor_mae += ef;
    sc.floor_within_0_1 += ef <= 0.1 ? 1 : 0;
  }
  EvalResult r;
  r.groups.assign(groups.begin(), groups.end());
  for (auto& [name, sc] : by_gpu) {
    sc.mae /= sc.samples;
    sc.within_0_1 /= sc.samples;
    sc.floor_mae /= sc.samples;
    sc.floor_within_0_1 /= sc.samples;
    r.per_gpu.push_back(sc);
  }
  return r;
}

}  // namespace frugal::share
