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

#include <algorithm>
#include <cmath>
#include <map>

#include "frugal/perf/boosters.h"
#include "frugal/perf/op_time_model.h"

namespace frugal {
namespace {

class LearnedModel final : public OpTimeModel {
 public:
  const char* name() const override { return "learned"; }

  Status Train(const std::vector<TrainRow>& all_rows,
               const TrainOptions& options) override {
    boosters_.Clear();
    floors_.Fit(all_rows);
    std::vector<TrainRow> rows = Subsample(all_rows, options);
    std::map<PerfOp, std::vector<const TrainRow*>> by_op = RowsAboveFloor(rows, floors_);
    if (by_op.empty()) return InvalidArgument("learned: no training rows");
    std::map<std::string, GpuFeatures> gpus;
    for (const auto& [op, members] : by_op) {
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
      FRUGAL_RETURN_IF_ERROR(boosters_.Fit(op, x, nf, y, options));
    }
    return Status::Ok();
  }

  Result<std::vector<double>> PredictMs(std::span<const OpShape> shapes,
                                        const GpuSpec& gpu) const override {
    if (boosters_.empty())
      return FailedPrecondition("learned model is not trained");
    FRUGAL_ASSIGN_OR_RETURN(GpuFeatures g, GpuFeaturesOf(gpu));
    std::vector<double> out(shapes.size(), 0.0);
    const std::map<PerfOp, std::vector<size_t>> by_op = IndicesByOp(shapes);
    const size_t nf = FeatureNames().size();
    for (const auto& [op, idx] : by_op) {
      std::vector<float> x;
      x.reserve(idx.size() * nf);
      for (size_t i : idx) {
        std::vector<float> f = LearnedFeatures(shapes[i], g);
        x.insert(x.end(), f.begin(), f.end());
      }
      FRUGAL_ASSIGN_OR_RETURN(std::vector<float> pred,
                              boosters_.Predict("learned", op, x, nf));
      const double floor = floors_.For(op, gpu.name);
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
    return {{"target", "ln(latency_ms / roofline_core_ms) above the floor"},
            {"prediction", "max(floor_ms, roofline_core_ms * exp(tree))"},
            {"features", FeatureNames()},
            {"floors_ms", floors_.ToJson()},
            {"boosters", boosters_.ToJson(binary)}};
  }

  Status FromJson(const nlohmann::json& j) override {
    boosters_.Clear();
    if (!j.contains("floors_ms"))
      return InvalidArgument("learned: state has no floors_ms");
    FRUGAL_RETURN_IF_ERROR(floors_.FromJson("learned", j["floors_ms"]));
    if (!j.contains("boosters"))
      return InvalidArgument("learned: state has no boosters");
    if (j.contains("features") &&
        j["features"] != nlohmann::json(FeatureNames())) {
      return InvalidArgument("learned: feature names differ from this build's");
    }
    FRUGAL_RETURN_IF_ERROR(boosters_.FromJson("learned", j["boosters"]));
    for (PerfOp op : AllPerfOps()) {
      if (boosters_.Has(op) && !floors_.Has(op))
        return InvalidArgument(std::string("learned: no floor for ") + PerfOpName(op));
    }
    return Status::Ok();
  }

 private:
  LatencyFloors floors_;
  OpBoosters boosters_;
};

}  // namespace

std::unique_ptr<OpTimeModel> NewLearnedModel() {
  return std::make_unique<LearnedModel>();
}

}  // namespace frugal
