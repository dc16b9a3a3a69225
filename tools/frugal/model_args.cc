#include "model_args.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "frugal/base/file_io.h"
#include "frugal/graph/importer.h"

namespace frugal::cli {
namespace {

constexpr int64_t kMaxDim = int64_t{1} << 24;

bool HasMeasuredTimes(const OpGraph& g) {
  return std::any_of(g.ops.begin(), g.ops.end(), [](const Op& op) {
    return op.measured_time_ms >= 0 && op.kind == OpKind::kProfiled;
  });
}

// The optimizer a training graph from a file was built with: its update ops
// name it ("none" when it has none).
std::string GraphOptimizer(const OpGraph& g) {
  for (const Op& op : g.ops) {
    if (op.phase == Phase::kOptimizer) return op.type;
  }
  return "none";
}

// The forward ops of a training graph and the edges among them.
OpGraph ForwardPart(const OpGraph& g) {
  OpGraph f = g;
  f.ops.clear();
  f.edges.clear();
  std::vector<int> index(g.ops.size(), -1);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (g.ops[i].phase == Phase::kForward) index[i] = f.AddOp(g.ops[i]);
  }
  for (const Edge& e : g.edges) {
    if (index[e.src] < 0 || index[e.dst] < 0) continue;
    Edge c = e;
    c.src = index[e.src];
    c.dst = index[e.dst];
    f.edges.push_back(std::move(c));
  }
  return f;
}

Status Usage(const std::string& m) { return InvalidArgument(std::string(kUsagePrefix) + m); }

}  // namespace

std::string DetectFormat(const std::string& path, const std::string& contents) {
  for (const auto& r : Importers()) {
    if (r.factory.detect(path, contents)) return r.name;
  }
  return "auto";  // the importer reports why
}

Status CheckFormatFlags(const std::string& path, const std::string& format, bool seq, bool dims,
                        ModelHead head) {
  if (format != "hf" && seq) {
    return InvalidArgument(path + ": --seq applies to HF configs" +
                           (format == "onnx" ? "; set an ONNX model's symbolic dims with "
                                               "--dim NAME=VALUE"
                                             : "; this graph's sizes are fixed"));
  }
  if (format != "onnx" && dims) {
    return InvalidArgument(path + ": --dim applies to ONNX models' symbolic dims" +
                           (format == "hf" ? "; an HF config takes --seq" : ""));
  }
  if (format != "hf" && head != ModelHead::kAuto) {
    return InvalidArgument(path + ": --head applies to HF configs");
  }
  return Status::Ok();
}

void AddStepArgs(CLI::App* cmd, ModelArgs* a, const std::string& positional, bool required) {
  CLI::Option* model = cmd->add_option(
      positional, a->model, "ONNX model, HF config.json, frugal graph JSON or profiled JSON");
  if (required) model->required();
  cmd->add_option("--batch", a->batch,
                  "Batch per GPU (as PyTorch DDP); sets only the symbolic batch dim of an "
                  "ONNX model's data inputs")
      ->check(IntIn(1, kMaxDim));
  cmd->add_option("--seq", a->seq, "Sequence length of an HF config")->check(IntIn(1, kMaxDim));
  cmd->add_option("--dim", a->dims,
                  "NAME=VALUE: a named symbolic dim of an ONNX model (seq, height, ...); "
                  "repeatable");
  CLI::Option* infer =
      cmd->add_flag("--infer", a->infer, "Price inference (forward only)");
  CLI::Option* train = cmd->add_flag("--train", a->train, "Price a training step");
  infer->excludes(train);
  cmd->add_option("--optimizer", a->optimizer,
                  "sgd, momentum, adam, or none (forward and backward only); default adam");
  AddHeadOption(cmd, &a->head);
  AddPrecisionOption(cmd, &a->precision);
}

void AddPrecisionOption(CLI::App* cmd, std::string* precision) {
  cmd->add_option("--precision", *precision,
                  "fp32, tf32, fp16, bf16, amp-fp16 or amp-bf16 (torch.autocast); default: an "
                  "HF config's torch_dtype, else fp32");
}

