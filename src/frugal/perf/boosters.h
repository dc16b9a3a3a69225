// Internal to perf: the parts the tree-based op-time models (learned.cc,
// efficiency.cc) share — one XGBoost booster per op type, and the measured
// latency floor per (op type, GPU). Not thread-safe to train; Predict is
// serialised internally, so a trained set may be used from many threads.
#ifndef FRUGAL_PERF_BOOSTERS_H_
#define FRUGAL_PERF_BOOSTERS_H_

#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/perf/dataset.h"
#include "frugal/perf/op_time_model.h"

namespace frugal {

// Checks an XGBoost JSON model before it is loaded: XGBoost trusts a
// model's tree arrays (a bad child index loops or reads out of bounds).
// InvalidArgument naming `what` on any inconsistency.
Status CheckXgbTreeModel(const nlohmann::json& model, const std::string& what);

// One regression booster per op type over dense float features.
class OpBoosters {
 public:
  OpBoosters();
  ~OpBoosters();
  OpBoosters(const OpBoosters&) = delete;
  OpBoosters& operator=(const OpBoosters&) = delete;

  void Clear();
  bool empty() const;
  bool Has(PerfOp op) const;
  // Fits the booster of `op` to rows of `cols` features `x` (row major; NaN =
  // missing) and targets `y` (squared error, `hist`, options' rounds, depth,
  // eta, seed and threads; subsample and column sample 0.8). Columns that
  // are NaN in every row are left out of the booster (and Predict leaves
  // them out the same way; saved as the XGBoost attribute
  // `frugal_columns`), so a feature that `op` never has does not change its
  // trees.
  Status Fit(PerfOp op, const std::vector<float>& x, size_t cols,
             const std::vector<float>& y, const TrainOptions& options);
  // Predictions for rows of `cols` features. NotFound "<model> model was
  // not trained on <op>" when `op` has no booster.
  Result<std::vector<float>> Predict(const char* model, PerfOp op,
                                     const std::vector<float>& x,
                                     size_t cols) const;
  // {op: XGBoost model (UBJ bytes when binary, else XGBoost JSON)}.
  nlohmann::json ToJson(bool binary) const;
  // `model` names the owner in errors.
  Status FromJson(const char* model, const nlohmann::json& j);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The latency below which an op type does not go on a GPU: the 2nd
// percentile of its measurements (launch and timing overhead). A scalar-
// operand form (addu, mulu, divu, powu) takes at most its binary op's floor:
// its measurements start at 12 M elements and never reach launch-bound sizes
// (the 2nd percentile of mulu on A100 is 115 us, a bandwidth-bound time,
// where mul's is 26 us), and both run PyTorch's same elementwise kernel.
// Likewise a conv takes at most the linear layer's floor: the smallest conv
// measured is 5 MFLOP (63 us on A100 against 26 us for a launch-bound GEMM),
// so its 2nd percentile (147 us on A100, a median of 257 us for GPUs without
// conv data) is work, not launch overhead; both are implicit or explicit
// GEMM kernels with the same launch path.
// GPUs the floors were not measured on get the median over the measured ones.
class LatencyFloors {
 public:
  void Fit(const std::vector<TrainRow>& rows);
  double For(PerfOp op, const std::string& gpu) const;
  bool Has(PerfOp op) const { return default_.count(op) > 0; }
  nlohmann::json ToJson() const;
  Status FromJson(const char* model, const nlohmann::json& j);

 private:
  double Own(PerfOp op, const std::string& gpu) const;
  std::map<PerfOp, std::map<std::string, double>> by_gpu_;  // ms
  std::map<PerfOp, double> default_;                        // ms
};

// The training rows of each op type that carry efficiency: those slower than
// 1.25x their GPU's floor (faster ones are launch-bound), or all of the op's
// rows when fewer than 50 are. Op types in enum order; rows in input order.
std::map<PerfOp, std::vector<const TrainRow*>> RowsAboveFloor(
    const std::vector<TrainRow>& rows, const LatencyFloors& floors);

// Indices of `shapes` grouped by op type, for one batched prediction each.
std::map<PerfOp, std::vector<size_t>> IndicesByOp(std::span<const OpShape> shapes);

}  // namespace frugal

#endif  // FRUGAL_PERF_BOOSTERS_H_
