// Import + training-graph derivation speed. Targets (issue 2): ResNet-50 from
// ONNX under 50 ms, GPT-2 large from its HF config (seq 1024) under 200 ms.
// Run from the repository root: bench/run.sh writes bench/results/graph.json.
#include <string>

#include <benchmark/benchmark.h>

#include "frugal/graph/importer.h"
#include "frugal/graph/training.h"

namespace frugal {
namespace {

void ImportAndDerive(benchmark::State& state, const std::string& path, int64_t batch,
                     int64_t seq_len, bool train) {
  ImportOptions options;
  options.batch = batch;
  options.seq_len = seq_len;
  for (auto _ : state) {
    Result<OpGraph> g = ImportGraph(path, options);
    if (!g.ok()) {
      state.SkipWithError(g.status().ToString().c_str());
      return;
    }
    if (train) {
      Result<OpGraph> t = BuildTrainingGraph(*g);
      if (!t.ok()) {
        state.SkipWithError(t.status().ToString().c_str());
        return;
      }
      benchmark::DoNotOptimize(t->ops.data());
      state.counters["ops"] = t->num_ops();
    } else {
      benchmark::DoNotOptimize(g->ops.data());
      state.counters["ops"] = g->num_ops();
    }
  }
}

const std::string kHf = "models/hf/";

void BM_ResNet50OnnxImport(benchmark::State& s) {
  ImportAndDerive(s, "models/resnet50.onnx", 32, 0, false);
}
void BM_ResNet50OnnxImportAndTrainingGraph(benchmark::State& s) {
  ImportAndDerive(s, "models/resnet50.onnx", 32, 0, true);
}
void BM_Gpt2LargeHfImport(benchmark::State& s) {
  ImportAndDerive(s, kHf + "gpt2_large.json", 1, 1024, false);
}
void BM_Gpt2LargeHfImportAndTrainingGraph(benchmark::State& s) {
  ImportAndDerive(s, kHf + "gpt2_large.json", 1, 1024, true);
}

BENCHMARK(BM_ResNet50OnnxImport)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ResNet50OnnxImportAndTrainingGraph)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Gpt2LargeHfImport)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Gpt2LargeHfImportAndTrainingGraph)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace frugal

BENCHMARK_MAIN();
