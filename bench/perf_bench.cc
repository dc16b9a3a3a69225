// Ceer speed targets (issue 3): predicting GPT-2 large's training iteration
// (seq 1024) on every catalog GPU under 100 ms in all, and `advise` over the
// whole catalog under 1 s. Both with the bundled default (efficiency) model and the learned one,
// and with the roofline model as the in-run baseline. Run from the
// repository root: bench/run.sh writes bench/results/perf.json.
#include <string>

#include <benchmark/benchmark.h>

#include "frugal/graph/importer.h"
#include "frugal/graph/training.h"
#include "frugal/hw/catalog.h"
#include "frugal/perf/advisor.h"
#include "frugal/perf/iteration.h"

namespace frugal {
namespace {

struct Setup {
  OpGraph step;
  int64_t memory = 0;
  Catalog catalog;
  std::unique_ptr<OpTimeModel> model;
  std::string error;
};

Setup Load(const std::string& model_spec) {
  Setup s;
  ImportOptions options;
  options.batch = 1;
  options.seq_len = 1024;
  auto g = ImportGraph("models/hf/gpt2_large.json", options);
  auto c = LoadCatalog(DefaultCatalogPath());
  auto m = OpenOpTimeModel(model_spec);
  if (!g.ok() || !c.ok() || !m.ok()) {
    s.error = !g.ok() ? g.status().ToString()
              : !c.ok() ? c.status().ToString() : m.status().ToString();
    return s;
  }
  s.step = *BuildTrainingGraph(*g);
  s.memory = EstimateMemory(*g).training_bytes;
  s.catalog = std::move(c).value();
  s.model = std::move(m).value();
  return s;
}

void PredictEveryGpu(benchmark::State& state, const std::string& spec) {
  Setup s = Load(spec);
  if (!s.error.empty()) {
    state.SkipWithError(s.error.c_str());
    return;
  }
  int priced = 0;
  for (auto _ : state) {
    priced = 0;
    for (const GpuSpec& gpu : s.catalog.gpus()) {
      auto p = PredictIteration(*s.model, s.step, s.memory, gpu, {});
      if (p.ok()) {
        ++priced;
        benchmark::DoNotOptimize(p->iteration_ms);
      }
    }
  }
  state.counters["gpus_priced"] = priced;
  state.counters["ops"] = s.step.num_ops();
}

void AdviseCatalog(benchmark::State& state, const std::string& spec) {
  Setup s = Load(spec);
  if (!s.error.empty()) {
    state.SkipWithError(s.error.c_str());
    return;
  }
  JobSpec job{1e6, 1, 1};
  size_t configs = 0;
  for (auto _ : state) {
    auto a = Advise(*s.model, s.step, s.memory, s.catalog, job, {});
    if (!a.ok()) {
      state.SkipWithError(a.status().ToString().c_str());
      return;
    }
    configs = a->configs.size();
  }
  state.counters["configs"] = static_cast<double>(configs);
}

BENCHMARK_CAPTURE(PredictEveryGpu, efficiency, std::string(""))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(PredictEveryGpu, learned, std::string("learned"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(PredictEveryGpu, roofline, std::string("roofline"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(AdviseCatalog, efficiency, std::string(""))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(AdviseCatalog, learned, std::string("learned"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(AdviseCatalog, roofline, std::string("roofline"))
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace frugal

BENCHMARK_MAIN();