Result<Precision> ResolvePrecision(const std::string& flag, const std::string& path,
                                   const std::string& format,
                                   const std::string& contents, const OpGraph& graph,
                                   bool training, std::vector<std::string>* notes,
                                   bool* native) {
  *native = false;
  Precision p = Precision::kFp32;
  if (!flag.empty() && !ParsePrecision(flag, &p)) {
    return Usage("unknown --precision '" + flag + "' (expected " + PrecisionList() + ")");
  }
  if (format != "hf") {
    Result<Precision> graph_precision = GraphPrecision(graph);
    if (!graph_precision.ok()) return graph_precision.status().WithPrefix(path);
    const Precision own = *graph_precision;
    if (own != Precision::kFp32) {
      if (!flag.empty() && p != own) {
        return InvalidArgument(fmt::format(
            "{}: --precision {}: the model's tensors are {} already (exported or converted so); "
            "give the fp32 model to price another precision",
            path, flag, PrecisionName(own)));
      }
      *native = true;
      if (flag.empty()) {
        notes->push_back(fmt::format("precision {} from the model's own dtypes", PrecisionName(own)));
      }
      return own;
    }
  }
  if (!flag.empty()) return p;
  if (format != "hf") return p;
  const nlohmann::json j = nlohmann::json::parse(contents, nullptr, false);
  if (!j.is_object() || !j.contains("torch_dtype") || !j["torch_dtype"].is_string()) return p;
  const std::string dtype = j["torch_dtype"].get<std::string>();
  std::optional<Precision> d = PrecisionForTorchDtype(dtype, training);
  if (!d || *d == Precision::kFp32) return p;
  notes->push_back(fmt::format("precision {} from the config's torch_dtype {}{} (--precision "
                               "overrides)",
                               PrecisionName(*d), dtype,
                               training ? ", as HF Trainer's mixed precision" : ""));
  return *d;
}

void PrintNotes(const std::vector<std::string>& notes) {
  for (const std::string& n : notes) std::fprintf(stderr, "frugal: note: %s\n", n.c_str());
}

void AddModelArgs(CLI::App* cmd, ModelArgs* a) {
  AddStepArgs(cmd, a, "MODEL", true);
  cmd->add_flag("--fused", a->fused,
                "Price a compiled model (torch.compile): chains of elementwise, "
                "normalisation and copy ops between GEMMs run as one kernel each");
  cmd->add_option("--catalog", a->catalog, "Catalog folder or JSON file (default: bundled)");
  cmd->add_option("--perf-model", a->perf_model,
                  "Op-time model: a file from `perf train`, or roofline / ceer / learned / "
                  "efficiency (default: the bundled efficiency model)");
  cmd->add_flag("--json", a->json, "Machine-readable output");
}

void AddHeadOption(CLI::App* cmd, std::string* head) {
  cmd->add_option("--head", *head,
                  "Task head of an HF config: auto (from its architectures class), lm, "
                  "seq-cls or base")
      ->capture_default_str();
}

Result<ModelHead> ParseHeadOption(const std::string& head) {
  ModelHead h;
  if (!ParseModelHead(head, &h)) {
    return InvalidArgument("unknown --head '" + head + "' (expected auto, lm, seq-cls, base)");
  }
  return h;
}

