// Flags shared by the verbs that price a model (predict, advise, place): the
// model file, batch, sequence length, named dims, mode, optimizer, head,
// catalog and op-time model, and the loading of the step they describe.
//
// A flag that cannot apply to the model is an error, never ignored: ONNX and
// HF models are re-derived at the requested sizes; a frugal graph JSON or a
// profiled graph keeps the sizes it was built or measured at, so a --batch /
// --seq that differs is refused with the reason. A training graph from a
// file keeps its optimizer; --infer takes its forward part (formula graphs)
// or is refused (profiled training graphs).
#ifndef FRUGAL_TOOLS_FRUGAL_MODEL_ARGS_H_
#define FRUGAL_TOOLS_FRUGAL_MODEL_ARGS_H_

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "frugal/graph/importer.h"
#include "frugal/graph/op_graph.h"
#include "frugal/graph/training.h"
#include "frugal/hw/catalog.h"
#include "frugal/perf/op_time_model.h"
#include "frugal/plan/precision.h"
#include "frugal/plan/tensor_parallel.h"

namespace frugal::cli {

struct ModelArgs {
  std::string model;
  int64_t batch = 0;              // per GPU; 0 = not given
  int64_t seq = 0;                // HF configs; 0 = not given
  std::vector<std::string> dims;  // --dim NAME=VALUE, ONNX symbolic dims
  bool infer = false;
  bool train = false;
  std::string optimizer;   // empty: adam (or a training graph's own)
  std::string head = "auto";
  std::string precision;   // empty: an HF config's torch_dtype, else fp32
  bool fused = false;      // price torch.compile-style kernel fusion
  std::string catalog;     // empty: DefaultCatalogPath()
  std::string perf_model;  // empty: the default model
  bool json = false;
};

// Adds the model positional (named `positional`, required or not), --batch,
// --seq, --dim, --train/--infer, --optimizer, --head and --precision to `cmd`.
void AddStepArgs(CLI::App* cmd, ModelArgs* a, const std::string& positional,
                 bool required);

// AddStepArgs with a required MODEL, plus --fused, --catalog, --perf-model
// and --json (predict, advise).
void AddModelArgs(CLI::App* cmd, ModelArgs* a);

// --head for HF configs (also used by `graph show|convert`), and its check.
void AddHeadOption(CLI::App* cmd, std::string* head);
Result<ModelHead> ParseHeadOption(const std::string& head);

// The importer auto-detection would pick for `path` (ImportGraph's
// order), or "auto" when none does (the importer then says why).
std::string DetectFormat(const std::string& path, const std::string& contents);

// The flags only one kind of model takes (--seq and --head: HF configs;
// --dim: ONNX symbolic dims): an error naming `path` when one was given
// (`seq`, `dims`, a head other than auto) for a model of another format.
Status CheckFormatFlags(const std::string& path, const std::string& format, bool seq, bool dims,
                        ModelHead head);

// --dim NAME=VALUE strings into ImportOptions::dims: names once each,
// values integers in [1, 2^24].
Result<std::map<std::string, int64_t>> ParseDims(const std::vector<std::string>& dims);

// How a verb prices a model file.
struct StepRequest {
  // predict / advise: training unless --infer. place: the graph's own mode
  // (forward graphs: inference) unless --train / --infer.
  bool train_by_default = true;
  // --batch must be given for ONNX / HF models (predict, advise).
  bool batch_required = true;
  // Megatron tensor parallelism (plan/tensor_parallel.h): the step is one
  // GPU's of `tensor_parallel`; errors are prefixed "--tp N".
  int tensor_parallel = 1;
};

// The step a pricing verb works on.
struct LoadedStep {
  std::string format;  // importer name: onnx, hf, frugal, dnn-partitioning
  bool resizable = false;  // re-derived at the requested sizes (ONNX, HF)
  bool measured = false;   // op times measured by a profile, not re-priceable
  OpGraph forward;  // as imported (a training graph when the file holds one)
  OpGraph step;     // the training graph, or the inference graph
  bool training = false;
  int64_t batch = 0;  // the step's batch per GPU (0: not recorded)
  StepMemory memory;  // the one memory model (graph/training.h)
  // With tensor parallelism: the forward all-reduces of `step` (op indices
  // into step's forward ops, which keep forward's order).
  std::vector<TensorParallelGraph::AllReduce> tp_all_reduces;
  double model_forward_flops = 0;  // forward pass of the whole (unsplit) model
  Precision precision = Precision::kFp32;  // applied to `forward` before `step`
  std::vector<std::string> notes;  // e.g. the precision taken from torch_dtype
};

// --precision and its check (also used by `graph show|convert`).
void AddPrecisionOption(CLI::App* cmd, std::string* precision);

// The precision of a model. An ONNX or frugal graph whose own dtypes are
// half (GraphPrecision) has that precision, with a note; a --precision other
// than it is an error (its tensors would need converting), and *native is
// set: the graph needs no ApplyPrecision. Otherwise `flag` when given; else
// an HF config's torch_dtype (float16 / bfloat16: amp-* for training, the
// pure half type for inference), with a note; else fp32.
// Errors about the model name `path`.
Result<Precision> ResolvePrecision(const std::string& flag, const std::string& path,
                                   const std::string& format,
                                   const std::string& contents, const OpGraph& graph,
                                   bool training, std::vector<std::string>* notes,
                                   bool* native);

// Prints each note on stderr ("note: ...").
void PrintNotes(const std::vector<std::string>& notes);

// Loads and checks; errors name the file and the flag. A usage error
// (missing --batch) has its message prefixed "usage: ". The precision is
// applied to the forward graph before the training step is derived.
Result<LoadedStep> LoadStep(const ModelArgs& a, const StepRequest& request);

// Everything predict / advise need.
struct LoadedModel {
  LoadedStep s;
  Catalog catalog;
  std::unique_ptr<OpTimeModel> perf;
};

Result<LoadedModel> LoadModel(const ModelArgs& a, const StepRequest& request = {});

// The GPU a profiled graph's times are taken to be from: `gpu` must match
// the per-device memory the file records (maxSizePerFPGA) within 5 %, as
// the times cannot be re-priced for another GPU.
Status CheckMeasuredGpu(const LoadedStep& s, const std::string& path, const GpuSpec& gpu);

}  // namespace frugal::cli

#endif  // FRUGAL_TOOLS_FRUGAL_MODEL_ARGS_H_
