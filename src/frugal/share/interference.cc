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
#include "frugal/perf/gbdt.h"

namespace frugal::share {

const char* const kFeatureNames[kNumFeatures] = {
    "log_solo_tput_self", "log_solo_tput_other",
    "log_batch_self",     "log_batch_other",
    "gpu_util_self",      "gpu_util_other",
    "mem_gib_self",       "mem_gib_other",
    "compute_share_self", "compute_share_other",
    "amp_self",           "amp_other",
    "gpu_fp32_tflops",    "gpu_mem_bw_gbps",
    "gpu_mem_gib",        "log_solo_tput_ratio",
    "gpu_util_sum",       "mem_gib_sum",
    "other_pressure",     "other_sensitivity",
    "other_excess",       "other_nearest",
    "util_fair_share",
};

namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
// The learner wrapper's missing-value marker.
constexpr float kMissing = -1e30f;
constexpr char kFormat[] = "frugal-interference-v1";
// Partners averaged for the nearest-neighbour feature.
constexpr int kNearest = 3;

float Opt(const std::optional<double>& v) {
  return v ? static_cast<float>(*v) : kNan;
}

float Log(double v) { return v > 0 ? static_cast<float>(std::log(v)) : kNan; }

// The trees leave out each job's absolute log solo throughput and log batch
// (features 0-3; the linear floor uses them): they name a job and its units
// (steps/s of one model are not steps/s of another), which does not transfer
// to a held-out family. Their ratio, feature 15, stays.
constexpr int kTreeSkips = 4;

std::vector<float> ToLearner(std::vector<float> row) {
  for (int k = 0; k < kNumFeatures; ++k) {
    if (k < kTreeSkips || !std::isfinite(row[k])) row[k] = kMissing;
  }
  return row;
}

Status CheckJob(const ColoJob& j, size_t i) {
  if (!(j.solo_tput > 0) || !std::isfinite(j.solo_tput)) {
    return InvalidArgument(
        fmt::format("sample {} ({}): solo throughput {} is not positive", i,
                    j.model, j.solo_tput));
  }
  if (!(j.batch > 0) || !std::isfinite(j.batch)) {
    return InvalidArgument(fmt::format(
        "sample {} ({}): batch {} is not positive", i, j.model, j.batch));
  }
  for (const auto& [v, name] :
       {std::pair{j.gpu_util, "gpu_util"}, std::pair{j.mem_gib, "mem_gib"},
        std::pair{j.compute_share, "compute_share"}}) {
    if (v && (!std::isfinite(*v) || *v < 0)) {
      return InvalidArgument(fmt::format("sample {} ({}): {} {} is not >= 0", i,
                                         j.model, name, *v));
    }
  }
  return Status::Ok();
}

Status CheckSample(const ColoSample& s, size_t i) {
  FRUGAL_RETURN_IF_ERROR(CheckJob(s.self, i));
  FRUGAL_RETURN_IF_ERROR(CheckJob(s.other, i));
  if (!(s.norm_tput >= 0) || !(s.norm_tput <= kMaxNormTput)) {
    return InvalidArgument(
        fmt::format("sample {} ({}): normalised throughput {} is not in [0, {}]", i,
                    s.self.model, s.norm_tput, kMaxNormTput));
  }
  return Status::Ok();
}

using ProfileMap = std::map<std::pair<std::string, std::string>, CoRunnerProfile>;

// Profiles of every job in `samples`, skipping pairs that involve family
// `skip` (empty: none).
ProfileMap BuildProfiles(const std::vector<ColoSample>& samples,
                         const std::string& skip) {
  ProfileMap m;
  std::map<std::pair<std::string, std::string>, std::pair<double, int>> own;
  for (const ColoSample& s : samples) {
    if (!skip.empty() && (s.self.family == skip || s.other.family == skip))
      continue;
    CoRunnerProfile& o = m[{s.gpu, s.other.model}];
    o.pressure += s.norm_tput;  // the partner's speed next to `other`
    o.pairs += 1;
    o.partners.push_back({std::log(s.self.solo_tput), std::log(s.self.batch),
                          s.self.gpu_util ? *s.self.gpu_util : std::nan(""),
                          s.norm_tput});
    auto& mine = own[{s.gpu, s.self.model}];
    mine.first += s.norm_tput;
    mine.second += 1;
  }
  auto sensitivity = [&](const std::string& gpu, const std::string& model) {
    const auto it = own.find({gpu, model});
    return it == own.end() ? std::nan("")
                           : it->second.first / it->second.second;
  };
  for (auto& [key, p] : m) {
    p.pressure /= p.pairs;
    p.sensitivity = sensitivity(key.first, key.second);
  }
  // Excess needs every partner's sensitivity, so a second pass.
  for (const ColoSample& s : samples) {
    if (!skip.empty() && (s.self.family == skip || s.other.family == skip))
      continue;
    const double own_mean = sensitivity(s.gpu, s.self.model);
    if (std::isfinite(own_mean))
      m[{s.gpu, s.other.model}].excess += s.norm_tput - own_mean;
  }
  for (auto& [key, p] : m) p.excess /= p.pairs;
  return m;
}

const CoRunnerProfile* Find(const ProfileMap& m, const std::string& gpu,
                       const std::string& model) {
  const auto it = m.find({gpu, model});
  return it == m.end() ? nullptr : &it->second;
}

// Mean normalised throughput of the kNearest partners of a profile most
// like `self` (solo throughput, batch, utilisation where both are known).
float Nearest(const ColoJob& self, const CoRunnerProfile& p) {
  if (p.partners.empty()) return kNan;
  const double ls = std::log(self.solo_tput), lb = std::log(self.batch);
  std::vector<std::pair<double, double>> d;  // distance, norm_tput
  d.reserve(p.partners.size());
  for (const CoRunnerProfile::Partner& q : p.partners) {
    double dist =
        std::abs(q.log_solo_tput - ls) + 0.5 * std::abs(q.log_batch - lb);
    if (self.gpu_util && std::isfinite(q.gpu_util))
      dist += std::abs(*self.gpu_util - q.gpu_util) / 25;
    d.push_back({dist, q.norm_tput});
  }
  const size_t k = std::min<size_t>(kNearest, d.size());
  std::partial_sort(d.begin(), d.begin() + k, d.end());
  double sum = 0;
  for (size_t i = 0; i < k; ++i) sum += d[i].second;
  return static_cast<float>(sum / k);
}

}  // namespace