Result<std::map<std::string, int64_t>> ParseDims(const std::vector<std::string>& dims) {
  std::map<std::string, int64_t> out;
  for (const std::string& d : dims) {
    const size_t eq = d.find('=');
    const std::string name = eq == std::string::npos ? "" : d.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : d.substr(eq + 1);
    if (name.empty() || value.empty()) {
      return InvalidArgument("--dim '" + d + "': expected NAME=VALUE (e.g. --dim seq=128)");
    }
    int64_t v = 0;
    size_t used = 0;
    try {
      v = std::stoll(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != value.size() || v < 1 || v > kMaxDim) {
      return InvalidArgument(fmt::format("--dim {}: value must be an integer in [1, {}], got '{}'",
                                         name, kMaxDim, value));
    }
    if (!out.emplace(name, v).second) {
      return InvalidArgument("--dim " + name + " is given twice");
    }
  }
  return out;
}

Result<LoadedStep> LoadStep(const ModelArgs& a, const StepRequest& request) {
  const std::string& path = a.model;
  TrainingOptions topts;
  if (!a.optimizer.empty() && !ParseOptimizer(a.optimizer, &topts.optimizer)) {
    return InvalidArgument("unknown optimizer '" + a.optimizer +
                           "' (expected sgd, momentum, adam, none)");
  }
  FRUGAL_ASSIGN_OR_RETURN(ModelHead head, ParseHeadOption(a.head));
  FRUGAL_ASSIGN_OR_RETURN(auto dims, ParseDims(a.dims));
  FRUGAL_ASSIGN_OR_RETURN(std::string contents, ReadFileToString(path));
  LoadedStep s;
  s.format = DetectFormat(path, contents);
  s.resizable = s.format == "onnx" || s.format == "hf";
  // Flags that only one kind of model takes.
  if (s.resizable && a.batch == 0 && request.batch_required) {
    return Usage(path + ": --batch is required for ONNX and HF models");
  }
  FRUGAL_RETURN_IF_ERROR(CheckFormatFlags(path, s.format, a.seq > 0, !dims.empty(), head));
  ImportOptions io;
  io.batch = s.resizable ? a.batch : 0;
  io.seq_len = a.seq;
  io.head = head;
  io.dims = std::move(dims);
  FRUGAL_ASSIGN_OR_RETURN(s.forward, ImportGraphFromContents(path, contents, io, s.format));
  const OpGraph& g = s.forward;
  s.measured = HasMeasuredTimes(g);
  s.batch = s.resizable ? (a.batch > 0 ? a.batch : g.batch) : g.batch;
  if (!s.resizable && a.batch > 0 && a.batch != g.batch) {
    return InvalidArgument(
        g.batch > 0
            ? fmt::format("{}: the graph was built for batch {}; --batch {} cannot rescale a "
                          "{} graph (convert the source model again with --batch {})",
                          path, g.batch, a.batch, s.format, a.batch)
            : fmt::format("{}: the graph does not record the batch its {} were taken at, so "
                          "--batch {} cannot rescale it; leave --batch out",
                          path, s.measured ? "measured times" : "sizes", a.batch));
  }
  // The mode.
  s.training = a.train || (!a.infer && (request.train_by_default || g.IsTraining()));
  bool native = false;
  FRUGAL_ASSIGN_OR_RETURN(s.precision, ResolvePrecision(a.precision, path, s.format, contents, g,
                                                        s.training, &s.notes, &native));
  if (s.precision != Precision::kFp32 && !native) {
    if (g.IsTraining()) {
      return InvalidArgument(fmt::format(
          "{}: --precision {}: the file holds a training graph with its own dtypes; give the "
          "forward graph or the source model",
          path, PrecisionName(s.precision)));
    }
    Result<OpGraph> h = ApplyPrecision(g, s.precision);
    if (!h.ok()) return h.status().WithPrefix(path);
    s.forward = std::move(h).value();
  }
  for (const Op& op : g.ops) s.model_forward_flops += op.phase == Phase::kForward ? op.flops : 0;
  OpGraph split;
  if (request.tensor_parallel > 1) {
    if (g.IsTraining()) {
      return InvalidArgument(fmt::format(
          "{}: --tp {} splits a forward graph; this file holds a training graph", path,
          request.tensor_parallel));
    }
    Result<TensorParallelGraph> tp = ShardTensorParallel(g, request.tensor_parallel);
    if (!tp.ok()) {
      return tp.status().WithPrefix(fmt::format("{}: --tp {}", path, request.tensor_parallel));
    }
    s.tp_all_reduces = std::move(tp->all_reduces);
    split = std::move(tp->graph);
  }
  const OpGraph& fwd = request.tensor_parallel > 1 ? split : g;
  if (g.IsTraining()) {
    const std::string built = GraphOptimizer(g);
    if (s.training && !a.optimizer.empty() && a.optimizer != built) {
      return InvalidArgument(fmt::format(
          "{}: the training graph was built with optimizer {}; --optimizer {} cannot change it",
          path, built, a.optimizer));
    }
    if (s.training) {
      s.step = g;
    } else if (s.measured) {
      return InvalidArgument(path + ": a profiled training graph: its measured sizes are a "
                             "training step's, so --infer cannot be priced from it (use the "
                             "profiled inference graph)");
    } else {
      s.step = InferenceGraph(ForwardPart(g));
    }
  } else if (s.training) {
    Result<OpGraph> t = BuildTrainingGraph(fwd, topts);
    if (!t.ok()) return t.status().WithPrefix(path);
    s.step = std::move(t).value();
  } else {
    s.step = InferenceGraph(fwd);
  }
  if (!s.training && !a.optimizer.empty()) {
    return InvalidArgument(path +
                           ": --optimizer applies to training steps (give --train, not --infer)");
  }
  s.memory = EstimateStepMemory(s.step);
  return s;
}

Result<LoadedModel> LoadModel(const ModelArgs& a, const StepRequest& request) {
  LoadedModel m;
  FRUGAL_ASSIGN_OR_RETURN(m.s, LoadStep(a, request));
  if (m.s.measured && a.fused) {
    return InvalidArgument(a.model + ": --fused cannot apply to op times measured by a "
                           "profile (its ops have no kinds to fuse)");
  }
  FRUGAL_ASSIGN_OR_RETURN(m.catalog,
                          LoadCatalog(a.catalog.empty() ? DefaultCatalogPath() : a.catalog));
  FRUGAL_ASSIGN_OR_RETURN(m.perf, OpenOpTimeModel(a.perf_model));
  return m;
}

Status CheckMeasuredGpu(const LoadedStep& s, const std::string& path, const GpuSpec& gpu) {
  if (!s.measured || s.forward.device_mem_bytes <= 0) return Status::Ok();
  const double gib = s.forward.device_mem_bytes / (1024.0 * 1024 * 1024);
  if (std::fabs(gpu.mem_gib - gib) > 0.05 * gib) {
    return InvalidArgument(fmt::format(
        "{}: its op times were measured on a GPU with {:.1f} GiB (the file does not name it) "
        "and its profiled ops cannot be re-priced; --gpu {} has {:.1f} GiB",
        path, gib, gpu.name, gpu.mem_gib));
  }
  return Status::Ok();
}

}  // namespace frugal::cli
