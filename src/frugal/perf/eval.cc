#include "frugal/perf/eval.h"

#include "frugal/base/stats.h"
#include "frugal/perf/calibration.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace frugal {
namespace {

struct CellErrors {
  std::vector<double> ape;
  std::vector<double> signed_pct;  // 100 (predicted - measured) / measured
  std::string error;
  int64_t failed = 0;
};

EvalRow Summarise(std::string_view model, const char* split, std::string op,
                  std::string gpu, CellErrors e) {
  EvalRow r;
  r.model = std::string(model);
  r.split = split;
  r.op = std::move(op);
  r.gpu = std::move(gpu);
  r.n = static_cast<int64_t>(e.ape.size()) + e.failed;
  if (!e.error.empty() || e.ape.empty()) {
    r.error = e.error.empty() ? "no test rows" : e.error;
    return r;
  }
  double sum = 0;
  for (double x : e.ape) sum += x;
  r.mean_ape_pct = sum / static_cast<double>(e.ape.size());
  r.median_ape_pct = Median(e.ape);
  r.median_bias_pct = Median(e.signed_pct);
  return r;
}

// Groups of row indices by (op, GPU).
using GroupKey = std::pair<int, std::string>;

// Scores a trained model on test; appends the errors to `errors` by (op,
// GPU).
Status ScoreModel(const OpTimeModel& m,
                  const std::vector<const TrainRow*>& test,
                  std::map<GroupKey, CellErrors>* errors) {
  std::map<GroupKey, std::vector<const TrainRow*>> groups;
  for (const auto* r : test)
    groups[{static_cast<int>(r->shape.op), r->gpu->name}].push_back(r);
  for (const auto& [key, members] : groups) {
    std::vector<OpShape> shapes;
    for (const auto* r : members) shapes.push_back(r->shape);
    CellErrors& e = (*errors)[key];
    Result<std::vector<double>> pred = m.PredictMs(shapes, *members[0]->gpu);
    if (!pred.ok()) {
      if (pred.status().code() == StatusCode::kInternal) return pred.status();
      e.error = pred.status().message();
      e.failed += static_cast<int64_t>(members.size());
      continue;
    }
    for (size_t i = 0; i < members.size(); ++i) {
      double y = members[i]->latency_ms;
      double pct = 100.0 * ((*pred)[i] - y) / y;
      e.signed_pct.push_back(pct);
      e.ape.push_back(std::abs(pct));
    }
  }
  return Status::Ok();
}

// Trains `model` on train (the op types of test only) and scores it on
// test into `errors`. With `calibration` rows, also scores the model
// calibrated on them into `calibrated`.
Status Score(std::string_view model, const std::vector<TrainRow>& train,
             const std::vector<const TrainRow*>& test,
             const TrainOptions& topts, std::map<GroupKey, CellErrors>* errors,
             const std::vector<TrainRow>& calibration = {},
             std::map<GroupKey, CellErrors>* calibrated = nullptr) {
  std::set<int> ops;
  for (const auto* r : test) ops.insert(static_cast<int>(r->shape.op));
  std::vector<TrainRow> fit_rows;
  for (const auto& r : train) {
    if (ops.count(static_cast<int>(r.shape.op))) fit_rows.push_back(r);
  }
  FRUGAL_ASSIGN_OR_RETURN(std::unique_ptr<OpTimeModel> m,
                          TrainOpTimeModel(model, fit_rows, topts));
  FRUGAL_RETURN_IF_ERROR(ScoreModel(*m, test, errors));
  if (calibration.empty() || calibrated == nullptr) return Status::Ok();
  Result<Calibration> c = FitCalibration(*m, calibration);
  if (!c.ok()) {
    if (c.status().code() == StatusCode::kInternal) return c.status();
    for (const auto* r : test) {
      CellErrors& e = (*calibrated)[{static_cast<int>(r->shape.op), r->gpu->name}];
      e.error = c.status().message();
      ++e.failed;
    }
    return Status::Ok();
  }
  return ScoreModel(*Calibrate(std::move(m), std::move(*c)), test, calibrated);
}

// Moves `per_group` seeded-random rows of every (op, GPU) group of `test`
// into `calibration` (groups keep at least one test row).
void SplitCalibrationRows(int per_group, uint64_t seed,
                          std::vector<const TrainRow*>* test,
                          std::vector<TrainRow>* calibration) {
  std::map<GroupKey, std::vector<const TrainRow*>> groups;
  for (const auto* r : *test)
    groups[{static_cast<int>(r->shape.op), r->gpu->name}].push_back(r);
  test->clear();
  uint64_t salt = 0;
  for (const auto& [key, members] : groups) {
    std::vector<size_t> order = ShuffledIndices(members.size(), seed * 31 + ++salt);
    size_t take = std::min<size_t>(per_group, members.size() - 1);
    std::vector<bool> is_cal(members.size(), false);
    for (size_t j = 0; j < take; ++j) is_cal[order[j]] = true;
    for (size_t i = 0; i < members.size(); ++i) {
      if (is_cal[i]) {
        calibration->push_back(*members[i]);
      } else {
        test->push_back(members[i]);
      }
    }
  }
}

void Emit(std::string_view model, const char* split,
          std::map<GroupKey, CellErrors> errors, std::vector<EvalRow>* out) {
  std::map<int, CellErrors> by_op;
  CellErrors overall;
  for (auto& [key, e] : errors) {
    CellErrors& agg = by_op[key.first];
    agg.ape.insert(agg.ape.end(), e.ape.begin(), e.ape.end());
    agg.signed_pct.insert(agg.signed_pct.end(), e.signed_pct.begin(),
                          e.signed_pct.end());
    agg.failed += e.failed;
    if (!e.error.empty() && agg.error.empty()) agg.error = e.error;
    overall.ape.insert(overall.ape.end(), e.ape.begin(), e.ape.end());
    overall.signed_pct.insert(overall.signed_pct.end(), e.signed_pct.begin(),
                              e.signed_pct.end());
  }
  for (auto& [op, agg] : by_op) {
    const char* name = PerfOpName(static_cast<PerfOp>(op));
    for (auto& [key, e] : errors) {
      if (key.first == op)
        out->push_back(Summarise(model, split, name, key.second, e));
    }
    // The pooled figure covers the GPUs the model could price.
    if (!agg.ape.empty()) {
      agg.error.clear();
      agg.failed = 0;
    }
    out->push_back(Summarise(model, split, name, "all", std::move(agg)));
  }
  if (!overall.ape.empty())
    out->push_back(Summarise(model, split, "all", "all", overall));
}

}  // namespace