std::vector<float> PairFeatures(const ColoJob& self, const ColoJob& other,
                                const GpuSpec* gpu,
                                const CoRunnerProfile* other_profile) {
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
  f[12] =
      gpu && gpu->fp32_tflops ? static_cast<float>(*gpu->fp32_tflops) : 0.0f;
  f[13] = gpu ? static_cast<float>(gpu->mem_bw_gbps) : 0.0f;
  f[14] = gpu ? static_cast<float>(gpu->mem_gib) : 0.0f;
  f[15] = f[0] - f[1];
  f[16] = f[4] + f[5];  // NaN unless both are known
  f[17] = f[6] + f[7];
  if (other_profile != nullptr) {
    f[18] = static_cast<float>(other_profile->pressure);
    f[19] = static_cast<float>(other_profile->sensitivity);
    f[20] = static_cast<float>(other_profile->excess);
    f[21] = Nearest(self, *other_profile);
  }
  // Two jobs that together ask for more than the SMs get a fair slice each.
  if (std::isfinite(f[16]) && f[16] > 0) f[22] = std::min(1.0f, 100.0f / f[16]);
  return f;
}

struct InterferenceModel::Trees {
  explicit Trees(const InterferenceOptions& o)
      : gbdt(GbdtOptions{o.trees, o.max_depth, o.learning_rate,
                                o.seed}) {}
  GbdtRegressor gbdt;
};

InterferenceModel::InterferenceModel() = default;
InterferenceModel::~InterferenceModel() = default;
InterferenceModel::InterferenceModel(InterferenceModel&&) noexcept = default;
InterferenceModel& InterferenceModel::operator=(InterferenceModel&&) noexcept =
    default;

Result<InterferenceModel> InterferenceModel::Fit(
    const std::vector<ColoSample>& samples, const Catalog* gpus,
    const std::string& source, const InterferenceOptions& options) {
  std::map<std::string, GpuSpec> specs;
  for (const ColoSample& s : samples) {
    if (gpus == nullptr || s.gpu.empty() || specs.count(s.gpu) > 0) continue;
    if (const GpuSpec* g = gpus->FindGpu(s.gpu)) specs[s.gpu] = *g;
  }
  return FitResolved(samples, std::move(specs), source, options);
}

