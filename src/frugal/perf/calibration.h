// Few-shot calibration of an op-time model to GPUs it mispredicts: from a
// handful of measured launches per op type on a GPU (e.g. a short
// `frugal profile` sweep on a new card), one scale factor per (GPU, op
// type) — the geometric median of measured / predicted — applied to every
// later prediction of that op type on that GPU. A GPU's ops without their
// own measurements take the median scale of the measured ops of the same
// class (heavy: conv, linear, bmm; light: the rest) when it has any. This
// corrects the GPU-level efficiency level that catalog specs cannot show
// (docs/perf.md, "Calibrating to a new GPU"); the model's shape dependence
// is kept. A calibrated model is immutable and thread-safe like any other.
#ifndef FRUGAL_PERF_CALIBRATION_H_
#define FRUGAL_PERF_CALIBRATION_H_

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/perf/op_time_model.h"

namespace frugal {

// Fewest measured launches of an op type on a GPU to fit its scale.
inline constexpr int kMinCalibrationRows = 3;

struct CalibrationScale {
  double scale = 1;  // measured / predicted, geometric median
  int64_t rows = 0;  // measurements it was fitted on
  double median_ape_before_pct = 0;  // on those rows, uncalibrated
  double median_ape_after_pct = 0;   // on those rows, calibrated
};

// Scales by GPU name, then op type.
using Calibration = std::map<std::string, std::map<PerfOp, CalibrationScale>>;

// Fits one scale per (GPU, op type) with at least kMinCalibrationRows rows.
// InvalidArgument when no group has that many; model errors (an unpriceable
// GPU) are returned.
Result<Calibration> FitCalibration(const OpTimeModel& model,
                                   const std::vector<TrainRow>& rows);

// `base` with `calibration` applied; name() and ToJson() are the base's.
std::unique_ptr<OpTimeModel> Calibrate(std::unique_ptr<OpTimeModel> base,
                                       Calibration calibration);
// The calibration of a model Calibrate made, else nullptr.
const Calibration* CalibrationOf(const OpTimeModel& model);

// {"<gpu>": {"<op>": {"scale", "rows", "median_ape_before_pct",
// "median_ape_after_pct"}}} and back (InvalidArgument on a malformed
// object, an unknown op or a non-positive scale).
nlohmann::json CalibrationToJson(const Calibration& c);
Result<Calibration> CalibrationFromJson(const nlohmann::json& j);

}  // namespace frugal

#endif  // FRUGAL_PERF_CALIBRATION_H_
