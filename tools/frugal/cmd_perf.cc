// `frugal perf list|train|eval|query`: per-op time models (Ceer's core).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_util.h"
#include "frugal/base/file_io.h"
#include "frugal/hw/catalog.h"
#include "frugal/perf/calibration.h"
#include "frugal/perf/dataset.h"
#include "frugal/perf/eval.h"
#include "frugal/perf/op_time_model.h"
#include "gpu_note.h"
#include "verbs.h"

namespace frugal::cli {
namespace {

struct PerfArgs {
  std::string model = "learned";
  std::string data;  // empty: DefaultTimingDataPath()
  std::string out;
  std::string catalog;  // empty: DefaultCatalogPath()
  std::string perf_model;
  std::string split = "both";
  std::string gpu;
  std::string op;
  std::vector<std::string> dims;
  uint64_t seed = 1;
  int threads = 2;
  int64_t max_rows = 3000;
  int calibrate = 0;  // eval: calibration rows per (op, held-out GPU)
  TrainOptions train;
  bool by_gpu = false;
  bool json = false;
};

Result<Catalog> OpenCatalog(const PerfArgs& a) {
  return LoadCatalog(a.catalog.empty() ? DefaultCatalogPath() : a.catalog);
}

Result<std::vector<TrainRow>> LoadRows(const PerfArgs& a,
                                       const Catalog& catalog) {
  std::string path = a.data.empty() ? DefaultTimingDataPath() : a.data;
  FRUGAL_ASSIGN_OR_RETURN(Dataset data, LoadTimingData(path));
  Result<std::vector<TrainRow>> rows = ResolveRows(data, catalog);
  if (!rows.ok()) return rows.status().WithPrefix(path);
  return rows;
}

TrainOptions TrainOpts(const PerfArgs& a) {
  TrainOptions t = a.train;
  t.seed = a.seed;
  t.threads = a.threads;
  t.max_rows_per_group = a.max_rows;
  return t;
}

Status CheckCommon(const PerfArgs& a) {
  if (a.threads < 1) return InvalidArgument("--threads must be >= 1");
  if (a.max_rows < 0)
    return InvalidArgument("--max-rows-per-group must be >= 0");
  return Status::Ok();
}

int RunList(const PerfArgs& a) {
  if (a.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& row : OpTimeModels())
      j.push_back({{"name", row.name}, {"help", row.help}});
    PrintJson({{"models", j}});
    return 0;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : OpTimeModels()) rows.push_back({row.name, row.help});
  PrintTable({"MODEL", "DESCRIPTION"}, rows, 2);
  return 0;
}

int RunTrain(const PerfArgs& a) {
  if (Status st = CheckCommon(a); !st.ok()) return ReportError(st);
  if (!FindRow(OpTimeModels(), a.model))
    return ReportError(NewOpTimeModel(a.model).status());
  Result<Catalog> catalog = OpenCatalog(a);
  if (!catalog.ok()) return ReportError(catalog.status());
  Result<std::vector<TrainRow>> rows = LoadRows(a, *catalog);
  if (!rows.ok()) return ReportError(rows.status());
  auto start = std::chrono::steady_clock::now();
  Result<std::unique_ptr<OpTimeModel>> model =
      TrainOpTimeModel(a.model, *rows, TrainOpts(a));
  if (!model.ok()) return ReportError(model.status());
  double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (Status st = SaveOpTimeModel(**model, a.out); !st.ok())
    return ReportError(st);
  if (a.json) {
    PrintJson({{"model", a.model},
               {"out", a.out},
               {"rows", rows->size()},
               {"train_seconds", secs}});
  } else {
    fmt::print("trained {} on {} rows in {:.1f} s -> {}\n", a.model,
               rows->size(), secs, a.out);
  }
  return 0;
}

std::string Pct(double v) { return fmt::format("{:.1f}", v); }

int RunCalibrate(const PerfArgs& a) {
  if (a.data.empty()) {
    return ReportError(InvalidArgument(
        "perf calibrate needs --data: timing CSVs measured on the GPU(s) to "
        "calibrate (e.g. from `frugal profile`)"));
  }
  Result<Catalog> catalog = OpenCatalog(a);
  if (!catalog.ok()) return ReportError(catalog.status());
  Result<std::vector<TrainRow>> rows = LoadRows(a, *catalog);
  if (!rows.ok()) return ReportError(rows.status());
  Result<std::unique_ptr<OpTimeModel>> model = OpenOpTimeModel(a.perf_model);
  if (!model.ok()) return ReportError(model.status());
  if (CalibrationOf(**model) != nullptr) {
    return ReportError(InvalidArgument(
        (a.perf_model.empty() ? DefaultOpTimeModelPath() : a.perf_model) +
        ": already calibrated; calibrate the uncalibrated model on all "
        "measurements at once"));
  }
  Result<Calibration> c = FitCalibration(**model, *rows);
  if (!c.ok()) return ReportError(c.status().WithPrefix(a.data));
  std::unique_ptr<OpTimeModel> calibrated =
      Calibrate(std::move(*model), std::move(*c));
  const Calibration& fitted = *CalibrationOf(*calibrated);
  if (Status st = SaveOpTimeModel(*calibrated, a.out); !st.ok())
    return ReportError(st);
  if (a.json) {
    PrintJson({{"model", calibrated->name()},
               {"out", a.out},
               {"calibration", CalibrationToJson(fitted)}});
    return 0;
  }
  std::vector<std::vector<std::string>> table;
  for (const auto& [gpu, by_op] : fitted) {
    for (const auto& [op, s] : by_op) {
      table.push_back({gpu, PerfOpName(op), std::to_string(s.rows),
                       fmt::format("{:.3f}", s.scale),
                       Pct(s.median_ape_before_pct), Pct(s.median_ape_after_pct)});
    }
  }
  PrintTable({"GPU", "OP", "ROWS", "SCALE", "MEDIAN_APE%_BEFORE",
              "MEDIAN_APE%_AFTER"},
             table, 2);
  fmt::print("calibrated {} model -> {}\n", calibrated->name(), a.out);
  return 0;
}

int RunEval(const PerfArgs& a) {
  if (Status st = CheckCommon(a); !st.ok()) return ReportError(st);
  std::vector<std::string> models;
  if (a.model == "all") {
    for (const auto& row : OpTimeModels()) models.push_back(row.name);
  } else if (FindRow(OpTimeModels(), a.model)) {
    models.push_back(a.model);
  } else {
    return ReportError(NewOpTimeModel(a.model).status());
  }
  EvalOptions opts;
  opts.seed = a.seed;
  opts.train = TrainOpts(a);
  opts.calibration_rows = a.calibrate;
  if (a.split == "random") {
    opts.leave_one_gpu_out = false;
  } else if (a.split == "logo") {
    opts.random_split = false;
  } else if (a.split != "both") {
    return ReportError(InvalidArgument(
        "--split must be random, logo or both, got '" + a.split + "'"));
  }
  Result<Catalog> catalog = OpenCatalog(a);
  if (!catalog.ok()) return ReportError(catalog.status());
  Result<std::vector<TrainRow>> rows = LoadRows(a, *catalog);
  if (!rows.ok()) return ReportError(rows.status());
  std::vector<EvalRow> all;
  for (const auto& m : models) {
    if (isatty(fileno(stderr))) fmt::print(stderr, "evaluating {}...\n", m);
    Result<std::vector<EvalRow>> r = EvaluateOpTimeModel(m, *rows, opts);
    if (!r.ok()) return ReportError(r.status());
    all.insert(all.end(), r->begin(), r->end());
  }
  nlohmann::json j = {
      {"data", a.data.empty() ? DefaultTimingDataPath() : a.data},
      {"seed", a.seed},
      {"test_fraction", opts.test_fraction},
      {"max_rows_per_group", a.max_rows},
      {"rows", nlohmann::json::array()}};
  for (const auto& r : all) j["rows"].push_back(EvalRowToJson(r));
  if (!a.out.empty()) {
    std::error_code ec;
    auto parent = std::filesystem::path(a.out).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (Status st = WriteStringToFile(a.out, j.dump(2) + "\n"); !st.ok())
      return ReportError(st);
  }
  if (a.json) {
    PrintJson(j);
    return 0;
  }
  // One line per (model, op): the splits side by side.
  std::map<std::tuple<std::string, std::string, std::string>,
           std::array<EvalRow, 3>>
      table;
  std::vector<std::tuple<std::string, std::string, std::string>> order;
  for (const auto& r : all) {
    if (!a.by_gpu && r.gpu != "all") continue;
    auto key = std::make_tuple(r.model, r.op, r.gpu);
    if (!table.count(key)) order.push_back(key);
    table[key][r.split == "random" ? 0 : r.split == "logo" ? 1 : 2] = r;
  }
  std::vector<std::vector<std::string>> out;
  // Count, median and mean APE, and (with_bias) the median signed error.
  auto cells = [](const EvalRow& r, bool with_bias,
                  std::vector<std::string>* row) {
    if (r.n == 0 && r.model.empty()) {
      row->insert(row->end(), {"-", "-", "-"});
    } else if (!r.error.empty()) {
      row->insert(row->end(), {std::to_string(r.n), "n/a", "n/a"});
    } else {
      row->insert(row->end(), {std::to_string(r.n), Pct(r.median_ape_pct),
                               Pct(r.mean_ape_pct)});
    }
    if (!with_bias) return;
    bool known = r.error.empty() && !(r.n == 0 && r.model.empty());
    row->push_back(known ? fmt::format("{:+.1f}", r.median_bias_pct) : "-");
  };
  for (const auto& key : order) {
    const auto& [rand, logo, cal] = table[key];
    std::vector<std::string> row = {std::get<0>(key), std::get<1>(key)};
    if (a.by_gpu) row.push_back(std::get<2>(key));
    cells(rand, false, &row);
    cells(logo, true, &row);
    if (a.calibrate > 0) cells(cal, false, &row);
    out.push_back(std::move(row));
  }
  std::vector<std::string> header = {"MODEL", "OP"};
  if (a.by_gpu) header.push_back("GPU");
  header.insert(header.end(), {"RAND_N", "RAND_MEDIAN_APE%", "RAND_MEAN_APE%",
                               "LOGO_N", "LOGO_MEDIAN_APE%", "LOGO_MEAN_APE%",
                               "LOGO_BIAS%"});
  if (a.calibrate > 0) {
    header.insert(header.end(),
                  {"CAL_N", "CAL_MEDIAN_APE%", "CAL_MEAN_APE%"});
  }
  PrintTable(header, out, a.by_gpu ? 3 : 2);
  return 0;
}

// Parses "b=8,m=128,..." into a shape of op `op`.
Result<OpShape> ParseShape(const std::string& op_name,
                           const std::vector<std::string>& dims) {
  OpShape s;
  if (!ParsePerfOp(op_name, &s.op)) {
    std::string names;
    for (PerfOp op : AllPerfOps())
      names += std::string(names.empty() ? "" : ", ") + PerfOpName(op);
    return InvalidArgument("unknown op '" + op_name + "' (expected " + names +
                           ")");
  }
  static const std::map<std::string, int64_t OpShape::*> fields = {
      {"b", &OpShape::b},
      {"m", &OpShape::m},
      {"n", &OpShape::n},
      {"k", &OpShape::k},
      {"h", &OpShape::h},
      {"cin", &OpShape::in_channels},
      {"cout", &OpShape::out_channels},
      {"kernel", &OpShape::kernel},
      {"image", &OpShape::image},
      {"stride", &OpShape::stride},
      {"padding", &OpShape::padding}};
  // The dims each op kind has; a dim it lacks is an error, not ignored.
  const std::string used =
      s.op == PerfOp::kConv ? "b cin cout kernel image stride padding"
      : s.op == PerfOp::kLinear || s.op == PerfOp::kBmm ? "b m n k"
                                                        : "b h";
  std::set<std::string> seen;
  for (const auto& d : dims) {
    size_t eq = d.find('=');
    auto it = fields.find(d.substr(0, eq));
    if (eq == std::string::npos || it == fields.end()) {
      return InvalidArgument(
          "bad dimension '" + d +
          "' (expected NAME=VALUE, NAME one of b m n k h cin cout "
          "kernel image stride padding)");
    }
    if ((" " + used + " ").find(" " + it->first + " ") == std::string::npos) {
      return InvalidArgument(fmt::format("dimension '{}' does not apply to {} (its dims: {})",
                                         it->first, op_name, used));
    }
    try {
      size_t used = 0;
      long long v = std::stoll(d.substr(eq + 1), &used);
      if (used != d.size() - eq - 1) throw std::invalid_argument(d);
      s.*(it->second) = v;
    } catch (const std::exception&) {
      return InvalidArgument("bad dimension '" + d + "': not an integer");
    }
    // No GPU holds more: 2^24 per dim, and 2^36 elements per sample (h).
    const int64_t max = it->first == "h" ? int64_t{1} << 36 : int64_t{1} << 24;
    if (s.*(it->second) > max) {
      return InvalidArgument(fmt::format("dimension '{}' is over {} (2^{})", d, max, it->first == "h" ? 36 : 24));
    }
    if (!seen.insert(it->first).second) {
      return InvalidArgument(fmt::format("dimension '{}' given twice", it->first));
    }
  }
  // b, stride and padding have defaults (1, 1, 0); the sizes do not.
  std::istringstream names(used);
  for (std::string d; names >> d;) {
    if (d != "b" && d != "stride" && d != "padding" && !seen.count(d)) {
      return InvalidArgument(
          fmt::format("{}: dimension '{}' is required (its dims: {})", op_name, d, used));
    }
  }
  FRUGAL_RETURN_IF_ERROR(s.Validate());
  return s;
}

int RunQuery(const PerfArgs& a) {
  Result<OpShape> shape = ParseShape(a.op, a.dims);
  if (!shape.ok()) return ReportError(shape.status());
  // A linear layer has no batch dim (out[m,n] = in[m,k] W[k,n]; the
  // timings have b = 1): b=B prices B independent launches of the op.
  int64_t launches = 1;
  if (shape->op == PerfOp::kLinear && shape->b > 1) {
    launches = shape->b;
    shape->b = 1;
  }
  Result<Catalog> catalog = OpenCatalog(a);
  if (!catalog.ok()) return ReportError(catalog.status());
  std::string note;
  Result<const GpuSpec*> gpu = LookupGpuNoted(*catalog, a.gpu, &note);
  if (!gpu.ok()) return ReportError(gpu.status());
  Result<std::unique_ptr<OpTimeModel>> model = OpenOpTimeModel(a.perf_model);
  if (!model.ok()) return ReportError(model.status());
  Result<std::vector<double>> t =
      (*model)->PredictMs(std::span<const OpShape>(&*shape, 1), **gpu);
  if (!t.ok()) return ReportError(t.status());
  PrintNote(note);
  Result<GpuFeatures> g = GpuFeaturesOf(**gpu);
  if (!g.ok()) return ReportError(g.status());
  OpWork w = WorkOf(*shape);
  const double n = static_cast<double>(launches);
  const double time_ms = n * (*t)[0];
  const double roof = n * RooflineMs(*shape, *g);
  const std::string what =
      launches > 1 ? fmt::format("{} x [{}]", launches, shape->ToString()) : shape->ToString();
  if (a.json) {
    PrintJson({{"model", (*model)->name()},
               {"gpu", (*gpu)->name},
               {"op", PerfOpName(shape->op)},
               {"shape", shape->ToString()},
               {"launches", launches},
               {"time_ms", time_ms},
               {"roofline_ms", roof},
               {"flops", n * w.flops},
               {"bytes", n * w.bytes}});
  } else {
    fmt::print("{} on {}: {:.4f} ms ({} model; roofline {:.4f} ms)\n", what, (*gpu)->name,
               time_ms, (*model)->name(), roof);
  }
  return 0;
}

void AddCommon(CLI::App* cmd, PerfArgs* a) {
  cmd->add_option("--data", a->data,
                  "Timing CSV or folder of CSVs (default: "
                  "../shared/data/perf: both NeuSight op-timing folders)");
  cmd->add_option("--catalog", a->catalog,
                  "GPU catalog (default: data/catalog)");
  cmd->add_option("--seed", a->seed, "Seed for subsampling, splits and trees")
      ->capture_default_str();
  cmd->add_option("--threads", a->threads, "Training threads")
      ->capture_default_str()
      ->check(IntIn(1, 1024));
  cmd->add_option("--max-rows-per-group", a->max_rows,
                  "Most training rows per (op, GPU); 0 = all")
      ->capture_default_str()
      ->check(IntIn(0, int64_t{1} << 40));
  cmd->add_option("--rounds", a->train.rounds,
                  "learned: boosting rounds per op type")
      ->capture_default_str()
      ->check(IntIn(1, 100000));
  cmd->add_option("--max-depth", a->train.max_depth, "learned: tree depth")
      ->capture_default_str()
      ->check(IntIn(1, 64));
  cmd->add_option("--eta", a->train.eta, "learned: learning rate")
      ->capture_default_str()
      ->check(NumberIn(0, 1, true));
}

}  // namespace

