// Flags shared by the verbs that price a model on GPUs (predict, advise):
// the model file, batch, sequence length, optimizer, catalog and op-time
// model, and the loading of all of them.
#ifndef FRUGAL_TOOLS_FRUGAL_MODEL_ARGS_H_
#define FRUGAL_TOOLS_FRUGAL_MODEL_ARGS_H_

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "frugal/graph/importer.h"
#include "frugal/graph/op_graph.h"
#include "frugal/graph/training.h"
#include "frugal/hw/catalog.h"
#include "frugal/perf/op_time_model.h"

namespace frugal::cli {

struct ModelArgs {
  std::string model;
  int64_t batch = -1;  // per GPU; required
  int64_t seq = -1;
  bool infer = false;
  bool train = false;  // the default; given for symmetry with --infer
  std::string optimizer = "adam";
  std::string head = "auto";
  bool fused = false;      // price torch.compile-style kernel fusion
  std::string catalog;     // empty: DefaultCatalogPath()
  std::string perf_model;  // empty: the default model
  bool json = false;
};

// Adds MODEL, --batch, --seq, --train/--infer, --optimizer, --head,
// --fused, --catalog, --perf-model and --json to `cmd`.
void AddModelArgs(CLI::App* cmd, ModelArgs* a);

// --head for HF configs (also used by `graph show|convert`), and its check.
void AddHeadOption(CLI::App* cmd, std::string* head);
Result<ModelHead> ParseHeadOption(const std::string& head);

// Everything a pricing verb needs, loaded and validated.
struct LoadedModel {
  OpGraph forward;
  OpGraph step;  // the training graph, or the forward graph with --infer
  MemoryBreakdown memory;
  int64_t step_memory_bytes = 0;  // training or inference memory per GPU
  Catalog catalog;
  std::unique_ptr<OpTimeModel> perf;
};

Result<LoadedModel> LoadModel(const ModelArgs& a);

}  // namespace frugal::cli

#endif  // FRUGAL_TOOLS_FRUGAL_MODEL_ARGS_H_
