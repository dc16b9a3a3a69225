// GPU time of one inference batch or one training iteration of a model on a
// GPU, from Ceer's per-op predictions (perf::PredictOps with the op-time
// model the caller loads), split into compute-bound and memory-bound time
// by each op's roofline (FLOPs / peak FP32 against bytes / bandwidth), and
// the step's memory (graph::EstimateStepMemory). Results are cached per
// (model, mode, batch, seq, GPU) so the simulator prices each once.
// Not thread-safe (the cache); one CostCache per thread.
#ifndef FRUGAL_SHARE_BATCH_LATENCY_H_
#define FRUGAL_SHARE_BATCH_LATENCY_H_

#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "frugal/base/status.h"
#include "frugal/hw/catalog.h"
#include "frugal/perf/op_time_model.h"

namespace frugal::share {

struct StepCost {
  double compute_ms = 0;  // compute-bound ops
  double memory_ms = 0;   // memory-bound ops (and ops with no FLOPs)
  double mem_bytes = 0;   // step memory + the CUDA context
  int fallback_ops = 0;
  double total_ms() const { return compute_ms + memory_ms; }
};

struct CostOptions {
  // Where bundled model names resolve: <models_dir>/<name>.onnx, then
  // <models_dir>/hf/<name>.json. Default: $FRUGAL_MODELS_DIR, else the
  // source tree's models/.
  std::string models_dir;
  // Memory each process keeps for the CUDA context and framework, bytes.
  double context_bytes = 0.75 * 1024 * 1024 * 1024;
};

// The models directory CostOptions defaults to.
std::string DefaultModelsDir();

// A bundled model name (resnet50, bert, ...) or a path to an ONNX / HF
// config / frugal graph file. NotFound listing the bundled models when
// `model` is neither.
Result<std::string> ResolveModelPath(const std::string& model, const std::string& models_dir);

// The model family: the leading letters of the file's base name
// ("resnet50" -> "resnet", "gpt2_med" -> "gpt").
std::string ModelFamily(const std::string& model);

class CostCache {
 public:
  // `perf` must outlive the cache.
  CostCache(const OpTimeModel& perf, CostOptions options = {});

  Result<StepCost> Inference(const std::string& model, int64_t batch, int64_t seq,
                             const GpuSpec& gpu);
  Result<StepCost> Training(const std::string& model, int64_t batch, int64_t seq,
                            const GpuSpec& gpu);
  int64_t priced() const { return priced_; }  // distinct steps priced so far

 private:
  Result<StepCost> Price(const std::string& model, bool training, int64_t batch, int64_t seq,
                         const GpuSpec& gpu);
  const OpTimeModel& perf_;
  CostOptions o_;
  std::map<std::tuple<std::string, bool, int64_t, int64_t, std::string>, StepCost> cache_;
  int64_t priced_ = 0;
};

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_BATCH_LATENCY_H_
