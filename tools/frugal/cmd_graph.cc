// `frugal graph show|convert|formats`: import a model, derive its training
// graph, print headline numbers, convert between formats.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli_util.h"
#include "frugal/base/file_io.h"
#include "model_args.h"
#include "frugal/graph/graph_json.h"
#include "frugal/graph/importer.h"
#include "frugal/graph/summary.h"
#include "frugal/graph/training.h"
#include "verbs.h"

namespace frugal::cli {
namespace {

struct GraphArgs {
  std::string model;
  std::string out;
  std::string format = "auto";
  std::optional<int64_t> batch;
  std::optional<int64_t> seq;
  std::vector<std::string> dims;  // NAME=VALUE
  bool train = false;
  std::string optimizer = "adam";
  std::string head = "auto";
  std::string precision;  // empty: an HF config's torch_dtype, else fp32
  bool json = false;
};

void AddModelOptions(CLI::App* cmd, GraphArgs* a) {
  cmd->add_option("MODEL", a->model, "ONNX model, HF config.json, dnn-partitioning or frugal JSON")
      ->required();
  cmd->add_option("--batch", a->batch, "Batch size (default: the model's, else 1)");
  cmd->add_option("--seq", a->seq, "Sequence length for HF configs (default: min(max positions, 1024))");
  cmd->add_option("--dim", a->dims,
                  "NAME=VALUE: value of the ONNX symbolic dim NAME (seq, height, ...); repeatable")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--format", a->format, "Input format: auto or one of `graph formats`");
  CLI::Option* train =
      cmd->add_flag("--train", a->train, "Derive the training step (backward + optimizer)");
  cmd->add_option("--optimizer", a->optimizer, "Optimizer for --train: sgd, momentum, adam, none")
      ->capture_default_str()
      ->needs(train);
  AddHeadOption(cmd, &a->head);
  AddPrecisionOption(cmd, &a->precision);
}

// Imports a.model and, with --train, derives the training graph. `forward`
// receives the forward graph.
Result<OpGraph> LoadGraph(const GraphArgs& a, OpGraph* forward, TrainingOptions* topts,
                          Precision* precision) {
  if (a.batch && *a.batch < 1) return InvalidArgument("--batch must be >= 1, got " + std::to_string(*a.batch));
  if (a.seq && *a.seq < 1) return InvalidArgument("--seq must be >= 1, got " + std::to_string(*a.seq));
  if (!ParseOptimizer(a.optimizer, &topts->optimizer)) {
    return InvalidArgument("unknown optimizer '" + a.optimizer +
                           "' (expected sgd, momentum, adam, none)");
  }
  ImportOptions opts;
  opts.batch = a.batch.value_or(0);
  opts.seq_len = a.seq.value_or(0);
  FRUGAL_ASSIGN_OR_RETURN(opts.dims, ParseDims(a.dims));
  FRUGAL_ASSIGN_OR_RETURN(opts.head, ParseHeadOption(a.head));
  FRUGAL_ASSIGN_OR_RETURN(const std::string contents, ReadFileToString(a.model));
  const std::string format = a.format == "auto" ? DetectFormat(a.model, contents) : a.format;
  // A flag that cannot apply to this kind of model is an error, not ignored.
  FRUGAL_RETURN_IF_ERROR(CheckFormatFlags(a.model, format, a.seq.has_value(), !opts.dims.empty(), opts.head));
  FRUGAL_ASSIGN_OR_RETURN(*forward, ImportGraphFromContents(a.model, contents, opts, a.format));
  if (a.batch && format != "onnx" && format != "hf" && *a.batch != forward->batch) {
    return InvalidArgument(
        forward->batch > 0
            ? fmt::format("{}: the graph was built for batch {}; --batch {} cannot rescale a {} graph", a.model,
                          forward->batch, *a.batch, format)
            : fmt::format("{}: the graph does not record its batch, so --batch {} cannot rescale it; leave "
                          "--batch out",
                          a.model, *a.batch));
  }
  std::vector<std::string> notes;
  bool native = false;
  FRUGAL_ASSIGN_OR_RETURN(*precision, ResolvePrecision(a.precision, a.model, forward->source_format,
                                                       contents, *forward, a.train, &notes, &native));
  PrintNotes(notes);
  if (*precision != Precision::kFp32 && !native) {
    if (forward->IsTraining()) {
      return InvalidArgument(a.model + ": --precision " + PrecisionName(*precision) +
                             ": the file holds a training graph with its own dtypes");
    }
    Result<OpGraph> h = ApplyPrecision(*forward, *precision);
    if (!h.ok()) return h.status().WithPrefix(a.model);
    *forward = std::move(h).value();
  }
  if (!a.train || forward->IsTraining()) return *forward;
  Result<OpGraph> t = BuildTrainingGraph(*forward, *topts);
  if (!t.ok()) return t.status().WithPrefix(a.model);
  return t;
}

int RunShow(const GraphArgs& a) {
  OpGraph forward;
  TrainingOptions topts;
  Precision precision = Precision::kFp32;
  Result<OpGraph> g = LoadGraph(a, &forward, &topts, &precision);
  if (!g.ok()) return ReportError(g.status());
  GraphSummary s = Summarize(*g, forward, topts, a.train);
  if (a.json) {
    nlohmann::json j = SummaryToJson(s);
    j["precision"] = PrecisionName(precision);
    PrintJson(j);
  } else {
    std::fputs(SummaryToText(s).c_str(), stdout);
    std::printf("  %-28s %s\n", "precision", PrecisionName(precision));
  }
  return 0;
}

int RunConvert(const GraphArgs& a) {
  OpGraph forward;
  TrainingOptions topts;
  Precision precision = Precision::kFp32;
  Result<OpGraph> g = LoadGraph(a, &forward, &topts, &precision);
  if (!g.ok()) return ReportError(g.status());
  Status st = WriteGraphJson(*g, a.out);
  if (!st.ok()) return ReportError(st);
  std::fprintf(stderr, "wrote %s: %d ops, %zu edges\n", a.out.c_str(), g->num_ops(),
               g->edges.size());
  return 0;
}

int RunFormats(bool json) { return PrintRegistry(Importers(), json); }

}  // namespace

void SetupGraph(CLI::App& sub, int* exit_code) {
  sub.require_subcommand(1);
  auto show_args = std::make_shared<GraphArgs>();
  CLI::App* show = sub.add_subcommand("show", "Op counts, parameters, FLOPs and memory of a model");
  AddModelOptions(show, show_args.get());
  show->add_flag("--json", show_args->json, "Machine-readable output");
  show->callback([show_args, exit_code] { *exit_code = RunShow(*show_args); });

  auto conv_args = std::make_shared<GraphArgs>();
  CLI::App* convert = sub.add_subcommand(
      "convert", "Import a model and write it as frugal graph JSON (lossless)");
  AddModelOptions(convert, conv_args.get());
  convert->add_option("OUT", conv_args->out, "Output .json path")->required();
  convert->callback([conv_args, exit_code] { *exit_code = RunConvert(*conv_args); });

  auto list_json = std::make_shared<bool>(false);
  CLI::App* formats = sub.add_subcommand("formats", "List the graph importers");
  formats->alias("list");
  formats->add_flag("--json", *list_json, "Machine-readable output");
  formats->callback([list_json, exit_code] { *exit_code = RunFormats(*list_json); });
}

}  // namespace frugal::cli
