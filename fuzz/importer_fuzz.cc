// libFuzzer target for the graph importers, one binary for all: the name
// it is run as (fuzz_<format>, a link to fuzz_importers; dnn_partitioning
// for dnn-partitioning) picks the importer. Any input must give a graph or
// a Status, never a crash, hang or leak.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "frugal/graph/importer.h"
#include "frugal/graph/training.h"
#include "target_name.h"

namespace {
std::string g_format;  // the importer this process fuzzes, from its program name
}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  g_format = FuzzTargetName(*argc, *argv, {"onnx", "hf", "dnn_partitioning", "frugal"});
  std::replace(g_format.begin(), g_format.end(), '_', '-');
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view contents(reinterpret_cast<const char*>(data), size);
  const std::string& format = g_format;
  const std::string path = format == "onnx" ? "fuzz.onnx" : "fuzz.json";
  frugal::ImportOptions options;
  options.batch = 2;
  options.seq_len = 16;
  auto g = frugal::ImportGraphFromContents(path, contents, options, format);
  if (g.ok() && !g->IsTraining()) {
    auto t = frugal::BuildTrainingGraph(*g);
    (void)t;
    (void)frugal::EstimateMemory(*g);
  }
  if (format == "hf") {
    // One step of cached generation over the same config.
    options.seq_len = 1;
    options.kv_cache_len = 8;
    auto step = frugal::ImportGraphFromContents(path, contents, options, format);
    if (step.ok()) (void)frugal::EstimateMemory(frugal::InferenceGraph(*step));
  }
  return 0;
}
