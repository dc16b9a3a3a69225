#include "model_args.h"

#include "frugal/graph/importer.h"

namespace frugal::cli {

void AddModelArgs(CLI::App* cmd, ModelArgs* a) {
  cmd->add_option("MODEL", a->model, "ONNX model, HF config.json or frugal / profiled JSON")
      ->required();
  cmd->add_option("--batch", a->batch, "Batch per GPU (as PyTorch DDP)")->required();
  cmd->add_option("--seq", a->seq, "Sequence length for HF configs");
  CLI::Option* infer =
      cmd->add_flag("--infer", a->infer, "Price inference (forward only) instead of training");
  CLI::Option* train = cmd->add_flag("--train", a->train, "Price a training step (the default)");
  infer->excludes(train);
  cmd->add_option("--optimizer", a->optimizer, "sgd, momentum, adam, or none (forward and backward only)")->capture_default_str();
  AddHeadOption(cmd, &a->head);
  cmd->add_flag("--fused", a->fused,
                "Price a compiled model (torch.compile): chains of elementwise, "
                "normalisation and copy ops between GEMMs run as one kernel each");
  cmd->add_option("--catalog", a->catalog, "Catalog folder or JSON file (default: bundled)");
  cmd->add_option("--perf-model", a->perf_model,
                  "Op-time model: a file from `perf train`, or roofline / ceer / learned "
                  "(default: the bundled learned model)");
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

Result<LoadedModel> LoadModel(const ModelArgs& a) {
  if (a.batch < 1) return InvalidArgument("--batch must be >= 1, got " + std::to_string(a.batch));
  if (a.seq == 0 || a.seq < -1) {
    return InvalidArgument("--seq must be >= 1, got " + std::to_string(a.seq));
  }
  TrainingOptions topts;
  if (!ParseOptimizer(a.optimizer, &topts.optimizer)) {
    return InvalidArgument("unknown optimizer '" + a.optimizer + "' (expected sgd, momentum, adam, none)");
  }
  LoadedModel m;
  ImportOptions io;
  io.batch = a.batch;
  io.seq_len = a.seq > 0 ? a.seq : 0;
  FRUGAL_ASSIGN_OR_RETURN(io.head, ParseHeadOption(a.head));
  FRUGAL_ASSIGN_OR_RETURN(m.forward, ImportGraph(a.model, io));
  if (m.forward.IsTraining()) {
    m.step = m.forward;
  } else if (a.infer) {
    m.step = InferenceGraph(m.forward);
  } else {
    Result<OpGraph> t = BuildTrainingGraph(m.forward, topts);
    if (!t.ok()) return t.status().WithPrefix(a.model);
    m.step = std::move(t).value();
  }
  m.memory = EstimateMemory(m.forward, topts);
  m.step_memory_bytes = a.infer ? m.memory.inference_bytes : m.memory.training_bytes;
  FRUGAL_ASSIGN_OR_RETURN(m.catalog,
                          LoadCatalog(a.catalog.empty() ? DefaultCatalogPath() : a.catalog));
  FRUGAL_ASSIGN_OR_RETURN(m.perf, OpenOpTimeModel(a.perf_model));
  return m;
}

}  // namespace frugal::cli
