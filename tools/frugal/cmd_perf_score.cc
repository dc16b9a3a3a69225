// `frugal perf score`: prices every row of measured op timings with a saved
// model (no retraining) and prints the error per op type and GPU.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cli_util.h"
#include "frugal/base/file_io.h"
#include "frugal/hw/catalog.h"
#include "frugal/perf/dataset.h"
#include "frugal/perf/op_time_model.h"
#include "frugal/perf/score.h"
#include "verbs.h"

namespace frugal::cli {
namespace {

struct ScoreArgs {
  std::string data;
  std::string perf_model;
  std::string catalog;
  std::string out;  // per-row predictions CSV
  bool json = false;
};

// A CSV field in double quotes, inner quotes doubled (RFC 4180).
std::string Quoted(std::string_view s) {
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + '"';
}

// The input rows with the resolved GPU and the prediction, as CSV.
std::string PredictionsCsv(const Dataset& data, const ScoreResult& r) {
  std::string csv =
      "file,line,OPName,Device,gpu,shape,Latency,predicted_ms,ape_pct\n";
  for (size_t i = 0; i < data.samples.size(); ++i) {
    const OpSample& s = data.samples[i];
    const double p = r.predicted_ms[i];
    const bool priced = std::isfinite(p);
    csv += fmt::format(
        "{},{},{},{},{},{},{:.6g},{},{}\n",
        Quoted(data.files.empty() ? ""
                                  : data.files[static_cast<size_t>(s.file)]),
        s.line, PerfOpName(s.shape.op), Quoted(s.device), Quoted(r.gpu[i]),
        Quoted(s.shape.ToString()), s.latency_ms,
        priced ? fmt::format("{:.6g}", p) : "",
        priced ? fmt::format("{:.3f}", 100 * std::abs(p - s.latency_ms) /
                                           s.latency_ms)
               : "");
  }
  return csv;
}

// At most kMaxPoints priced rows, evenly strided through the input (the
// same rows every run), as {op, gpu, measured_ms, predicted_ms}: what
// `frugal report` plots as predicted against measured.
constexpr size_t kMaxPoints = 2000;
nlohmann::json SamplePoints(const Dataset& data, const ScoreResult& r) {
  std::vector<size_t> priced;
  for (size_t i = 0; i < data.samples.size(); ++i) {
    if (std::isfinite(r.predicted_ms[i])) priced.push_back(i);
  }
  nlohmann::json points = nlohmann::json::array();
  const size_t stride = std::max<size_t>(1, (priced.size() + kMaxPoints - 1) / kMaxPoints);
  for (size_t k = 0; k < priced.size(); k += stride) {
    const size_t i = priced[k];
    points.push_back({{"op", PerfOpName(data.samples[i].shape.op)},
                      {"gpu", r.gpu[i]},
                      {"measured_ms", data.samples[i].latency_ms},
                      {"predicted_ms", r.predicted_ms[i]}});
  }
  return points;
}

int RunScore(const ScoreArgs& a) {
  const auto t0 = std::chrono::steady_clock::now();
  Result<Catalog> catalog =
      LoadCatalog(a.catalog.empty() ? DefaultCatalogPath() : a.catalog);
  if (!catalog.ok()) return ReportError(catalog.status());
  Result<Dataset> data = LoadTimingData(a.data);
  if (!data.ok()) return ReportError(data.status());
  Result<std::unique_ptr<OpTimeModel>> model = OpenOpTimeModel(a.perf_model);
  if (!model.ok()) return ReportError(model.status());
  Result<ScoreResult> r = ScoreOpTimeModel(**model, *data, *catalog);
  if (!r.ok()) return ReportError(r.status());
  if (!a.out.empty()) {
    if (Status st = WriteStringToFile(a.out, PredictionsCsv(*data, *r));
        !st.ok()) {
      return ReportError(st);
    }
  }
  const double secs = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - t0)
                          .count();
  const std::string model_name =
      a.perf_model.empty() ? DefaultOpTimeModelPath() : a.perf_model;
  if (a.json) {
    nlohmann::json j = ScoreResultToJson(*r);
    j["model"] = (*model)->name();
    j["perf_model"] = model_name;
    j["data"] = a.data;
    j["rows_in"] = data->samples.size();
    j["seconds"] = secs;
    j["points"] = SamplePoints(*data, *r);
    PrintJson(j);
    return 0;
  }
  std::vector<std::vector<std::string>> table;
  for (const ScoreRow& row : r->rows) {
    table.push_back({row.op, row.gpu, std::to_string(row.n),
                     fmt::format("{:.1f}", row.median_ape_pct),
                     fmt::format("{:.1f}", row.p90_ape_pct),
                     fmt::format("{:+.1f}", row.median_bias_pct)});
  }
  PrintTable({"OP", "GPU", "ROWS", "MEDIAN_APE%", "P90_APE%", "MEDIAN_BIAS%"},
             table, 2);
  for (const UncoveredGroup& u : r->uncovered) {
    fmt::print("not priced: {} rows of {} on {}: {}\n", u.n, u.op, u.gpu,
               u.reason);
  }
  fmt::print("{} model {} scored {} rows in {:.2f} s\n", (*model)->name(),
             model_name, data->samples.size(), secs);
  return 0;
}

}  // namespace

void AddPerfScore(CLI::App& perf, int* exit_code) {
  auto args = std::make_shared<ScoreArgs>();
  CLI::App* score = perf.add_subcommand(
      "score",
      "Error of a saved model on measured timings, per op type and GPU "
      "(no retraining)");
  score->add_option("--data", args->data, "Timing CSV or folder of CSVs")
      ->required();
  score->add_option(
      "--perf-model", args->perf_model,
      "Model file, or a model name (default: the bundled model)");
  score->add_option("--catalog", args->catalog,
                    "GPU catalog (default: data/catalog)");
  score->add_option("--out", args->out,
                    "Write every row with its prediction to this CSV");
  score->add_flag("--json", args->json, "JSON output");
  score->callback([args, exit_code] { *exit_code = RunScore(*args); });
}

}  // namespace frugal::cli