Result<std::vector<EvalRow>> EvaluateOpTimeModel(
    std::string_view model, const std::vector<TrainRow>& rows,
    const EvalOptions& options) {
  FRUGAL_RETURN_IF_ERROR(NewOpTimeModel(model).status());
  if (rows.empty()) return InvalidArgument("perf eval: no rows");
  if (!(options.test_fraction > 0 && options.test_fraction < 1)) {
    return InvalidArgument("perf eval: test fraction must be in (0, 1)");
  }
  std::vector<EvalRow> out;
  std::map<GroupKey, std::vector<size_t>> groups;
  for (size_t i = 0; i < rows.size(); ++i) {
    groups[{static_cast<int>(rows[i].shape.op), rows[i].gpu->name}].push_back(
        i);
  }
  if (options.random_split) {
    std::vector<bool> is_test(rows.size(), false);
    uint64_t salt = 0;
    for (const auto& [key, idx] : groups) {
      ++salt;
      std::vector<size_t> order =
          ShuffledIndices(idx.size(), options.seed * 7919 + salt);
      auto ntest =
          static_cast<size_t>(std::llround(options.test_fraction * idx.size()));
      for (size_t j = 0; j < ntest; ++j) is_test[idx[order[j]]] = true;
    }
    std::vector<TrainRow> train;
    std::vector<const TrainRow*> test;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (is_test[i]) {
        test.push_back(&rows[i]);
      } else {
        train.push_back(rows[i]);
      }
    }
    std::map<GroupKey, CellErrors> errors;
    FRUGAL_RETURN_IF_ERROR(Score(model, train, test, options.train, &errors));
    Emit(model, "random", std::move(errors), &out);
  }
  if (options.leave_one_gpu_out) {
    std::set<std::string> gpus;
    for (const auto& r : rows) gpus.insert(r.gpu->name);
    std::map<GroupKey, CellErrors> errors;
    std::map<GroupKey, CellErrors> calibrated;
    for (const auto& g : gpus) {
      std::vector<TrainRow> train;
      std::vector<const TrainRow*> test;
      for (const auto& r : rows) {
        if (r.gpu->name == g) {
          test.push_back(&r);
        } else {
          train.push_back(r);
        }
      }
      std::vector<TrainRow> calibration;
      if (options.calibration_rows > 0) {
        SplitCalibrationRows(options.calibration_rows, options.seed, &test,
                             &calibration);
      }
      Status st = Score(model, train, test, options.train, &errors,
                        calibration, &calibrated);
      if (!st.ok() && st.code() == StatusCode::kInternal) return st;
      if (!st.ok()) {
        for (const auto* r : test) {
          CellErrors& e = errors[{static_cast<int>(r->shape.op), g}];
          e.error = st.message();
          ++e.failed;
        }
      }
    }
    Emit(model, "logo", std::move(errors), &out);
    if (options.calibration_rows > 0)
      Emit(model, "logo-cal", std::move(calibrated), &out);
  }
  return out;
}

nlohmann::json EvalRowToJson(const EvalRow& r) {
  nlohmann::json j = {{"model", r.model},
                      {"split", r.split},
                      {"op", r.op},
                      {"gpu", r.gpu},
                      {"n", r.n}};
  if (r.error.empty()) {
    j["median_ape_pct"] = r.median_ape_pct;
    j["mean_ape_pct"] = r.mean_ape_pct;
    j["median_bias_pct"] = r.median_bias_pct;
  } else {
    j["error"] = r.error;
  }
  return j;
}

}  // namespace frugal
