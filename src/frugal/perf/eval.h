// Accuracy of op-time models on measured data: absolute percentage error
// (|predicted - measured| / measured, in %) per model, split, op type and
// GPU, on (a) a seeded random hold-out of each (op, GPU) group and (b)
// leave-one-GPU-out (train on the other GPUs, test on all rows of one).
// Stateless; the library never prints — the CLI formats the rows.
#ifndef FRUGAL_PERF_EVAL_H_
#define FRUGAL_PERF_EVAL_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/perf/op_time_model.h"

namespace frugal {

struct EvalOptions {
  uint64_t seed = 1;           // the random split
  double test_fraction = 0.2;  // of each (op, GPU) group
  bool random_split = true;
  bool leave_one_gpu_out = true;
  // > 0: leave-one-GPU-out also scores the model calibrated (calibration.h)
  // on this many seeded-random measured rows per op type of the held-out
  // GPU — split "logo-cal" — and those rows leave both LOGO test sets.
  int calibration_rows = 0;
  TrainOptions train;  // for every fit
};

// One line of the table. gpu "all" pools every GPU of the op; op "all"
// pools every op.
struct EvalRow {
  std::string model;
  std::string split;  // "random", "logo" or "logo-cal"
  std::string op;
  std::string gpu;
  int64_t n = 0;              // test rows
  double median_ape_pct = 0;  // valid when error is empty
  double mean_ape_pct = 0;
  double median_bias_pct = 0;  // median signed error: > 0 = overestimates
  std::string error;  // why the model could not predict these rows
};

// Evaluates the registry model `model` on `rows` (ResolveRows output).
// Rows come out in a fixed order: split, op (enum order, then "all"), GPU
// (name order, then "all").
Result<std::vector<EvalRow>> EvaluateOpTimeModel(
    std::string_view model, const std::vector<TrainRow>& rows,
    const EvalOptions& options);

// {"rows": [{model, split, op, gpu, n, median_ape_pct, mean_ape_pct,
// median_bias_pct | error]}]}.
nlohmann::json EvalRowToJson(const EvalRow& row);

}  // namespace frugal

#endif  // FRUGAL_PERF_EVAL_H_
