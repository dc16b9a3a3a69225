// Scoring a saved op-time model on measured timings without retraining:
// every row of a timing data set is priced and its absolute percentage
// error (|predicted - measured| / measured) summarised per op type and GPU.
// Groups the model cannot price (an op type it was not trained on, a GPU it
// has not measured) are counted with the model's reason, never dropped.
// Stateless; the library never prints — `frugal perf score` formats it.
#ifndef FRUGAL_PERF_SCORE_H_
#define FRUGAL_PERF_SCORE_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/hw/catalog.h"
#include "frugal/perf/dataset.h"
#include "frugal/perf/op_time_model.h"

namespace frugal {

// One line of the summary. gpu "all" pools the op's GPUs; op "all" pools
// every op the model priced.
struct ScoreRow {
  std::string op;
  std::string gpu;
  int64_t n = 0;
  double median_ape_pct = 0;
  double p90_ape_pct = 0;
  double median_bias_pct = 0;  // median signed error: > 0 = overestimates
};

// Rows of one (op, GPU) the model could not price, and why.
struct UncoveredGroup {
  std::string op;
  std::string gpu;
  int64_t n = 0;
  std::string reason;
};

struct ScoreResult {
  // (op in enum order, GPU in name order; then the op's "all"), then
  // ("all", "all").
  std::vector<ScoreRow> rows;
  std::vector<UncoveredGroup> uncovered;
  // Per input sample, in data order: the resolved catalog GPU name and the
  // predicted ms (NaN when uncovered).
  std::vector<std::string> gpu;
  std::vector<double> predicted_ms;
};

// Prices every sample of `data` with `model`. NotFound "FILE:LINE: ..."
// naming the device when a row's GPU is not in the catalog.
Result<ScoreResult> ScoreOpTimeModel(const OpTimeModel& model,
                                     const Dataset& data,
                                     const Catalog& catalog);

// {"rows": [...], "uncovered": [...], "priced_rows": N, "uncovered_rows": N}.
nlohmann::json ScoreResultToJson(const ScoreResult& result);

}  // namespace frugal

#endif  // FRUGAL_PERF_SCORE_H_
