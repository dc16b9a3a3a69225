// The Ceer op-time model (Ceer: per-op-type regressions on input sizes for
// compute-heavy ops, medians for light ops), fitted per (op type, GPU).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "frugal/base/stats.h"
#include "frugal/perf/op_time_model.h"

namespace frugal {
namespace {

constexpr int kNumCoef = 5;  // 1, FLOPs, input, output, weight elements

// Regression inputs, scaled to keep the normal problem well conditioned:
// GFLOPs and mega-elements.
std::array<double, kNumCoef> Regressors(const OpShape& s) {
  OpWork w = WorkOf(s);
  return {1.0, w.flops * 1e-9, w.input_elems * 1e-6, w.output_elems * 1e-6,
          w.weight_elems * 1e-6};
}

struct Fit {
  bool regression = false;
  std::vector<double> coef;  // regression
  double median_ms = 0;      // median of the group; the light-op prediction
  double floor_ms = 0;       // smallest measured time; regression floor
  int64_t n = 0;
};

class CeerModel final : public OpTimeModel {
 public:
  const char* name() const override { return "ceer"; }

  Status Train(const std::vector<TrainRow>& rows,
               const TrainOptions&) override {
    std::map<std::pair<std::string, PerfOp>, std::vector<const TrainRow*>>
        groups;
    for (const auto& r : rows) groups[{r.gpu->name, r.shape.op}].push_back(&r);
    if (groups.empty()) return InvalidArgument("ceer: no training rows");
    fits_.clear();
    for (const auto& [key, members] : groups) {
      Fit f;
      f.n = static_cast<int64_t>(members.size());
      std::vector<double> y;
      for (const auto* r : members) y.push_back(r->latency_ms);
      f.median_ms = Median(y);
      f.floor_ms = *std::min_element(y.begin(), y.end());
      if (IsHeavyPerfOp(key.second) && f.n >= 2 * kNumCoef) {
        // Least squares on relative error: each row divided by its latency,
        // so small and large ops weigh alike.
        Eigen::MatrixXd a(f.n, kNumCoef);
        Eigen::VectorXd b(f.n);
        for (int64_t i = 0; i < f.n; ++i) {
          auto x = Regressors(members[i]->shape);
          for (int c = 0; c < kNumCoef; ++c) a(i, c) = x[c] / y[i];
          b(i) = 1.0;
        }
        Eigen::VectorXd beta = a.colPivHouseholderQr().solve(b);
        f.regression = beta.allFinite();
        f.coef.assign(beta.data(), beta.data() + beta.size());
      }
      fits_[key] = std::move(f);
    }
    return Status::Ok();
  }

  Result<std::vector<double>> PredictMs(std::span<const OpShape> shapes,
                                        const GpuSpec& gpu) const override {
    if (fits_.empty()) return FailedPrecondition("ceer model is not trained");
    std::vector<double> out;
    out.reserve(shapes.size());
    for (const auto& s : shapes) {
      auto it = fits_.find({gpu.name, s.op});
      if (it == fits_.end()) return NotFound(MissingMessage(gpu.name, s.op));
      const Fit& f = it->second;
      if (!f.regression) {
        out.push_back(f.median_ms);
        continue;
      }
      auto x = Regressors(s);
      double t = 0;
      for (int c = 0; c < kNumCoef; ++c) t += f.coef[c] * x[c];
      out.push_back(std::max(t, f.floor_ms));
    }
    return out;
  }

  nlohmann::json ToJson(bool) const override {
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& [key, f] : fits_) {
      nlohmann::json g = {{"gpu", key.first},
                          {"op", PerfOpName(key.second)},
                          {"n", f.n},
                          {"median_ms", f.median_ms},
                          {"floor_ms", f.floor_ms}};
      if (f.regression) g["coef"] = f.coef;
      groups.push_back(std::move(g));
    }
    return {{"regressors",
             {"1", "gflops", "input_melems", "output_melems", "weight_melems"}},
            {"groups", groups}};
  }

  Status FromJson(const nlohmann::json& j) override {
    fits_.clear();
    try {
      for (const auto& g : j.at("groups")) {
        PerfOp op;
        if (!ParsePerfOp(g.at("op").get<std::string>(), &op)) {
          return InvalidArgument("ceer: unknown op '" +
                                 g.at("op").get<std::string>() + "'");
        }
        Fit f;
        f.n = g.at("n").get<int64_t>();
        f.median_ms = g.at("median_ms").get<double>();
        f.floor_ms = g.at("floor_ms").get<double>();
        if (g.contains("coef")) {
          f.coef = g.at("coef").get<std::vector<double>>();
          if (f.coef.size() != kNumCoef) {
            return InvalidArgument("ceer: expected 5 coefficients");
          }
          f.regression = true;
        }
        fits_[{g.at("gpu").get<std::string>(), op}] = std::move(f);
      }
    } catch (const nlohmann::json::exception& e) {
      return InvalidArgument(std::string("ceer: malformed state: ") + e.what());
    }
    if (fits_.empty()) return InvalidArgument("ceer: no groups");
    return Status::Ok();
  }

 private:
  std::string MissingMessage(const std::string& gpu, PerfOp op) const {
    // The GPUs with this op's measurements (conv was timed on an A100 other
    // than the one the other ops were).
    std::vector<std::string> gpus;
    for (const auto& [key, f] : fits_) {
      if (key.second == op) gpus.push_back(key.first);
    }
    return fmt::format(
        "ceer has no {} measurements for GPU {} (it prices {} on the GPUs it was trained on for "
        "it: {}); use the efficiency, learned or roofline model",
        PerfOpName(op), gpu, PerfOpName(op), fmt::join(gpus, ", "));
  }

  std::map<std::pair<std::string, PerfOp>, Fit> fits_;
};

}  // namespace

std::unique_ptr<OpTimeModel> NewCeerModel() {
  return std::make_unique<CeerModel>();
}

}  // namespace frugal