Result<InterferenceModel> InterferenceModel::FitResolved(
    std::vector<ColoSample> samples, std::map<std::string, GpuSpec> gpus,
    const std::string& source, const InterferenceOptions& options) {
  if (samples.empty())
    return InvalidArgument("interference model: no training samples");
  if (options.trees < 1 || options.trees > 5000 || options.max_depth < 1 ||
      options.max_depth > 16 || !(options.learning_rate > 0) ||
      options.learning_rate > 1) {
    return InvalidArgument("interference model: options out of range");
  }
  std::map<std::string, ProfileMap> cross;  // by the family left out
  for (size_t i = 0; i < samples.size(); ++i) {
    FRUGAL_RETURN_IF_ERROR(CheckSample(samples[i], i));
    const std::string& fam = samples[i].self.family;
    if (cross.count(fam) == 0) cross[fam] = BuildProfiles(samples, fam);
  }
  InterferenceModel m;
  m.source_ = source;
  m.options_ = options;
  m.profiles_ = BuildProfiles(samples, "");
  std::vector<float> rows, targets;
  rows.reserve(samples.size() * kNumFeatures);
  for (const ColoSample& s : samples) {
    const auto g = gpus.find(s.gpu);
    const CoRunnerProfile* p = Find(cross[s.self.family], s.gpu, s.other.model);
    const std::vector<float> row = ToLearner(PairFeatures(
        s.self, s.other, g == gpus.end() ? nullptr : &g->second, p));
    rows.insert(rows.end(), row.begin(), row.end());
    targets.push_back(static_cast<float>(s.norm_tput));
  }
  m.trees_ = std::make_unique<Trees>(options);
  FRUGAL_RETURN_IF_ERROR(m.trees_->gbdt.Fit(rows, kNumFeatures, targets));
  m.samples_ = std::move(samples);
  m.gpus_ = std::move(gpus);
  return m;
}

double InterferenceModel::PredictFeatures(const std::vector<float>& row) const {
  if (!trees_ || row.size() != static_cast<size_t>(kNumFeatures)) return 1.0;
  const std::vector<float> r = ToLearner(row);
  const double p = trees_->gbdt.Predict(r.data(), kNumFeatures);
  return std::clamp(p, 0.0, 1.2);
}

const CoRunnerProfile* InterferenceModel::FindProfile(
    const std::string& gpu, const std::string& model) const {
  return Find(profiles_, gpu, model);
}

double InterferenceModel::PredictNormalizedTput(const ColoJob& self,
                                                const ColoJob& other,
                                                const GpuSpec* gpu) const {
  return PredictFeatures(PairFeatures(
      self, other, gpu, FindProfile(gpu ? gpu->name : "", other.model)));
}

namespace {

nlohmann::json JobJson(const ColoJob& j) {
  nlohmann::json o = {{"family", j.family},
                      {"model", j.model},
                      {"batch", j.batch},
                      {"solo_tput", j.solo_tput},
                      {"amp", j.amp}};
  if (j.gpu_util) o["gpu_util"] = *j.gpu_util;
  if (j.mem_gib) o["mem_gib"] = *j.mem_gib;
  if (j.compute_share) o["compute_share"] = *j.compute_share;
  return o;
}

ColoJob JobFromJson(const nlohmann::json& o) {  // throws nlohmann exceptions
  ColoJob j;
  j.family = o.at("family").get<std::string>();
  j.model = o.at("model").get<std::string>();
  j.batch = o.at("batch").get<double>();
  j.solo_tput = o.at("solo_tput").get<double>();
  j.amp = o.at("amp").get<bool>();
  if (o.contains("gpu_util")) j.gpu_util = o["gpu_util"].get<double>();
  if (o.contains("mem_gib")) j.mem_gib = o["mem_gib"].get<double>();
  if (o.contains("compute_share"))
    j.compute_share = o["compute_share"].get<double>();
  return j;
}

}  // namespace

