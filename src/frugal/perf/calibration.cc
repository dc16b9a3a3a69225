#include "frugal/perf/calibration.h"

#include <fmt/format.h>

#include <cmath>

#include "frugal/base/stats.h"

namespace frugal {
namespace {

class CalibratedModel final : public OpTimeModel {
 public:
  CalibratedModel(std::unique_ptr<OpTimeModel> base, Calibration c)
      : base_(std::move(base)), calibration_(std::move(c)) {
    // Class-level fallbacks: the median log scale of a GPU's measured heavy
    // (light) ops.
    for (const auto& [gpu, by_op] : calibration_) {
      std::vector<double> logs[2];
      for (const auto& [op, s] : by_op)
        logs[IsHeavyPerfOp(op)].push_back(std::log(s.scale));
      for (int heavy = 0; heavy < 2; ++heavy) {
        if (!logs[heavy].empty())
          class_scale_[gpu][heavy] = std::exp(Median(logs[heavy]));
      }
    }
  }

  const char* name() const override { return base_->name(); }

  Status Train(const std::vector<TrainRow>&, const TrainOptions&) override {
    return FailedPrecondition("a calibrated model cannot be retrained");
  }

  Result<std::vector<double>> PredictMs(std::span<const OpShape> shapes,
                                        const GpuSpec& gpu) const override {
    FRUGAL_ASSIGN_OR_RETURN(std::vector<double> t,
                            base_->PredictMs(shapes, gpu));
    for (size_t i = 0; i < t.size(); ++i) t[i] *= ScaleFor(gpu.name, shapes[i].op);
    return t;
  }

  nlohmann::json ToJson(bool binary) const override {
    return base_->ToJson(binary);
  }
  Status FromJson(const nlohmann::json& j) override {
    return base_->FromJson(j);
  }

  const Calibration& calibration() const { return calibration_; }

 private:
  double ScaleFor(const std::string& gpu, PerfOp op) const {
    auto g = calibration_.find(gpu);
    if (g == calibration_.end()) return 1;
    auto s = g->second.find(op);
    if (s != g->second.end()) return s->second.scale;
    auto c = class_scale_.find(gpu);
    if (c == class_scale_.end()) return 1;
    auto k = c->second.find(IsHeavyPerfOp(op));
    return k == c->second.end() ? 1 : k->second;
  }

  std::unique_ptr<OpTimeModel> base_;
  Calibration calibration_;
  std::map<std::string, std::map<bool, double>> class_scale_;
};

double MedianApePct(const std::vector<double>& predicted,
                    const std::vector<double>& measured, double scale) {
  std::vector<double> ape;
  for (size_t i = 0; i < predicted.size(); ++i)
    ape.push_back(100 * std::abs(predicted[i] * scale - measured[i]) /
                  measured[i]);
  return Median(std::move(ape));
}

}  // namespace

Result<Calibration> FitCalibration(const OpTimeModel& model,
                                   const std::vector<TrainRow>& rows) {
  std::map<std::pair<std::string, PerfOp>, std::vector<const TrainRow*>> groups;
  for (const auto& r : rows) groups[{r.gpu->name, r.shape.op}].push_back(&r);
  Calibration out;
  for (const auto& [key, members] : groups) {
    if (static_cast<int>(members.size()) < kMinCalibrationRows) continue;
    std::vector<OpShape> shapes;
    std::vector<double> measured;
    for (const auto* r : members) {
      shapes.push_back(r->shape);
      measured.push_back(r->latency_ms);
    }
    FRUGAL_ASSIGN_OR_RETURN(std::vector<double> predicted,
                            model.PredictMs(shapes, *members[0]->gpu));
    std::vector<double> log_ratio;
    for (size_t i = 0; i < predicted.size(); ++i)
      log_ratio.push_back(std::log(measured[i] / predicted[i]));
    CalibrationScale s;
    s.scale = std::exp(Median(log_ratio));
    s.rows = static_cast<int64_t>(members.size());
    s.median_ape_before_pct = MedianApePct(predicted, measured, 1);
    s.median_ape_after_pct = MedianApePct(predicted, measured, s.scale);
    out[key.first][key.second] = s;
  }
  if (out.empty()) {
    return InvalidArgument(fmt::format(
        "calibration needs at least {} measured launches of one op type on "
        "one GPU",
        kMinCalibrationRows));
  }
  return out;
}

std::unique_ptr<OpTimeModel> Calibrate(std::unique_ptr<OpTimeModel> base,
                                       Calibration calibration) {
  return std::make_unique<CalibratedModel>(std::move(base),
                                           std::move(calibration));
}

const Calibration* CalibrationOf(const OpTimeModel& model) {
  const auto* c = dynamic_cast<const CalibratedModel*>(&model);
  return c ? &c->calibration() : nullptr;
}

nlohmann::json CalibrationToJson(const Calibration& c) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [gpu, by_op] : c) {
    for (const auto& [op, s] : by_op) {
      j[gpu][PerfOpName(op)] = {
          {"scale", s.scale},
          {"rows", s.rows},
          {"median_ape_before_pct", s.median_ape_before_pct},
          {"median_ape_after_pct", s.median_ape_after_pct}};
    }
  }
  return j;
}

Result<Calibration> CalibrationFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return InvalidArgument("calibration is not an object");
  Calibration c;
  try {
    for (const auto& [gpu, by_op] : j.items()) {
      for (const auto& [name, s] : by_op.items()) {
        PerfOp op;
        if (!ParsePerfOp(name, &op))
          return InvalidArgument("calibration: unknown op '" + name + "'");
        CalibrationScale v;
        v.scale = s.at("scale").get<double>();
        if (!(v.scale > 0) || !std::isfinite(v.scale)) {
          return InvalidArgument(fmt::format(
              "calibration: scale of {} on {} must be positive", name, gpu));
        }
        v.rows = s.value("rows", int64_t{0});
        v.median_ape_before_pct = s.value("median_ape_before_pct", 0.0);
        v.median_ape_after_pct = s.value("median_ape_after_pct", 0.0);
        c[gpu][op] = v;
      }
    }
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgument(std::string("calibration: ") + e.what());
  }
  return c;
}

}  // namespace frugal
