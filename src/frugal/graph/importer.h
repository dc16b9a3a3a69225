// Graph importers: one registry table (importer.cc) of the formats frugal
// reads — ONNX, Hugging Face config.json, dnn-partitioning JSON and frugal's
// own JSON. Every importer returns a validated forward (or, for profiled
// training graphs, complete) OpGraph, or a one-line error naming the file.
// Stateless; thread-safe.
#ifndef FRUGAL_GRAPH_IMPORTER_H_
#define FRUGAL_GRAPH_IMPORTER_H_

#include <span>
#include <string>
#include <string_view>

#include "frugal/base/registry.h"
#include "frugal/base/status.h"
#include "frugal/graph/op_graph.h"

namespace frugal {

struct ImportOptions {
  // Batch size for models with a dynamic batch dim (ONNX) or none (HF).
  // 0 = the model's own static batch, else 1. REQUIRES: >= 0.
  int64_t batch = 0;
  // Sequence length for HF configs. 0 = the config's max positions (capped
  // at 1024 for positions beyond). REQUIRES: >= 0.
  int64_t seq_len = 0;
};

struct Importer {
  // True when `contents` of `path` look like this format.
  bool (*detect)(const std::string& path, std::string_view contents);
  // Builds the graph. `path` is only used in messages.
  Result<OpGraph> (*import)(const std::string& path, std::string_view contents,
                            const ImportOptions& options);
};

std::span<const RegistryRow<Importer>> Importers();

// Reads `path` and imports it with the named format, or the first importer
// whose detect() accepts it when format is "auto".
Result<OpGraph> ImportGraph(const std::string& path,
                            const ImportOptions& options = {},
                            const std::string& format = "auto");

// Same, from bytes already in memory (fuzzers, tests).
Result<OpGraph> ImportGraphFromContents(const std::string& path,
                                        std::string_view contents,
                                        const ImportOptions& options,
                                        const std::string& format = "auto");

}  // namespace frugal

#endif  // FRUGAL_GRAPH_IMPORTER_H_