Status InterferenceModel::Save(const std::string& path) const {
  nlohmann::json j;
  j["format"] = kFormat;
  j["source"] = source_;
  j["options"] = {{"trees", options_.trees},
                  {"max_depth", options_.max_depth},
                  {"learning_rate", options_.learning_rate},
                  {"seed", options_.seed}};
  nlohmann::json gpus = nlohmann::json::object();
  for (const auto& [name, g] : gpus_) {
    gpus[name] = {{"mem_gib", g.mem_gib}, {"mem_bw_gbps", g.mem_bw_gbps}};
    if (g.fp32_tflops) gpus[name]["fp32_tflops"] = *g.fp32_tflops;
  }
  j["gpus"] = std::move(gpus);
  // Jobs once each, samples as [gpu, self, other, norm_tput] one a line: the
  // file stays diffable and small.
  std::map<std::string, size_t> index;
  nlohmann::json jobs = nlohmann::json::array();
  auto job_index = [&](const ColoJob& job) {
    nlohmann::json o = JobJson(job);
    const auto [it, added] = index.try_emplace(o.dump(), jobs.size());
    if (added) jobs.push_back(std::move(o));
    return it->second;
  };
  std::vector<std::string> lines;
  for (const ColoSample& s : samples_) {
    const size_t a = job_index(s.self), b = job_index(s.other);
    lines.push_back(nlohmann::json::array({s.gpu, a, b, s.norm_tput}).dump());
  }
  j["jobs"] = std::move(jobs);
  j["samples"] = nlohmann::json::array();
  std::string text = j.dump(1);
  const std::string empty = "\"samples\": []";
  std::string body = "\"samples\": [\n";
  for (size_t i = 0; i < lines.size(); ++i) {
    body += "  " + lines[i] + (i + 1 < lines.size() ? ",\n" : "\n");
  }
  body += " ]";
  text.replace(text.find(empty), empty.size(), body);
  return WriteStringToFile(path, text + "\n");
}

Result<InterferenceModel> InterferenceModel::Load(const std::string& path) {
  FRUGAL_ASSIGN_OR_RETURN(nlohmann::json j, ReadJsonFile(path));
  auto bad = [&](const std::string& what) {
    return InvalidArgument(fmt::format("{}: {}", path, what));
  };
  if (!j.is_object() || !j.contains("format") || j["format"] != kFormat) {
    return bad(fmt::format(
        "not an interference model (\"format\" must be \"{}\")", kFormat));
  }
  std::string source;
  InterferenceOptions options;
  std::map<std::string, GpuSpec> gpus;
  std::vector<ColoSample> samples;
  size_t i = 0;
  try {
    source = j.at("source").get<std::string>();
    const auto& o = j.at("options");
    options.trees = o.at("trees").get<int>();
    options.max_depth = o.at("max_depth").get<int>();
    options.learning_rate = o.at("learning_rate").get<double>();
    options.seed = o.at("seed").get<uint64_t>();
    for (const auto& [name, g] : j.at("gpus").items()) {
      GpuSpec spec;
      spec.name = name;
      spec.mem_gib = g.at("mem_gib").get<double>();
      spec.mem_bw_gbps = g.at("mem_bw_gbps").get<double>();
      if (g.contains("fp32_tflops"))
        spec.fp32_tflops = g["fp32_tflops"].get<double>();
      if (!(spec.mem_gib > 0) || !(spec.mem_bw_gbps > 0) ||
          !std::isfinite(spec.mem_gib) || !std::isfinite(spec.mem_bw_gbps)) {
        return bad(fmt::format("gpu {}: figures must be positive", name));
      }
      gpus[name] = spec;
    }
    const auto& jobs_json = j.at("jobs");
    if (!jobs_json.is_array()) return bad("\"jobs\" must be an array");
    std::vector<ColoJob> jobs;
    for (const auto& o : jobs_json) jobs.push_back(JobFromJson(o));
    const auto& rows = j.at("samples");
    if (!rows.is_array()) return bad("\"samples\" must be an array");
    for (i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      if (!r.is_array() || r.size() != 4)
        return bad(fmt::format(
            "sample {}: expected [gpu, self, other, norm_tput]", i));
      const size_t a = r[1].get<size_t>(), b = r[2].get<size_t>();
      if (a >= jobs.size() || b >= jobs.size())
        return bad(fmt::format("sample {}: no such job", i));
      ColoSample s;
      s.gpu = r[0].get<std::string>();
      s.self = jobs[a];
      s.other = jobs[b];
      s.norm_tput = r[3].get<double>();
      samples.push_back(std::move(s));
    }
  } catch (const nlohmann::json::exception& e) {
    return bad(fmt::format("sample {}: bad field: {}", i, e.what()));
  }
  Result<InterferenceModel> m =
      FitResolved(std::move(samples), std::move(gpus), source, options);
  if (!m.ok()) return bad(m.status().message());
  return m;
}

