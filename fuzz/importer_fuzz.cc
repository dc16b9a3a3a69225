// libFuzzer target for one graph importer (FRUGAL_FUZZ_FORMAT names it).
// Any input must give a graph or a Status, never a crash, hang or leak.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "frugal/graph/importer.h"
#include "frugal/graph/training.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view contents(reinterpret_cast<const char*>(data), size);
  const std::string format = FRUGAL_FUZZ_FORMAT;
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
