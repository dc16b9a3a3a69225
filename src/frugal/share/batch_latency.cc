#include "frugal/share/batch_latency.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "frugal/graph/importer.h"
#include "frugal/graph/training.h"
#include "frugal/perf/iteration.h"

namespace frugal::share {
namespace fs = std::filesystem;

std::string DefaultModelsDir() {
  if (const char* d = std::getenv("FRUGAL_MODELS_DIR"); d != nullptr && *d) return d;
  return std::string(FRUGAL_SOURCE_ROOT) + "/models";
}

Result<std::string> ResolveModelPath(const std::string& model, const std::string& models_dir) {
  std::error_code ec;
  const std::string dir = models_dir.empty() ? DefaultModelsDir() : models_dir;
  const bool looks_like_path = model.find('/') != std::string::npos ||
                               model.find('.') != std::string::npos;
  if (looks_like_path) {
    if (fs::is_regular_file(model, ec)) return model;
    if (fs::exists(model, ec)) return InvalidArgument("model file '" + model + "' is not a regular file");
    return NotFound("model file '" + model + "' does not exist");
  }
  for (const std::string& p : {dir + "/" + model + ".onnx", dir + "/hf/" + model + ".json"}) {
    if (fs::is_regular_file(p, ec)) return p;
  }
  std::string names;
  for (const std::string& sub : {dir, dir + "/hf"}) {
    if (!fs::is_directory(sub, ec)) continue;
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(sub, ec)) {
      const std::string ext = e.path().extension().string();
      if (ext == ".onnx" || (ext == ".json" && sub != dir)) {
        found.push_back(e.path().stem().string());
      }
    }
    std::sort(found.begin(), found.end());
    for (const auto& f : found) names += (names.empty() ? "" : ", ") + f;
  }
  return NotFound("unknown model '" + model + "' (bundled models in " + dir + ": " + names +
                  "; or give a path)");
}

std::string ModelFamily(const std::string& model) {
  std::string base = fs::path(model).stem().string();
  std::string f;
  for (char c : base) {
    if (!std::isalpha(static_cast<unsigned char>(c))) break;
    f += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return f.empty() ? base : f;
}

CostCache::CostCache(const OpTimeModel& perf, CostOptions options)
    : perf_(perf), o_(std::move(options)) {}

Result<StepCost> CostCache::Inference(const std::string& model, int64_t batch, int64_t seq,
                                      const GpuSpec& gpu) {
  return Price(model, false, batch, seq, gpu);
}

Result<StepCost> CostCache::Training(const std::string& model, int64_t batch, int64_t seq,
                                     const GpuSpec& gpu) {
  return Price(model, true, batch, seq, gpu);
}

Result<StepCost> CostCache::Price(const std::string& model, bool training, int64_t batch,
                                  int64_t seq, const GpuSpec& gpu) {
  auto key = std::make_tuple(model, training, batch, seq, gpu.name);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  FRUGAL_ASSIGN_OR_RETURN(std::string path, ResolveModelPath(model, o_.models_dir));
  ImportOptions io;
  io.batch = batch;
  io.seq_len = seq;  // 0: the model's own
  Result<OpGraph> g = ImportGraph(path, io);
  if (!g.ok()) return g.status();
  // A sequence length only an HF config is built at; any other model keeps
  // its own sizes, so a seq it did not take is an error, not ignored.
  if (seq > 0 && g->seq_len != seq) {
    return InvalidArgument(fmt::format("{}: seq {} cannot apply (only HF configs are built at a sequence length)",
                                       path, seq));
  }
  OpGraph step;
  if (training) {
    if (g->IsTraining()) {
      step = std::move(g).value();
    } else {
      Result<OpGraph> t = BuildTrainingGraph(*g);
      if (!t.ok()) return t.status().WithPrefix(path);
      step = std::move(t).value();
    }
  } else {
    step = InferenceGraph(std::move(g).value());
  }
  FRUGAL_ASSIGN_OR_RETURN(std::vector<OpTimePrediction> ops, PredictOps(perf_, step, gpu));
  StepCost c;
  const double peak_flops = gpu.fp32_tflops.value_or(10.0) * 1e12;
  const double bw = gpu.mem_bw_gbps * 1e9;
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op& op = step.ops[i];
    const double compute_s = op.flops / peak_flops;
    const double memory_s = static_cast<double>(op.bytes_read + op.bytes_written) / bw;
    if (op.flops > 0 && compute_s >= memory_s) {
      c.compute_ms += ops[i].time_ms;
    } else {
      c.memory_ms += ops[i].time_ms;
    }
    c.fallback_ops += ops[i].fallback ? 1 : 0;
  }
  c.mem_bytes = static_cast<double>(EstimateStepMemory(step).total_bytes) + o_.context_bytes;
  ++priced_;
  cache_.emplace(std::move(key), c);
  return c;
}

}  // namespace frugal::share
