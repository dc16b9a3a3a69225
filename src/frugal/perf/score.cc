#include "frugal/perf/score.h"

#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "frugal/base/stats.h"

namespace frugal {
namespace {

struct Errors {
  std::vector<double> ape, signed_err;
};

ScoreRow Summarise(std::string op, std::string gpu, const Errors& e) {
  ScoreRow r;
  r.op = std::move(op);
  r.gpu = std::move(gpu);
  r.n = static_cast<int64_t>(e.ape.size());
  r.median_ape_pct = 100 * Median(e.ape);
  r.p90_ape_pct = 100 * Quantile(e.ape, 0.9);
  r.median_bias_pct = 100 * Median(e.signed_err);
  return r;
}

void Append(Errors* to, const Errors& from) {
  to->ape.insert(to->ape.end(), from.ape.begin(), from.ape.end());
  to->signed_err.insert(to->signed_err.end(), from.signed_err.begin(),
                        from.signed_err.end());
}

}  // namespace

Result<ScoreResult> ScoreOpTimeModel(const OpTimeModel& model,
                                     const Dataset& data,
                                     const Catalog& catalog) {
  FRUGAL_ASSIGN_OR_RETURN(std::vector<TrainRow> rows,
                          ResolveRows(data, catalog));
  // Group by (op, GPU) so each group is one batched prediction.
  std::map<std::pair<int, std::string>, std::vector<size_t>> groups;
  for (size_t i = 0; i < rows.size(); ++i) {
    groups[{static_cast<int>(rows[i].shape.op), rows[i].gpu->name}].push_back(i);
  }
  ScoreResult out;
  out.gpu.resize(rows.size());
  out.predicted_ms.assign(rows.size(),
                          std::numeric_limits<double>::quiet_NaN());
  std::map<int, std::map<std::string, Errors>> errors;  // op -> GPU
  std::vector<OpShape> shapes;
  for (const auto& [key, idx] : groups) {
    const GpuSpec& gpu = *rows[idx.front()].gpu;
    shapes.clear();
    for (size_t i : idx) {
      shapes.push_back(rows[i].shape);
      out.gpu[i] = gpu.name;
    }
    const PerfOp op = static_cast<PerfOp>(key.first);
    Result<std::vector<double>> pred = model.PredictMs(shapes, gpu);
    if (!pred.ok()) {
      out.uncovered.push_back({PerfOpName(op), gpu.name,
                               static_cast<int64_t>(idx.size()),
                               pred.status().message()});
      continue;
    }
    Errors& e = errors[key.first][gpu.name];
    for (size_t j = 0; j < idx.size(); ++j) {
      const double measured = rows[idx[j]].latency_ms;
      const double p = (*pred)[j];
      out.predicted_ms[idx[j]] = p;
      e.ape.push_back(std::abs(p - measured) / measured);
      e.signed_err.push_back((p - measured) / measured);
    }
  }
  Errors all;
  for (const auto& [op, by_gpu] : errors) {
    Errors pooled;
    for (const auto& [gpu, e] : by_gpu) {
      out.rows.push_back(Summarise(PerfOpName(static_cast<PerfOp>(op)), gpu, e));
      Append(&pooled, e);
    }
    if (by_gpu.size() > 1) {
      out.rows.push_back(
          Summarise(PerfOpName(static_cast<PerfOp>(op)), "all", pooled));
    }
    Append(&all, pooled);
  }
  if (!all.ape.empty()) out.rows.push_back(Summarise("all", "all", all));
  return out;
}

nlohmann::json ScoreResultToJson(const ScoreResult& result) {
  nlohmann::json rows = nlohmann::json::array();
  int64_t priced = 0;
  for (const ScoreRow& r : result.rows) {
    rows.push_back({{"op", r.op},
                    {"gpu", r.gpu},
                    {"n", r.n},
                    {"median_ape_pct", r.median_ape_pct},
                    {"p90_ape_pct", r.p90_ape_pct},
                    {"median_bias_pct", r.median_bias_pct}});
    if (r.op == "all") priced = r.n;
  }
  nlohmann::json uncovered = nlohmann::json::array();
  int64_t uncovered_rows = 0;
  for (const UncoveredGroup& u : result.uncovered) {
    uncovered.push_back(
        {{"op", u.op}, {"gpu", u.gpu}, {"n", u.n}, {"reason", u.reason}});
    uncovered_rows += u.n;
  }
  return {{"rows", rows},
          {"uncovered", uncovered},
          {"priced_rows", priced},
          {"uncovered_rows", uncovered_rows}};
}

}  // namespace frugal
