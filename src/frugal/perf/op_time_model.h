// Per-op time models: how long one operator takes on one GPU. Three models
// share one interface and one registry table (kOpTimeModels):
//   roofline  analytic: max(FLOPs / peak, bytes / bandwidth) + launch
//             overhead, from catalog figures alone; needs no training.
//   ceer      the Ceer method: per (op type, GPU), heavy ops (conv, linear,
//             bmm) by least-squares regression on FLOPs and tensor sizes,
//             light ops by the measured median. Only GPUs it was trained on.
//   learned   gradient-boosted trees (XGBoost) on op and GPU-spec features,
//             one booster per op type, predicting log(latency / roofline)
//             above a per-GPU latency floor; prices GPUs it has never seen
//             from their catalog figures.
// A model is trained (Train), saved to a file (SaveOpTimeModel) and loaded
// back (LoadOpTimeModel); a file records which model it holds. After
// training or loading, a model is immutable and its Predict methods are
// safe to call from many threads.
#ifndef FRUGAL_PERF_OP_TIME_MODEL_H_
#define FRUGAL_PERF_OP_TIME_MODEL_H_

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/base/registry.h"
#include "frugal/base/status.h"
#include "frugal/graph/op_graph.h"
#include "frugal/hw/catalog.h"
#include "frugal/perf/dataset.h"
#include "frugal/perf/features.h"

namespace frugal {

struct TrainOptions {
  uint64_t seed = 1;  // subsampling and tree randomness
  int threads = 2;    // XGBoost threads; same seed and threads, same model
  // Most rows used per (op type, GPU); 0 = all. Default 3000 keeps training the
  // learned model on the full data set under a minute on two cores.
  int64_t max_rows_per_group = 3000;
  int rounds = 120;   // learned: boosting rounds per op type
  int max_depth = 6;  // learned
  double eta = 0.1;   // learned
};

// A training sample resolved against the catalog.
struct TrainRow {
  OpShape shape;
  const GpuSpec* gpu = nullptr;
  double latency_ms = 0;
  // The measurement campaign (CSV file) the row came from: models that
  // estimate a GPU's sustained throughput do so per campaign.
  int32_t source = 0;
};

class OpTimeModel {
 public:
  virtual ~OpTimeModel() = default;

  // The registry name: "roofline", "ceer", "learned".
  virtual const char* name() const = 0;

  // Fits the model to `rows` (every GPU resolved). InvalidArgument when the
  // rows cannot train it (none for an op type the model needs).
  virtual Status Train(const std::vector<TrainRow>& rows,
                       const TrainOptions& options) = 0;

  // Predicted time of one launch of `shape` on `gpu`, ms, for each shape.
  // REQUIRES: shapes valid. FailedPrecondition when untrained; NotFound
  // when the model cannot price this GPU (ceer: no measurements).
  virtual Result<std::vector<double>> PredictMs(std::span<const OpShape> shapes,
                                                const GpuSpec& gpu) const = 0;

  // The model's state as JSON; `binary` allows binary blobs (for UBJSON).
  virtual nlohmann::json ToJson(bool binary) const = 0;
  virtual Status FromJson(const nlohmann::json& j) = 0;
};

using OpTimeModelFactory = std::unique_ptr<OpTimeModel> (*)();

// Factories, one .cc each (roofline.cc, ceer.cc, learned.cc).
std::unique_ptr<OpTimeModel> NewRooflineModel();
std::unique_ptr<OpTimeModel> NewCeerModel();
std::unique_ptr<OpTimeModel> NewLearnedModel();
std::unique_ptr<OpTimeModel> NewEfficiencyModel();

// The registry: one row per model. `frugal perf list` prints it.
std::span<const RegistryRow<OpTimeModelFactory>> OpTimeModels();

// A fresh, untrained model; NotFound listing the valid names.
Result<std::unique_ptr<OpTimeModel>> NewOpTimeModel(std::string_view name);

// Resolves every sample's Device through the catalog. NotFound naming the
// device and some catalog GPUs when one is unknown.
Result<std::vector<TrainRow>> ResolveRows(const Dataset& data,
                                          const Catalog& catalog);

// Keeps at most options.max_rows_per_group rows per (op, GPU), chosen by a
// seeded shuffle; order of the kept rows is the input order.
std::vector<TrainRow> Subsample(const std::vector<TrainRow>& rows,
                                const TrainOptions& options);

// Creates the model by name and trains it.
Result<std::unique_ptr<OpTimeModel>> TrainOpTimeModel(
    std::string_view name, const std::vector<TrainRow>& rows,
    const TrainOptions& options);

// Writes the model: UBJSON when path ends in .ubj, else JSON text. The file
// records format "frugal-perf-model", the model name and kFeatureVersion,
// and the calibration of a calibrated model (calibration.h), which
// LoadOpTimeModel applies again.
Status SaveOpTimeModel(const OpTimeModel& model, const std::string& path);
// Reads a file SaveOpTimeModel wrote. InvalidArgument naming the file when
// it is not one or its feature version differs from this build's.
Result<std::unique_ptr<OpTimeModel>> LoadOpTimeModel(const std::string& path);

// The model every predicting command uses without --perf-model:
// $FRUGAL_PERF_MODEL if set, else data/perf/efficiency.ubj in the data dir
// ($FRUGAL_DATA_DIR, else the source tree's data/).
std::string DefaultOpTimeModelPath();

// Loads `spec`: a model file, or the name of a registry model. "roofline"
// needs no file; "ceer" and "learned" by name load the bundled files
// (data/perf/<name>.ubj); empty means DefaultOpTimeModelPath().
Result<std::unique_ptr<OpTimeModel>> OpenOpTimeModel(const std::string& spec);

// The time of a graph op on a GPU.
struct OpTimePrediction {
  double time_ms = 0;
  // True when no measured op type covers the op and the time is the
  // roofline of the op's own FLOPs and bytes.
  bool fallback = false;
  std::string basis;  // how it was priced (QueryForOp's basis)
};

// The roofline time of an op no measured op type covers: its own FLOPs and
// bytes read + written on `gpu`, plus launch overhead (zero for an op with
// neither). A recurrent op's sequential steps (graph's SequentialSteps) add
// kRnnKernelsPerStep launches each. `basis` is QueryForOp's explanation; the
// result is a fallback.
inline constexpr int kRnnKernelsPerStep = 2;
OpTimePrediction RooflineFallback(const Op& op, const GpuFeatures& gpu,
                                  const std::string& basis);

// model.PredictMs, except that when the model was not trained on a
// scalar-operand form (addu, mulu, divu, powu: models trained before those
// were measured) those shapes are priced as the binary op (two reads, an
// over-estimate) and *scalar_as_binary says so.
Result<std::vector<double>> PredictShapesMs(const OpTimeModel& model,
                                            std::span<const OpShape> shapes,
                                            const GpuSpec& gpu,
                                            bool* scalar_as_binary = nullptr);
inline constexpr const char* kScalarAsBinaryNote =
    " (model has no scalar-operand data: priced as the binary op)";

// Prices `op` with `model` through QueryForOp, or falls back to the
// roofline of op.flops and op.bytes_read + op.bytes_written (zero for an op
// with neither). Errors from the model (a GPU ceer has not measured, a GPU
// without fp32 figures) are returned, not hidden by the fallback.
Result<OpTimePrediction> PredictOp(const OpTimeModel& model, const Op& op,
                                   const GpuSpec& gpu);

}  // namespace frugal

#endif  // FRUGAL_PERF_OP_TIME_MODEL_H_
