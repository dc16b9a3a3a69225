// The learned op-time model: one XGBoost booster per op type over
// LearnedFeatures, predicting log(latency / roofline) for launches above the
// GPU's latency floor; the prediction is max(floor, roofline x exp(tree)).
// Dividing by the roofline time moves most of the GPU-to-GPU difference into
// the analytic part, so the trees learn efficiencies, which transfer to GPUs
// without measurements far better than raw times do. The floor (the 2nd
// percentile of an op's times on a GPU: launch and timing overhead) is kept
// per trained GPU; an unseen GPU gets the median over the trained ones,
// since no catalog figure predicts it.
#include <fmt/format.h>
#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include "frugal/base/stats.h"
#include "frugal/perf/op_time_model.h"

namespace frugal {
namespace {

Status XgbError(const char* what) {
  return Internal(fmt::format("xgboost: {}: {}", what, XGBGetLastError()));
}

#define FRUGAL_XGB(call, what)              \
  do {                                      \
    if ((call) != 0) return XgbError(what); \
  } while (0)

// Owns a DMatrix handle.
class Matrix {
 public:
  ~Matrix() {
    if (h_) XGDMatrixFree(h_);
  }
  DMatrixHandle* out() { return &h_; }
  DMatrixHandle get() const { return h_; }

 private:
  DMatrixHandle h_ = nullptr;
};

class Booster {
 public:
  Booster() = default;
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;
  ~Booster() {
    if (h_) XGBoosterFree(h_);
  }
  BoosterHandle* out() { return &h_; }
  BoosterHandle get() const { return h_; }

 private:
  BoosterHandle h_ = nullptr;
};

// Rows faster than this multiple of their GPU's floor are launch-bound and
// carry no information about efficiency.
constexpr double kAboveFloor = 1.25;

// The latency below which an op type does not go on a GPU: the 2nd
// percentile of its measurements.
double FloorOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(0.02 * static_cast<double>(v.size() - 1))];
}

class LearnedModel final : public OpTimeModel {
 public:
  const char* name() const override { return "learned"; }

  Status Train(const std::vector<TrainRow>& all_rows,
               const TrainOptions& options) override {
    boosters_.clear();
    floors_.clear();
    default_floor_.clear();
    {
      std::map<std::pair<PerfOp, std::string>, std::vector<double>> lat;
      for (const auto& r : all_rows)
        lat[{r.shape.op, r.gpu->name}].push_back(r.latency_ms);
      std::map<PerfOp, std::vector<double>> per_op;
      for (const auto& [key, v] : lat) {
        double f = FloorOf(v);
        floors_[key.first][key.second] = f;
        per_op[key.first].push_back(f);
      }
      for (const auto& [op, v] : per_op) default_floor_[op] = Median(v);
    }
    std::vector<TrainRow> rows = Subsample(all_rows, options);
    std::map<PerfOp, std::vector<const TrainRow*>> by_op;
    for (const auto& r : rows) by_op[r.shape.op].push_back(&r);
    if (by_op.empty()) return InvalidArgument("learned: no training rows");
    threads_ = options.threads;
    std::map<std::string, GpuFeatures> gpus;
    for (auto& [op, members] : by_op) {
      std::vector<const TrainRow*> above;
      for (const auto* r : members) {
        if (r->latency_ms > kAboveFloor * floors_[op][r->gpu->name])
          above.push_back(r);
      }
      if (above.size() >= 50) members = std::move(above);
      const size_t nf = FeatureNames().size();
      std::vector<float> x;
      std::vector<float> y;
      x.reserve(members.size() * nf);
      for (const auto* r : members) {
        auto it = gpus.find(r->gpu->name);
        if (it == gpus.end()) {
          FRUGAL_ASSIGN_OR_RETURN(GpuFeatures g, GpuFeaturesOf(*r->gpu));
          it = gpus.emplace(r->gpu->name, g).first;
        }
        std::vector<float> f = LearnedFeatures(r->shape, it->second);
        x.insert(x.end(), f.begin(), f.end());
        OpWork w = WorkOf(r->shape);
        y.push_back(static_cast<float>(std::log(
            r->latency_ms / RooflineCoreMs(w.flops, w.bytes, it->second))));
      }
      Matrix m;
      FRUGAL_XGB(
          XGDMatrixCreateFromMat_omp(x.data(), members.size(), nf, NAN, m.out(), threads_),
          "creating training matrix");
      FRUGAL_XGB(XGDMatrixSetFloatInfo(m.get(), "label", y.data(), y.size()),
                 "setting labels");
      auto b = std::make_unique<Booster>();
      DMatrixHandle mats[] = {m.get()};
      FRUGAL_XGB(XGBoosterCreate(mats, 1, b->out()), "creating booster");
      const std::pair<const char*, std::string> params[] = {
          {"tree_method", "hist"},
          {"objective", "reg:squarederror"},
          {"max_depth", std::to_string(options.max_depth)},
          {"eta", fmt::format("{}", options.eta)},
          {"subsample", "0.8"},
          {"colsample_bytree", "0.8"},
          {"min_child_weight", "2"},
          {"max_bin", "256"},
          {"seed", std::to_string(options.seed)},
          {"nthread", std::to_string(std::max(1, options.threads))},
          {"verbosity", "0"},
      };
      for (const auto& [k, v] : params) {
        FRUGAL_XGB(XGBoosterSetParam(b->get(), k, v.c_str()),
                   "setting parameters");
      }
      for (int it = 0; it < options.rounds; ++it) {
        FRUGAL_XGB(XGBoosterUpdateOneIter(b->get(), it, m.get()), "training");
      }
      boosters_[op] = std::move(b);
    }
    return Status::Ok();
  }

