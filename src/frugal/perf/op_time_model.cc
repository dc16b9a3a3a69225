#include "frugal/perf/op_time_model.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "frugal/base/file_io.h"
#include "frugal/graph/op_cost.h"
#include "frugal/perf/calibration.h"

namespace frugal {
namespace {

constexpr RegistryRow<OpTimeModelFactory> kOpTimeModels[] = {
    {"roofline",
     "analytic max(FLOPs/peak, bytes/bandwidth) + launch overhead, catalog "
     "specs only",
     &NewRooflineModel},
    {"ceer",
     "Ceer: per (op, GPU) regression on input sizes (conv, linear, bmm), "
     "median otherwise; measured GPUs only",
     &NewCeerModel},
    {"learned",
     "XGBoost trees on op + GPU-spec features, predicts unseen GPUs from "
     "catalog specs",
     &NewLearnedModel},
    {"efficiency",
     "XGBoost trees on the fraction of a sustained roofline an op reaches "
     "(waves of tiles, L2 fit); sustained rates of unseen GPUs from peak, "
     "bandwidth and board power",
     &NewEfficiencyModel},
};

constexpr const char* kFileFormat = "frugal-perf-model";

bool IsFile(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

std::string DataDir() {
  if (const char* d = std::getenv("FRUGAL_DATA_DIR"); d != nullptr && *d)
    return d;
  return std::string(FRUGAL_SOURCE_ROOT) + "/data";
}

}  // namespace

std::span<const RegistryRow<OpTimeModelFactory>> OpTimeModels() {
  return kOpTimeModels;
}

Result<std::unique_ptr<OpTimeModel>> NewOpTimeModel(std::string_view name) {
  const auto* row = FindRow(OpTimeModels(), name);
  if (!row) {
    return NotFound(fmt::format("unknown op-time model '{}' (expected {})",
                                name, RowNames(OpTimeModels())));
  }
  return row->factory();
}

Result<std::vector<TrainRow>> ResolveRows(const Dataset& data,
                                          const Catalog& catalog) {
  std::map<std::string, const GpuSpec*> cache;
  std::vector<TrainRow> rows;
  rows.reserve(data.samples.size());
  for (const auto& s : data.samples) {
    auto it = cache.find(s.device);
    if (it == cache.end()) {
      Result<const GpuSpec*> g = catalog.LookupGpu(s.device);
      if (!g.ok()) {
        return data.files.empty() ? g.status()
                                  : g.status().WithPrefix(data.Where(s));
      }
      it = cache.emplace(s.device, *g).first;
    }
    rows.push_back(TrainRow{s.shape, it->second, s.latency_ms, s.file});
  }
  return rows;
}

std::vector<TrainRow> Subsample(const std::vector<TrainRow>& rows,
                                const TrainOptions& options) {
  if (options.max_rows_per_group <= 0) return rows;
  std::map<std::pair<int, std::string>, std::vector<size_t>> groups;
  for (size_t i = 0; i < rows.size(); ++i) {
    groups[{static_cast<int>(rows[i].shape.op), rows[i].gpu->name}].push_back(
        i);
  }
  std::vector<bool> keep(rows.size(), false);
  uint64_t salt = 0;
  for (const auto& [key, idx] : groups) {
    ++salt;
    if (static_cast<int64_t>(idx.size()) <= options.max_rows_per_group) {
      for (size_t i : idx) keep[i] = true;
      continue;
    }
    std::vector<size_t> order =
        ShuffledIndices(idx.size(), options.seed * 1000003 + salt);
    for (int64_t j = 0; j < options.max_rows_per_group; ++j)
      keep[idx[order[j]]] = true;
  }
  std::vector<TrainRow> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (keep[i]) out.push_back(rows[i]);
  }
  return out;
}

Result<std::unique_ptr<OpTimeModel>> TrainOpTimeModel(
    std::string_view name, const std::vector<TrainRow>& rows,
    const TrainOptions& options) {
  FRUGAL_ASSIGN_OR_RETURN(std::unique_ptr<OpTimeModel> model,
                          NewOpTimeModel(name));
  FRUGAL_RETURN_IF_ERROR(model->Train(rows, options));
  return model;
}

Status SaveOpTimeModel(const OpTimeModel& model, const std::string& path) {
  const bool binary = FileExtension(path) == "ubj";
  nlohmann::json j = {{"format", kFileFormat},
                      {"version", 1},
                      {"model", model.name()},
                      {"feature_version", kFeatureVersion},
                      {"state", model.ToJson(binary)}};
  if (const Calibration* c = CalibrationOf(model))
    j["calibration"] = CalibrationToJson(*c);
  if (!binary) return WriteStringToFile(path, j.dump(1) + "\n");
  std::vector<uint8_t> bytes = nlohmann::json::to_ubjson(j, true, true);
  return WriteStringToFile(path, std::string(bytes.begin(), bytes.end()));
}

Result<std::unique_ptr<OpTimeModel>> LoadOpTimeModel(const std::string& path) {
  FRUGAL_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  // UBJSON objects also open with '{': the extension decides which to try
  // first, and a file in the other encoding still loads.
  nlohmann::json j;
  Result<nlohmann::json> ubj = ParseUbjson(text, path);
  if (FileExtension(path) == "ubj" && ubj.ok()) {
    j = std::move(*ubj);
  } else {
    Result<nlohmann::json> parsed = ParseJson(text, path);
    if (parsed.ok()) {
      j = std::move(*parsed);
    } else if (ubj.ok()) {
      j = std::move(*ubj);
    } else {
      return FileExtension(path) == "ubj" ? ubj.status() : parsed.status();
    }
  }
  if (!j.is_object() || j.value("format", "") != kFileFormat) {
    return InvalidArgument(path + ": not a frugal perf model (format is not '" +
                           std::string(kFileFormat) + "')");
  }
  if (!j.contains("model") || !j["model"].is_string() || !j.contains("state")) {
    return InvalidArgument(path + ": perf model lacks 'model' or 'state'");
  }
  if (j.value("feature_version", -1) != kFeatureVersion) {
    return InvalidArgument(
        fmt::format("{}: perf model has feature version {}, this frugal uses "
                    "{}; retrain it "
                    "with `frugal perf train`",
                    path, j.value("feature_version", -1), kFeatureVersion));
  }
  Result<std::unique_ptr<OpTimeModel>> model =
      NewOpTimeModel(j["model"].get<std::string>());
  if (!model.ok()) return model.status().WithPrefix(path);
  Status st = (*model)->FromJson(j["state"]);
  if (!st.ok()) return st.WithPrefix(path);
  if (!j.contains("calibration")) return model;
  Result<Calibration> c = CalibrationFromJson(j["calibration"]);
  if (!c.ok()) return c.status().WithPrefix(path);
  return Calibrate(std::move(*model), std::move(*c));
}

std::string DefaultOpTimeModelPath() {
  if (const char* p = std::getenv("FRUGAL_PERF_MODEL"); p != nullptr && *p)
    return p;
  return DataDir() + "/perf/efficiency.ubj";
}

Result<std::unique_ptr<OpTimeModel>> OpenOpTimeModel(const std::string& spec) {
  if (spec.empty()) return LoadOpTimeModel(DefaultOpTimeModelPath());
  if (IsFile(spec)) return LoadOpTimeModel(spec);
  if (const auto* row = FindRow(OpTimeModels(), spec)) {
    if (std::string_view(row->name) == "roofline") return row->factory();
    return LoadOpTimeModel(DataDir() + "/perf/" + row->name + ".ubj");
  }
  return NotFound(fmt::format("{}: no such perf model file or model name ({})",
                              spec, RowNames(OpTimeModels())));
}

Result<std::vector<double>> PredictShapesMs(const OpTimeModel& model,
                                            std::span<const OpShape> shapes,
                                            const GpuSpec& gpu,
                                            bool* scalar_as_binary) {
  if (scalar_as_binary) *scalar_as_binary = false;
  Result<std::vector<double>> t = model.PredictMs(shapes, gpu);
  if (t.ok() || t.status().code() != StatusCode::kNotFound) return t;
  std::vector<OpShape> binary(shapes.begin(), shapes.end());
  bool changed = false;
  for (OpShape& s : binary) {
    if (IsScalarOperandPerfOp(s.op)) {
      s.op = BinaryFormOf(s.op);
      changed = true;
    }
  }
  if (!changed) return t;
  Result<std::vector<double>> retry = model.PredictMs(binary, gpu);
  if (retry.ok() && scalar_as_binary) *scalar_as_binary = true;
  return retry.ok() ? retry : t;
}

Result<OpTimePrediction> PredictOp(const OpTimeModel& model, const Op& op,
                                   const GpuSpec& gpu) {
  OpQuery q = QueryForOp(op);
  OpTimePrediction p;
  p.basis = q.basis;
  if (q.shape) {
    OpShape s = *q.shape;
    bool as_binary = false;
    FRUGAL_ASSIGN_OR_RETURN(
        std::vector<double> t,
        PredictShapesMs(model, std::span<const OpShape>(&s, 1), gpu, &as_binary));
    p.time_ms = t[0] * static_cast<double>(q.repeat);
    if (as_binary) p.basis += kScalarAsBinaryNote;
    return p;
  }
  FRUGAL_ASSIGN_OR_RETURN(GpuFeatures g, GpuFeaturesOf(gpu));
  return RooflineFallback(op, g, q.basis);
}

OpTimePrediction RooflineFallback(const Op& op, const GpuFeatures& gpu,
                                  const std::string& basis) {
  OpTimePrediction p;
  const double bytes = static_cast<double>(op.bytes_read + op.bytes_written);
  p.fallback = true;
  p.basis = "roofline: " + basis;
  p.time_ms = (op.flops > 0 || bytes > 0)
                  ? RooflineCoreMs(op.flops, bytes, gpu) + kLaunchOverheadMs
                  : 0;
  // A recurrence launches a step's kernels (the recurrent GEMM and the fused
  // cell) once per step, each after the last: at least two launches a step,
  // however little work each holds.
  const int64_t steps = SequentialSteps(op);
  if (steps > 1 && p.time_ms > 0) {
    p.time_ms += static_cast<double>(kRnnKernelsPerStep * steps - 1) * kLaunchOverheadMs;
    p.basis += fmt::format(", {} sequential steps of {} kernels", steps, kRnnKernelsPerStep);
  }
  return p;
}

}  // namespace frugal
