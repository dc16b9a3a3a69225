#include "predict_generate.h"

#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "cli_util.h"
#include "frugal/base/file_io.h"
#include "frugal/base/units.h"
#include "frugal/graph/importer.h"
#include "frugal/plan/decode.h"
#include "frugal/plan/precision.h"
#include "frugal/plan/tensor_parallel.h"
#include "frugal/perf/iteration.h"
#include "gpu_note.h"

namespace frugal::cli {
namespace {

// The importer auto-detection picks (ImportGraph's order).
std::string Format(const std::string& path, const std::string& contents) {
  for (const auto& r : Importers()) {
    if (r.factory.detect(path, contents)) return r.name;
  }
  return "unknown";
}

Status CheckFlags(const ModelArgs& m, const GenerateArgs& g, const GenerateTarget& t) {
  const std::string u = kUsagePrefix;
  if (g.prompt == 0) return InvalidArgument(u + "--generate needs --prompt P");
  if (g.generate == 0) return InvalidArgument(u + "--prompt needs --generate G");
  if (!m.infer) {
    return InvalidArgument(u + "--prompt prices generation, an inference job: give --infer");
  }
  if (m.seq > 0) {
    return InvalidArgument(u + "--seq cannot go with --prompt (the prompt sets the sequence)");
  }
  if (m.batch == 0) return InvalidArgument(u + "--batch is required with --prompt");
  if (t.gpu.empty() && t.instance.empty()) {
    return InvalidArgument(u + "give --gpu NAME or --instance TYPE");
  }
  if (!m.dims.empty()) return InvalidArgument("--dim applies to ONNX models, not to --prompt");
  const PlanFlags& f = t.plan;
  const char* plan_flag = f.pp != 1             ? "--pp"
                          : f.dp > 1            ? "--dp"
                          : f.microbatches != 1 ? "--microbatches"
                          : f.grad_accum != 1   ? "--grad-accum"
                          : f.zero != 0         ? "--zero"
                          : f.fsdp              ? "--fsdp"
                          : f.checkpointing != "none" ? "--checkpointing"
                                                      : nullptr;
  if (plan_flag != nullptr) {
    return InvalidArgument(std::string(plan_flag) +
                           " applies to training plans; generation (--prompt) is priced on one "
                           "GPU");
  }
  if ((t.gpus > 0 && t.gpus != f.tp) || t.instances > 1) {
    return InvalidArgument(fmt::format(
        "--{} {}: generation runs on one tensor-parallel group of --tp {} GPU(s) in one "
        "instance",
        t.instances > 1 ? "instances" : "gpus", t.instances > 1 ? t.instances : t.gpus, f.tp));
  }
  return Status::Ok();
}

nlohmann::json ToJson(const ModelArgs& m, const GenerateArgs& g, const GenerateTarget& t,
                      const GpuSpec& gpu, const OpTimeModel& perf, Precision precision,
                      const DecodePrediction& r) {
  nlohmann::json samples = nlohmann::json::array();
  for (const DecodeStepTime& s : r.samples) {
    samples.push_back({{"cache_len", s.cache_len}, {"ms", s.ms}});
  }
  return {{"model", m.model},
          {"gpu", gpu.name},
          {"instance", t.instance},
          {"gpus", t.plan.tp},
          {"tp", t.plan.tp},
          {"format", "hf"},
          {"mode", "generation"},
          {"perf_model", perf.name()},
          {"precision", PrecisionName(precision)},
          {"batch", m.batch},
          {"prompt_len", g.prompt},
          {"generate_len", g.generate},
          {"prefill_ms", r.prefill_ms},
          {"ttft_ms", r.ttft_ms},
          {"decode_steps", r.decode_steps},
          {"decode_first_ms", r.decode_first_ms},
          {"decode_last_ms", r.decode_last_ms},
          {"decode_mean_ms", r.decode_mean_ms},
          {"decode_total_ms", r.decode_total_ms},
          {"total_ms", r.total_ms},
          {"tokens_per_s", r.tokens_per_s},
          {"decode_tokens_per_s", r.decode_tokens_per_s},
          {"kv_cache_bytes", r.kv_cache_bytes},
          {"kv_cache_bytes_per_token", r.kv_cache_bytes_per_token},
          {"weights_bytes", r.weights_bytes},
          {"prefill_memory_bytes", r.prefill_memory_bytes},
          {"decode_memory_bytes", r.decode_memory_bytes},
          {"memory_bytes", r.peak_memory_bytes},
          {"gpu_memory_bytes", r.gpu_memory_bytes},
          {"fits", r.fits},
          {"max_batch", r.max_batch},
          {"max_batch_capped", r.max_batch_capped},
          {"fallback_ops", r.fallback_ops},
          {"decode_samples", std::move(samples)}};
}

void PrintText(const OpGraph& name_graph, const ModelArgs& m, const GenerateArgs& g,
               const GenerateTarget& t, const GpuSpec& gpu, const OpTimeModel& perf,
               Precision precision, const DecodePrediction& r) {
  std::string s = fmt::format(
      "{} on {}{}, batch {}, prompt {} + {} generated tokens, {}, generation ({} model)\n",
      name_graph.name,
      t.plan.tp > 1 ? fmt::format("{} x {} (tensor parallel; memory per GPU)", t.plan.tp, gpu.name)
                    : gpu.name,
      t.instance.empty() ? "" : fmt::format(" (of {})", t.instance), m.batch, g.prompt, g.generate, PrecisionName(precision), perf.name());
  auto line = [&](const char* k, const std::string& v) {
    s += fmt::format("  {:<18} {}\n", k, v);
  };
  line("prefill (TTFT)", fmt::format("{:.2f} ms", r.prefill_ms));
  if (r.decode_steps > 0) {
    line("decode per token",
         fmt::format("{:.2f} ms at cache {}, {:.2f} ms at {}; mean {:.2f} ms over {} steps",
                     r.decode_first_ms, r.samples.front().cache_len, r.decode_last_ms,
                     r.samples.back().cache_len, r.decode_mean_ms, r.decode_steps));
  } else {
    line("decode per token", fmt::format("{:.2f} ms at cache {} (no step runs: G = 1)",
                                         r.decode_first_ms, r.samples.front().cache_len));
  }
  line("total", fmt::format("{:.2f} ms", r.total_ms));
  line("tokens/s", fmt::format("{:.1f} (decode alone {:.1f})", r.tokens_per_s,
                               r.decode_tokens_per_s));
  line("KV cache", fmt::format("{} at {} tokens x batch {} ({} per token per sequence)",
                               HumanBytes(static_cast<double>(r.kv_cache_bytes)),
                               g.prompt + g.generate, m.batch,
                               HumanBytes(static_cast<double>(r.kv_cache_bytes_per_token))));
  line("weights", HumanBytes(static_cast<double>(r.weights_bytes)));
  line("memory", fmt::format("{} of {} ({}; prefill {}, decode {})",
                             HumanBytes(static_cast<double>(r.peak_memory_bytes)),
                             HumanBytes(r.gpu_memory_bytes), r.fits ? "fits" : "does NOT fit",
                             HumanBytes(static_cast<double>(r.prefill_memory_bytes)),
                             HumanBytes(static_cast<double>(r.decode_memory_bytes))));
  line("largest batch", r.max_batch == 0 ? std::string("none fits")
                                         : fmt::format("{}{}", r.max_batch,
                                                       r.max_batch_capped ? " (search cap)" : ""));
  if (r.fallback_ops > 0) {
    line("note", fmt::format("{} ops of the prefill and a decode step have no measured op "
                             "type and use the roofline",
                             r.fallback_ops));
  }
  std::fputs(s.c_str(), stdout);
}

}  // namespace

int RunPredictGenerate(const ModelArgs& m, const GenerateArgs& g, const GenerateTarget& t) {
  if (Status st = CheckFlags(m, g, t); !st.ok()) return ReportError(st);
  Result<std::string> contents = ReadFileToString(m.model);
  if (!contents.ok()) return ReportError(contents.status());
  const std::string format = Format(m.model, *contents);
  if (format != "hf") {
    return ReportError(InvalidArgument(m.model + ": --prompt applies to HF decoder configs " +
                                       "(config.json), not " +
                                       (format == "unknown" ? "a file of unknown format"
                                                            : format + " models")));
  }
  if (!m.optimizer.empty()) {
    return ReportError(InvalidArgument(m.model + ": --optimizer applies to training steps, "
                                                 "not to --prompt"));
  }
  Result<ModelHead> head = ParseHeadOption(m.head);
  if (!head.ok()) return ReportError(head.status());
  if (*head != ModelHead::kAuto && *head != ModelHead::kLm) {
    return ReportError(InvalidArgument("--head " + m.head +
                                       ": generation samples tokens from the LM head (--head lm)"));
  }
  Result<Catalog> catalog = LoadCatalog(m.catalog.empty() ? DefaultCatalogPath() : m.catalog);
  if (!catalog.ok()) return ReportError(catalog.status());
  Result<std::unique_ptr<OpTimeModel>> perf = OpenOpTimeModel(m.perf_model);
  if (!perf.ok()) return ReportError(perf.status());
  const InstanceSpec* inst = nullptr;
  if (!t.instance.empty()) {
    auto i = catalog->LookupInstance(t.instance);
    if (!i.ok()) return ReportError(i.status());
    inst = *i;
  }
  std::string note;
  auto gpu = LookupGpuNoted(*catalog, t.gpu.empty() ? inst->gpu : t.gpu, &note);
  if (!gpu.ok()) return ReportError(gpu.status());
  if (inst != nullptr && catalog->FindGpu(inst->gpu) != *gpu) {
    return ReportError(InvalidArgument(
        fmt::format("--gpu {} differs from {}'s {}", t.gpu, inst->name, inst->gpu)));
  }
  // The precision: --precision, else the config's torch_dtype (inference:
  // the pure half type), else fp32.
  std::vector<std::string> notes;
  if (!note.empty()) notes.push_back(note);
  bool native = false;  // an HF config has no dtypes of its own
  Result<Precision> prec = ResolvePrecision(m.precision, m.model, "hf", *contents, OpGraph{}, false, &notes,
                                            &native);
  if (!prec.ok()) return ReportError(prec.status());
  std::string prec_note;
  if (Status st = CheckPrecisionSupported(**gpu, *prec, &prec_note); !st.ok()) {
    return ReportError(st);
  }
  if (!prec_note.empty()) notes.push_back(prec_note);
  const int tp = t.plan.tp;
  if (inst != nullptr && tp > inst->gpu_count) {
    return ReportError(InvalidArgument(fmt::format(
        "--tp {}: tensor parallelism needs its GPUs in one instance; {} has {}", tp, inst->name,
        inst->gpu_count)));
  }
  // Step graphs from the importer at that precision, split over the TP
  // group (the KV cache on its heads).
  const std::string path = m.model;
  const std::string text = *contents;
  const ModelHead h = *head;
  const Precision p = *prec;
  DecodeGraphFn build = [path, text, h, p, tp](int64_t batch, int64_t seq,
                                               int64_t past) -> Result<OpGraph> {
    ImportOptions o;
    o.batch = batch;
    o.seq_len = seq;
    o.kv_cache_len = past;
    o.head = h;
    FRUGAL_ASSIGN_OR_RETURN(OpGraph g, ImportGraphFromContents(path, text, o, "hf"));
    if (p != Precision::kFp32) {
      Result<OpGraph> cast = ApplyPrecision(g, p);
      if (!cast.ok()) return cast.status().WithPrefix(path);
      g = std::move(cast).value();
    }
    if (tp == 1) return g;
    Result<TensorParallelGraph> split = ShardTensorParallel(g, tp);
    if (!split.ok()) return split.status().WithPrefix(fmt::format("{}: --tp {}", path, tp));
    return std::move(split->graph);
  };
  DecodeOptions o;
  o.tp = tp;
  o.tp_links = LinksFor(**gpu, inst, 1);
  o.batch = m.batch;
  o.prompt_len = g.prompt;
  o.generate_len = g.generate;
  o.fused = m.fused;
  // (A model that cannot decode at all is left to PredictDecode to name.)
  if (Result<OpGraph> probe = build(1, 1, 1); probe.ok()) {
    bool lm = false;
    for (const Op& op : probe->ops) lm = lm || op.name == "lm_head";
    if (!lm) {
      return ReportError(InvalidArgument(
          m.model + ": its architectures class has no LM head to sample tokens from; give "
                    "--head lm to price generation with one"));
    }
  }
  Result<DecodePrediction> r = PredictDecode(build, **perf, **gpu, o);
  if (!r.ok()) return ReportError(r.status());
  Result<OpGraph> named = build(1, 1, 0);  // for the model's name
  PrintNotes(notes);
  if (m.json) {
    nlohmann::json j = ToJson(m, g, t, **gpu, **perf, p, *r);
    if (!notes.empty()) j["notes"] = notes;
    PrintJson(j);
  } else {
    PrintText(named.ok() ? *named : OpGraph(), m, g, t, **gpu, **perf, p, *r);
  }
  return 0;
}

}  // namespace frugal::cli