Result<LinearBaseline> LinearBaseline::Fit(
    const std::vector<ColoSample>& samples) {
  if (samples.empty())
    return InvalidArgument("linear baseline: no training samples");
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

const char* HoldoutName(Holdout h) {
  return h == Holdout::kFamily ? "family" : "model";
}

Result<EvalResult> EvaluateHoldout(const std::vector<ColoSample>& samples,
                                   const Catalog* gpus,
                                   const EvalOptions& options) {
  auto group = [&](const ColoJob& j) {
    return options.holdout == Holdout::kFamily ? j.family : j.model;
  };
  std::set<std::string> groups;
  for (const ColoSample& s : samples) groups.insert(group(s.self));
  if (groups.size() < 2) {
    return InvalidArgument(
        fmt::format("holdout by {} needs at least two {}s, got {}",
                    HoldoutName(options.holdout), HoldoutName(options.holdout),
                    groups.size()));
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
      if (!options.only_gpu.empty() && gpu != options.only_gpu) continue;
      std::vector<ColoSample> gtrain;
      for (const ColoSample& s : train) {
        if (options.pool_gpus || s.gpu == gpu) gtrain.push_back(s);
      }
      std::vector<ColoSample> ftrain;  // the floor is always per GPU
      for (const ColoSample& s : train) {
        if (s.gpu == gpu) ftrain.push_back(s);
      }
      if (gtrain.empty() || ftrain.empty()) {
        return InvalidArgument(fmt::format(
            "holdout {}: no training samples left on '{}'", g, gpu));
      }
      FRUGAL_ASSIGN_OR_RETURN(
          InterferenceModel m,
          InterferenceModel::Fit(gtrain, gpus, "holdout", options.trees));
      FRUGAL_ASSIGN_OR_RETURN(LinearBaseline lin, LinearBaseline::Fit(ftrain));
      const GpuSpec* spec =
          gpus == nullptr || gpu.empty() ? nullptr : gpus->FindGpu(gpu);
      for (size_t i : test) {
        if (samples[i].gpu != gpu) continue;
        const ColoSample& s = samples[i];
        ours[i] = m.PredictFeatures(PairFeatures(
            s.self, s.other, spec, m.FindProfile(s.gpu, s.other.model)));
        floor[i] = lin.Predict(samples[i]);
      }
    }
  }
  std::map<std::pair<std::string, std::string>, std::pair<double, int>> job_sum;
  for (const ColoSample& s : samples) {
    auto& js = job_sum[{s.gpu, s.self.model}];
    js.first += s.norm_tput;
    js.second += 1;
  }
  std::map<std::string, GroupScore> by_gpu;
  for (size_t i = 0; i < samples.size(); ++i) {
    if (!options.only_gpu.empty() && samples[i].gpu != options.only_gpu) continue;
    const auto& js = job_sum[{samples[i].gpu, samples[i].self.model}];
    const double job_mean =
        js.second > 1 ? (js.first - samples[i].norm_tput) / (js.second - 1)
                      : samples[i].norm_tput;
    GroupScore& sc = by_gpu[samples[i].gpu];
    sc.gpu = samples[i].gpu;
    const double e = std::abs(ours[i] - samples[i].norm_tput);
    const double ef = std::abs(floor[i] - samples[i].norm_tput);
    sc.samples += 1;
    sc.mae += e;
    sc.within_0_1 += e <= 0.1 ? 1 : 0;
    sc.floor_mae += ef;
    sc.floor_within_0_1 += ef <= 0.1 ? 1 : 0;
    sc.job_mean_mae += std::abs(job_mean - samples[i].norm_tput);
  }
  EvalResult r;
  r.groups.assign(groups.begin(), groups.end());
  for (auto& [name, sc] : by_gpu) {
    sc.mae /= sc.samples;
    sc.within_0_1 /= sc.samples;
    sc.floor_mae /= sc.samples;
    sc.floor_within_0_1 /= sc.samples;
    sc.job_mean_mae /= sc.samples;
    r.per_gpu.push_back(sc);
  }
  return r;
}

std::string DefaultInterferenceModelPath() {
  return std::string(FRUGAL_SOURCE_ROOT) + "/models/share/interference_gavel.json";
}

}  // namespace frugal::share