void SetupPerf(CLI::App& sub, int* exit_code) {
  auto args = std::make_shared<PerfArgs>();
  sub.require_subcommand(1);

  CLI::App* list = sub.add_subcommand("list", "List the op-time models");
  list->add_flag("--json", args->json, "JSON output");
  list->callback([args, exit_code] { *exit_code = RunList(*args); });

  CLI::App* train =
      sub.add_subcommand("train", "Train an op-time model and save it");
  train->add_option("--model", args->model, "Model to train (see `perf list`)")
      ->capture_default_str();
  train->add_option("--out", args->out, "Output file: .ubj (binary) or .json")
      ->required();
  train->add_flag("--json", args->json, "JSON output");
  AddCommon(train, args.get());
  train->callback([args, exit_code] { *exit_code = RunTrain(*args); });

  CLI::App* eval = sub.add_subcommand(
      "eval",
      "Accuracy per op type: random 20% hold-out and leave-one-GPU-out");
  eval->add_option("--model", args->model, "Model name or 'all'")
      ->capture_default_str();
  eval->add_option("--split", args->split, "random, logo or both")
      ->capture_default_str();
  eval->add_option("--out", args->out, "Also write the JSON to this file");
  eval->add_flag("--by-gpu", args->by_gpu, "One line per GPU as well");
  eval->add_option("--calibrate", args->calibrate,
                   "Also score leave-one-GPU-out after calibrating on N "
                   "measured rows per op type of the held-out GPU (CAL_*)")
      ->capture_default_str()
      ->check(IntIn(0, 1000000));
  eval->add_flag("--json", args->json, "JSON output");
  AddCommon(eval, args.get());
  eval->callback([args, exit_code] { *exit_code = RunEval(*args); });

  CLI::App* calibrate = sub.add_subcommand(
      "calibrate",
      "Scale a model to GPUs from a few measured launches per op type");
  calibrate
      ->add_option("--data", args->data,
                   "Timing CSV or folder measured on the GPU(s) to calibrate")
      ->required();
  calibrate->add_option(
      "--perf-model", args->perf_model,
      "Model to calibrate: file, or roofline|ceer|learned|efficiency (default: "
      "data/perf/efficiency.ubj)");
  calibrate->add_option("--out", args->out, "Output model: .ubj or .json")
      ->required();
  calibrate->add_option("--catalog", args->catalog,
                        "GPU catalog (default: data/catalog)");
  calibrate->add_flag("--json", args->json, "JSON output");
  calibrate->callback([args, exit_code] { *exit_code = RunCalibrate(*args); });

  CLI::App* query =
      sub.add_subcommand("query", "Predict the time of one op on one GPU");
  query
      ->add_option("OP", args->op,
                   "Op type: conv, linear, bmm, softmax, ln, add, ...")
      ->required();
  query->add_option(
      "DIMS", args->dims,
      "Dimensions NAME=VALUE: b m n k h cin cout kernel image stride padding");
  query->add_option("--gpu", args->gpu, "GPU name or alias")->required();
  query->add_option(
      "--perf-model", args->perf_model,
      "Model file, or roofline|ceer|learned|efficiency (default: efficiency, data/perf/efficiency.ubj)");
  query->add_option("--catalog", args->catalog,
                    "GPU catalog (default: data/catalog)");
  query->add_flag("--json", args->json, "JSON output");
  query->callback([args, exit_code] { *exit_code = RunQuery(*args); });

  AddPerfScore(sub, exit_code);
}

}  // namespace frugal::cli
