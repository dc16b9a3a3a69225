// `frugal predict`: iteration time of a model on N data-parallel GPUs.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <numeric>

#include <fmt/format.h>

#include "cli_util.h"
#include "frugal/base/units.h"
#include "frugal/perf/iteration.h"
#include "frugal/plan/parallel.h"
#include "gpu_note.h"
#include "model_args.h"
#include "plan_args.h"
#include "predict_generate.h"
#include "verbs.h"

namespace frugal::cli {
namespace {

struct PredictArgs {
  ModelArgs model;
  std::string gpu;
  std::string instance;
  int gpus = 0;  // 0: one, or all GPUs of the instances
  int instances = 1;
  int top = 10;
  bool top_given = false;
  PlanFlags plan;
  GenerateArgs gen;  // --prompt / --generate: LLM generation (predict_generate.h)
};

nlohmann::json MemoryJson(const GpuMemory& m) {
  return {{"params", m.params},       {"grads", m.grads},
          {"optimizer", m.optimizer}, {"activations", m.activations},
          {"workspace", m.workspace}, {"total", m.total()}};
}

// Per GPU and optimizer step: the step's forward / backward / optimizer
// times of the slowest stage, n micro-batches of it.
struct PhaseTimes {
  double forward_ms = 0, backward_ms = 0, recompute_ms = 0;
};
PhaseTimes PhasesOf(const PlanPrediction& p) {
  PhaseTimes t;
  const int n = p.plan.microbatches * p.plan.grad_accum;
  for (const StageCost& st : p.stages) {
    if (st.MicroBatchMs() * n < (t.forward_ms + t.backward_ms + t.recompute_ms)) continue;
    t = {st.forward_ms * n, st.backward_ms * n, st.recompute_ms * n};
  }
  return t;
}

nlohmann::json ToJson(const PredictArgs& a, const LoadedModel& m, const GpuSpec& gpu,
                      const std::vector<OpTimePrediction>& op_times, const PlanPrediction& p) {
  nlohmann::json ops = nlohmann::json::array();
  int fallback = 0;
  for (size_t i = 0; i < op_times.size(); ++i) {
    const Op& op = m.s.step.ops[i];
    fallback += op_times[i].fallback ? 1 : 0;
    ops.push_back({{"name", op.name},
                   {"kind", OpKindName(op.kind)},
                   {"phase", PhaseName(op.phase)},
                   {"time_ms", op_times[i].time_ms},
                   {"fallback", op_times[i].fallback},
                   {"basis", op_times[i].basis}});
  }
  nlohmann::json stages = nlohmann::json::array();
  for (const StageCost& st : p.stages) {
    stages.push_back({{"first_block", st.first_block},
                      {"last_block", st.last_block},
                      {"ops", st.ops},
                      {"forward_ms", st.forward_ms},
                      {"backward_ms", st.backward_ms},
                      {"recompute_ms", st.recompute_ms},
                      {"tp_comm_ms", st.tp_comm_ms},
                      {"p2p_ms", st.p2p_ms},
                      {"optimizer_ms", st.optimizer_ms},
                      {"dp_comm_ms", st.dp_comm_ms},
                      {"memory", MemoryJson(st.memory)}});
  }
  const PhaseTimes ph = PhasesOf(p);
  const ParallelPlan& pl = p.plan;
  const int gpus = pl.gpus();
  return {{"model", a.model.model},
          {"gpu", gpu.name},
          {"instance", a.instance},
          {"gpus", gpus},
          {"format", m.s.format},
          {"batch_per_gpu", m.s.batch > 0 ? nlohmann::json(m.s.batch * pl.microbatches)
                                          : nlohmann::json()},
          {"micro_batch", m.s.batch > 0 ? nlohmann::json(m.s.batch) : nlohmann::json()},
          {"seq_len", m.s.forward.seq_len},
          {"mode", m.s.training ? "training" : "inference"},
          {"precision", PrecisionName(m.s.precision)},
          {"op_times", m.s.measured ? "measured" : "predicted"},
          {"perf_model", m.perf->name()},
          {"plan",
           {{"tp", pl.tp}, {"pp", pl.pp}, {"dp", pl.dp}, {"microbatches", pl.microbatches},
            {"grad_accum", pl.grad_accum}, {"zero", pl.zero},
            {"checkpointing", CheckpointingName(pl.checkpointing)},
            {"description", DescribePlan(pl)}}},
          {"iteration_ms", p.step_ms},
          {"forward_ms", ph.forward_ms},
          {"backward_ms", ph.backward_ms},
          {"recompute_ms", ph.recompute_ms},
          {"optimizer_ms", p.optimizer_ms},
          {"comm_ms", p.dp_comm_ms},
          {"comm_total_ms", p.dp_comm_total_ms},
          {"tp_comm_ms", p.tp_comm_ms},
          {"bubble_ms", p.bubble_ms},
          {"links", gpus > 1 ? p.links : ""},
          {"memory_bytes", p.memory.total()},
          {"memory", MemoryJson(p.memory)},
          {"reserved_bytes", p.reserved_bytes},
          {"gpu_memory_bytes", p.gpu_memory_bytes},
          {"fits", p.fits},
          {"samples_per_s", p.samples_per_s},
          {"tokens_per_s", p.tokens_per_s > 0 ? nlohmann::json(p.tokens_per_s) : nlohmann::json()},
          {"mfu", p.mfu},
          {"fallback_ops", fallback},
          {"stages", std::move(stages)},
          {"ops", std::move(ops)}};
}

void PrintText(const PredictArgs& a, const LoadedModel& m, const GpuSpec& gpu,
               const std::vector<OpTimePrediction>& op_times, const PlanPrediction& p) {
  const ParallelPlan& pl = p.plan;
  const int gpus = pl.gpus();
  const int64_t batch = m.s.batch * pl.microbatches;
  std::string s = fmt::format(
      "{} on {} x {}{}, {}, {} ({})\n", m.s.forward.name, gpus, gpu.name,
      a.instance.empty() ? "" : " (" + a.instance + ")",
      m.s.batch > 0 ? fmt::format("batch {} per {}", batch, pl.tp * pl.pp > 1 ? "replica" : "GPU")
                    : "batch as profiled",
      m.s.training ? "training" : "inference",
      m.s.measured ? "op times measured by the profile on a GPU the file does not name, "
                     "taken to be this one"
                   : std::string(m.perf->name()) + " model");
  auto line = [&](const char* k, const std::string& v) { s += fmt::format("  {:<16} {}\n", k, v); };
  line("precision", PrecisionName(m.s.precision));
  const bool parallel = pl.tp > 1 || pl.pp > 1 || pl.zero > 0 || pl.microbatches > 1 ||
                        pl.grad_accum > 1 || pl.checkpointing != Checkpointing::kNone;
  if (parallel) line("plan", DescribePlan(pl));
  const PhaseTimes ph = PhasesOf(p);
  line("iteration", fmt::format("{:.2f} ms", p.step_ms));
  line("forward", fmt::format("{:.2f} ms", ph.forward_ms));
  if (m.s.training) {
    line("backward", fmt::format("{:.2f} ms", ph.backward_ms));
    if (ph.recompute_ms > 0) line("recompute", fmt::format("{:.2f} ms", ph.recompute_ms));
    line("optimizer", fmt::format("{:.2f} ms", p.optimizer_ms));
    if (pl.dp > 1) {
      line("all-reduce", fmt::format("{:.2f} ms exposed of {:.2f} ms ({})", p.dp_comm_ms,
                                     p.dp_comm_total_ms, p.links));
    }
  }
  if (pl.tp > 1) line("TP all-reduce", fmt::format("{:.2f} ms (blocking)", p.tp_comm_ms));
  if (pl.pp > 1) {
    line("pipeline", fmt::format("{} stages, bubble {:.2f} ms ({:.0f}% of the step)", pl.pp,
                                 p.bubble_ms, 100 * p.bubble_ms / std::max(p.step_ms, 1e-12)));
  }
  const GpuMemory& mem = p.memory;
  line("memory per GPU",
       fmt::format("{} of {} ({})", HumanBytes(static_cast<double>(mem.total())),
                   HumanBytes(p.gpu_memory_bytes),
                   p.fits ? "fits" : "does NOT fit: try --zero, --checkpointing, --tp / --pp, or `frugal place`"));
  line("", fmt::format("params {} + grads {} + optimizer {} + activations {} + workspace {}; "
                       "{} reserved for the CUDA context and allocator",
                       HumanBytes(static_cast<double>(mem.params)),
                       HumanBytes(static_cast<double>(mem.grads)),
                       HumanBytes(static_cast<double>(mem.optimizer)),
                       HumanBytes(static_cast<double>(mem.activations)),
                       HumanBytes(static_cast<double>(mem.workspace)),
                       HumanBytes(p.reserved_bytes)));
  if (m.s.batch > 0 && !m.s.measured) {
    line("throughput", p.tokens_per_s > 0
                           ? fmt::format("{:.1f} samples/s, {:.0f} tokens/s", p.samples_per_s,
                                         p.tokens_per_s)
                           : fmt::format("{:.1f} samples/s", p.samples_per_s));
    if (p.mfu > 0) line("MFU", fmt::format("{:.1f}%", 100 * p.mfu));
  }
  int fallback = 0;
  for (const auto& t : op_times) fallback += t.fallback ? 1 : 0;
  if (fallback > 0) {
    line("note", fmt::format("{} ops have no measured op type and use the roofline", fallback));
  }
  std::vector<size_t> idx(op_times.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(),
                   [&](size_t x, size_t y) { return op_times[x].time_ms > op_times[y].time_ms; });
  s += fmt::format("  slowest ops{}:\n", pl.tp > 1 ? " (one GPU's share)" : "");
  for (int k = 0; k < a.top && k < static_cast<int>(idx.size()); ++k) {
    const Op& op = m.s.step.ops[idx[k]];
    s += fmt::format("    {:>9.3f} ms  {:<9} {:<10} {}{}\n", op_times[idx[k]].time_ms,
                     PhaseName(op.phase), OpKindName(op.kind), op.name,
                     op_times[idx[k]].fallback ? " (roofline)" : "");
  }
  std::fputs(s.c_str(), stdout);
}

int RunPredict(const PredictArgs& a) {
  if (a.gen.Requested()) {
    if (a.top_given) {
      return ReportError(InvalidArgument(
          "--top lists a step's slowest ops; generation (--prompt) reports phases, not ops"));
    }
    return RunPredictGenerate(a.model, a.gen, {a.gpu, a.instance, a.gpus, a.instances, a.plan});
  }
  if (a.gpu.empty() && a.instance.empty()) {
    return ReportUsage("give --gpu NAME or --instance TYPE");
  }
  if (a.instance.empty() && a.instances != 1) {
    return ReportUsage("--instances needs --instance TYPE");
  }
  // The step is one GPU's share of one micro-batch.
  const bool training = a.model.train || !a.model.infer;
  if (a.model.batch > 0 && a.model.batch % a.plan.microbatches != 0) {
    return ReportError(InvalidArgument(fmt::format(
        "--microbatches {} does not divide --batch {}", a.plan.microbatches, a.model.batch)));
  }
  ModelArgs micro = a.model;
  if (micro.batch > 0) micro.batch /= a.plan.microbatches;
  StepRequest request;
  request.tensor_parallel = a.plan.tp;
  Result<LoadedModel> m = LoadModel(micro, request);
  if (!m.ok()) return ReportError(m.status());
  if (a.plan.microbatches > 1 && !m->s.resizable) {
    return ReportError(InvalidArgument(fmt::format(
        "{}: --microbatches needs a model frugal can re-derive at a smaller batch (ONNX or "
        "HF); this {} graph's batch is fixed",
        a.model.model, m->s.format)));
  }
  const InstanceSpec* inst = nullptr;
  if (!a.instance.empty()) {
    auto i = m->catalog.LookupInstance(a.instance);
    if (!i.ok()) return ReportError(i.status());
    inst = *i;
  }
  std::string note;
  auto g = LookupGpuNoted(m->catalog, a.gpu.empty() ? inst->gpu : a.gpu, &note);
  if (!g.ok()) return ReportError(g.status());
  const GpuSpec& gpu = **g;
  if (Status st = CheckMeasuredGpu(m->s, a.model.model, gpu); !st.ok()) return ReportError(st);
  std::vector<std::string> notes = m->s.notes;
  std::string precision_note;
  if (Status st = CheckPrecisionSupported(gpu, m->s.precision, &precision_note); !st.ok()) {
    return ReportError(st);
  }
  if (!precision_note.empty()) notes.push_back(precision_note);
  if (inst != nullptr && m->catalog.FindGpu(inst->gpu) != &gpu) {
    return ReportError(InvalidArgument(fmt::format("--gpu {} differs from {}'s {}", a.gpu,
                                                   inst->name, inst->gpu)));
  }
  // Without --gpus / --dp, all GPUs of the instances, split as the plan says.
  const int all = a.gpus > 0 ? a.gpus
                  : a.plan.dp == 0 && inst != nullptr ? inst->gpu_count * a.instances
                                                      : 0;
  Result<ParallelPlan> plan = ResolvePlan(a.plan, all, training, a.model.batch);
  if (!plan.ok()) return ReportError(plan.status());
  const int gpus = plan->gpus();
  if (inst != nullptr && gpus > inst->gpu_count * a.instances) {
    return ReportError(InvalidArgument(fmt::format(
        "--gpus {} exceeds the {} GPUs of {} x {}", gpus, inst->gpu_count * a.instances,
        a.instances, inst->name)));
  }
  Result<std::vector<OpTimePrediction>> times =
      PredictOps(*m->perf, m->s.step, gpu, a.model.fused);
  if (!times.ok()) return ReportError(times.status().WithPrefix(a.model.model));
  PlanInputs in;
  in.step = &m->s.step;
  in.op_times = &*times;
  in.memory = &m->s.memory;
  in.tp_all_reduces = m->s.tp_all_reduces;
  in.micro_batch = std::max<int64_t>(m->s.batch, 1);
  in.seq_len = m->s.forward.seq_len;
  in.model_forward_flops = m->s.model_forward_flops;
  PlanOptions po;
  po.links = LinksFor(gpu, inst, a.instances);
  po.gpus_per_instance = inst != nullptr ? inst->gpu_count : 0;
  po.peak_tflops = PeakTflops(gpu, m->s.precision).value_or(0);
  Result<PlanPrediction> p = PricePlan(in, gpu, *plan, po);
  if (!p.ok()) {
    return ReportError(p.status().WithPrefix(
        a.model.model + (plan->pp > 1 ? fmt::format(": --pp {}", plan->pp) : "")));
  }
  PrintNote(note);
  PrintNotes(notes);
  if (a.model.json) {
    nlohmann::json j = ToJson(a, *m, gpu, *times, *p);
    if (!note.empty()) j["notes"].push_back(note);
    for (const std::string& n : notes) j["notes"].push_back(n);
    PrintJson(j);
  } else {
    PrintText(a, *m, gpu, *times, *p);
  }
  return 0;
}

}  // namespace

void SetupPredict(CLI::App& sub, int* exit_code) {
  auto a = std::make_shared<PredictArgs>();
  AddModelArgs(&sub, &a->model);
  sub.add_option("--gpu", a->gpu, "Catalog GPU (see `catalog list --gpus`)");
  sub.add_option("--instance", a->instance, "Cloud instance type (sets the GPU and links)");
  sub.add_option("--instances", a->instances, "Number of instances")
      ->capture_default_str()
      ->check(IntIn(1, 4096));
  sub.add_option("--gpus", a->gpus, "GPUs in all, TP x PP x DP (default: 1, or all GPUs "
                                    "of the instances)")
      ->check(IntIn(1, 65536));
  CLI::Option* top = sub.add_option("--top", a->top, "Slowest ops to list")
                         ->capture_default_str()
                         ->check(IntIn(0, 1000000));
  AddPlanFlags(&sub, &a->plan);
  sub.add_option("--prompt", a->gen.prompt,
                 "LLM generation (with --infer and --generate): prompt tokens per sequence")
      ->check(IntIn(1, int64_t{1} << 24));
  sub.add_option("--generate", a->gen.generate,
                 "Tokens generated per sequence after the prompt (with --prompt)")
      ->check(IntIn(1, int64_t{1} << 24));
  sub.callback([a, exit_code, top] {
    a->top_given = top->count() > 0;
    *exit_code = RunPredict(*a);
  });
}

}  // namespace frugal::cli