  Result<std::vector<double>> PredictMs(std::span<const OpShape> shapes,
                                        const GpuSpec& gpu) const override {
    if (boosters_.empty())
      return FailedPrecondition("learned model is not trained");
    FRUGAL_ASSIGN_OR_RETURN(GpuFeatures g, GpuFeaturesOf(gpu));
    std::vector<double> out(shapes.size(), 0.0);
    std::map<PerfOp, std::vector<size_t>> by_op;
    for (size_t i = 0; i < shapes.size(); ++i) by_op[shapes[i].op].push_back(i);
    const size_t nf = FeatureNames().size();
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [op, idx] : by_op) {
      auto b = boosters_.find(op);
      if (b == boosters_.end()) {
        return NotFound(
            fmt::format("learned model was not trained on {}", PerfOpName(op)));
      }
      std::vector<float> x;
      x.reserve(idx.size() * nf);
      for (size_t i : idx) {
        std::vector<float> f = LearnedFeatures(shapes[i], g);
        x.insert(x.end(), f.begin(), f.end());
      }
      Matrix m;
      FRUGAL_XGB(XGDMatrixCreateFromMat_omp(x.data(), idx.size(), nf, NAN, m.out(), 1),
                 "creating prediction matrix");
      bst_ulong len = 0;
      const float* pred = nullptr;
      FRUGAL_XGB(
          XGBoosterPredict(b->second->get(), m.get(), 0, 0, 0, &len, &pred),
          "predicting");
      if (len != idx.size()) return Internal("xgboost: wrong prediction count");
      const double floor = FloorFor(op, gpu.name);
      for (size_t j = 0; j < idx.size(); ++j) {
        OpWork w = WorkOf(shapes[idx[j]]);
        double t = RooflineCoreMs(w.flops, w.bytes, g) *
                   std::exp(static_cast<double>(pred[j]));
        out[idx[j]] = std::max(floor, t);
      }
    }
    return out;
  }

  nlohmann::json ToJson(bool binary) const override {
    nlohmann::json boosters = nlohmann::json::object();
    for (const auto& [op, b] : boosters_) {
      bst_ulong len = 0;
      const char* buf = nullptr;
      const char* config =
          binary ? R"({"format": "ubj"})" : R"({"format": "json"})";
      if (XGBoosterSaveModelToBuffer(b->get(), config, &len, &buf) != 0)
        continue;
      if (binary) {
        boosters[PerfOpName(op)] = nlohmann::json::binary(
            std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(buf),
                                 reinterpret_cast<const uint8_t*>(buf) + len));
      } else {
        boosters[PerfOpName(op)] = nlohmann::json::parse(std::string(buf, len));
      }
    }
    nlohmann::json floors = nlohmann::json::object();
    for (const auto& [op, by_gpu] : floors_) {
      floors[PerfOpName(op)] = {{"gpus", by_gpu},
                                {"default", default_floor_.at(op)}};
    }
    return {{"target", "ln(latency_ms / roofline_core_ms) above the floor"},
            {"prediction", "max(floor_ms, roofline_core_ms * exp(tree))"},
            {"features", FeatureNames()},
            {"floors_ms", floors},
            {"boosters", boosters}};
  }

  Status FromJson(const nlohmann::json& j) override {
    boosters_.clear();
    floors_.clear();
    default_floor_.clear();
    try {
      for (const auto& [name, f] : j.at("floors_ms").items()) {
        PerfOp op;
        if (!ParsePerfOp(name, &op))
          return InvalidArgument("learned: unknown op '" + name + "'");
        default_floor_[op] = f.at("default").get<double>();
        floors_[op] = f.at("gpus").get<std::map<std::string, double>>();
      }
    } catch (const nlohmann::json::exception& e) {
      return InvalidArgument(std::string("learned: malformed floors: ") +
                             e.what());
    }
    if (!j.contains("boosters") || !j["boosters"].is_object() ||
        j["boosters"].empty()) {
      return InvalidArgument("learned: state has no boosters");
    }
    if (j.contains("features") &&
        j["features"] != nlohmann::json(FeatureNames())) {
      return InvalidArgument("learned: feature names differ from this build's");
    }
    for (const auto& [name, blob] : j["boosters"].items()) {
      PerfOp op;
      if (!ParsePerfOp(name, &op))
        return InvalidArgument("learned: unknown op '" + name + "'");
      std::string bytes;
      if (blob.is_binary()) {
        bytes.assign(blob.get_binary().begin(), blob.get_binary().end());
      } else if (blob.is_object()) {
        bytes = blob.dump();
      } else if (blob.is_array()) {  // UBJSON readers may give bytes as numbers
        for (const auto& v : blob)
          bytes.push_back(static_cast<char>(v.get<int>()));
      } else {
        return InvalidArgument("learned: booster '" + name +
                               "' is not a model");
      }
      auto b = std::make_unique<Booster>();
      FRUGAL_XGB(XGBoosterCreate(nullptr, 0, b->out()), "creating booster");
      FRUGAL_XGB(
          XGBoosterLoadModelFromBuffer(b->get(), bytes.data(), bytes.size()),
          "loading booster");
      // One thread: predictions come in small batches, where OpenMP's
      // spinning workers cost more than they give on a busy host.
      FRUGAL_XGB(XGBoosterSetParam(b->get(), "nthread", "1"), "setting threads");
      if (!default_floor_.count(op))
        return InvalidArgument("learned: no floor for " + name);
      boosters_[op] = std::move(b);
    }
    return Status::Ok();
  }

 private:
  // The measured floor of a GPU the model was trained on, else the median
  // over the training GPUs.
  double FloorFor(PerfOp op, const std::string& gpu) const {
    auto it = floors_.find(op);
    if (it != floors_.end()) {
      auto g = it->second.find(gpu);
      if (g != it->second.end()) return g->second;
    }
    auto d = default_floor_.find(op);
    return d == default_floor_.end() ? kLaunchOverheadMs : d->second;
  }

  std::map<PerfOp, std::map<std::string, double>> floors_;  // ms, by GPU
  std::map<PerfOp, double> default_floor_;                  // ms
  int threads_ = 2;
  std::map<PerfOp, std::unique_ptr<Booster>> boosters_;
  mutable std::mutex mu_;  // XGBoost prediction on one booster is serialised
};

}  // namespace

std::unique_ptr<OpTimeModel> NewLearnedModel() {
  return std::make_unique<LearnedModel>();
}

}  // namespace frugal
