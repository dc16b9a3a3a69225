// The roofline op-time model: no parameters, catalog figures only.
#include "frugal/perf/op_time_model.h"

namespace frugal {
namespace {

class RooflineModel final : public OpTimeModel {
 public:
  const char* name() const override { return "roofline"; }

  Status Train(const std::vector<TrainRow>&, const TrainOptions&) override {
    return Status::Ok();
  }

  Result<std::vector<double>> PredictMs(std::span<const OpShape> shapes,
                                        const GpuSpec& gpu) const override {
    FRUGAL_ASSIGN_OR_RETURN(GpuFeatures g, GpuFeaturesOf(gpu));
    std::vector<double> out;
    out.reserve(shapes.size());
    for (const auto& s : shapes) out.push_back(RooflineMs(s, g));
    return out;
  }

  nlohmann::json ToJson(bool) const override {
    return {{"launch_overhead_ms", kLaunchOverheadMs}};
  }
  Status FromJson(const nlohmann::json&) override { return Status::Ok(); }
};

}  // namespace

std::unique_ptr<OpTimeModel> NewRooflineModel() {
  return std::make_unique<RooflineModel>();
}

}  // namespace frugal
