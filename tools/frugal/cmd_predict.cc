// `frugal predict`: iteration time of a model on N data-parallel GPUs.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <numeric>

#include <fmt/format.h>

#include "cli_util.h"
#include "frugal/base/units.h"
#include "frugal/perf/iteration.h"
#include "gpu_note.h"
#include "model_args.h"
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
};

nlohmann::json ToJson(const PredictArgs& a, const LoadedModel& m, const GpuSpec& gpu,
                      int gpus, const IterationOptions& io, const IterationPrediction& p) {
  nlohmann::json ops = nlohmann::json::array();
  for (size_t i = 0; i < p.ops.size(); ++i) {
    const Op& op = m.s.step.ops[i];
    ops.push_back({{"name", op.name},
                   {"kind", OpKindName(op.kind)},
                   {"phase", PhaseName(op.phase)},
                   {"time_ms", p.ops[i].time_ms},
                   {"fallback", p.ops[i].fallback},
                   {"basis", p.ops[i].basis}});
  }
  return {{"model", a.model.model},
          {"gpu", gpu.name},
          {"instance", a.instance},
          {"gpus", gpus},
          {"format", m.s.format},
          {"batch_per_gpu", m.s.batch > 0 ? nlohmann::json(m.s.batch) : nlohmann::json()},
          {"seq_len", m.s.forward.seq_len},
          {"mode", m.s.training ? "training" : "inference"},
          {"precision", PrecisionName(m.s.precision)},
          {"op_times", m.s.measured ? "measured" : "predicted"},
          {"perf_model", m.perf->name()},
          {"iteration_ms", p.iteration_ms},
          {"forward_ms", p.forward_ms},
          {"backward_ms", p.backward_ms},
          {"optimizer_ms", p.optimizer_ms},
          {"comm_ms", p.comm_ms},
          {"comm_total_ms", p.comm_total_ms},
          {"links", gpus > 1 ? io.links.description : ""},
          {"memory_bytes", p.memory_bytes},
          {"gpu_memory_bytes", p.gpu_memory_bytes},
          {"fits", p.fits},
          {"fallback_ops", p.fallback_ops},
          {"ops", std::move(ops)}};
}

void PrintText(const PredictArgs& a, const LoadedModel& m, const GpuSpec& gpu, int gpus,
               const IterationOptions& io, const IterationPrediction& p) {
  std::string s = fmt::format(
      "{} on {} x {}{}, {}, {} ({})\n", m.s.forward.name, gpus, gpu.name,
      a.instance.empty() ? "" : " (" + a.instance + ")",
      m.s.batch > 0 ? fmt::format("batch {} per GPU", m.s.batch) : "batch as profiled",
      m.s.training ? "training" : "inference",
      m.s.measured ? "op times measured by the profile on a GPU the file does not name, "
                     "taken to be this one"
                   : std::string(m.perf->name()) + " model");
  auto line = [&](const char* k, const std::string& v) { s += fmt::format("  {:<16} {}\n", k, v); };
  line("precision", PrecisionName(m.s.precision));
  line("iteration", fmt::format("{:.2f} ms", p.iteration_ms));
  line("forward", fmt::format("{:.2f} ms", p.forward_ms));
  if (m.s.training) {
    line("backward", fmt::format("{:.2f} ms", p.backward_ms));
    line("optimizer", fmt::format("{:.2f} ms", p.optimizer_ms));
    if (gpus > 1) {
      line("all-reduce", fmt::format("{:.2f} ms exposed of {:.2f} ms ({})", p.comm_ms,
                                     p.comm_total_ms, io.links.description));
    }
  }
  line("memory per GPU", fmt::format("{} of {} ({})", HumanBytes(static_cast<double>(p.memory_bytes)),
                                     HumanBytes(p.gpu_memory_bytes),
                                     p.fits ? "fits" : "does NOT fit: see `frugal place`"));
  if (p.fallback_ops > 0) {
    line("note", fmt::format("{} ops have no measured op type and use the roofline",
                             p.fallback_ops));
  }
  std::vector<size_t> idx(p.ops.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(),
                   [&](size_t x, size_t y) { return p.ops[x].time_ms > p.ops[y].time_ms; });
  s += fmt::format("  slowest ops:\n");
  for (int k = 0; k < a.top && k < static_cast<int>(idx.size()); ++k) {
    const Op& op = m.s.step.ops[idx[k]];
    s += fmt::format("    {:>9.3f} ms  {:<9} {:<10} {}{}\n", p.ops[idx[k]].time_ms,
                     PhaseName(op.phase), OpKindName(op.kind), op.name,
                     p.ops[idx[k]].fallback ? " (roofline)" : "");
  }
  std::fputs(s.c_str(), stdout);
}

int RunPredict(const PredictArgs& a) {
  if (a.gpu.empty() && a.instance.empty()) {
    return ReportUsage("give --gpu NAME or --instance TYPE");
  }
  if (a.instance.empty() && a.instances != 1) {
    return ReportUsage("--instances needs --instance TYPE");
  }
  Result<LoadedModel> m = LoadModel(a.model);
  if (!m.ok()) return ReportError(m.status());
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
  int gpus = a.gpus > 0 ? a.gpus : (inst != nullptr ? inst->gpu_count * a.instances : 1);
  if (inst != nullptr && gpus > inst->gpu_count * a.instances) {
    return ReportError(InvalidArgument(fmt::format(
        "--gpus {} exceeds the {} GPUs of {} x {}", gpus, inst->gpu_count * a.instances,
        a.instances, inst->name)));
  }
  IterationOptions io;
  io.gpus = gpus;
  io.fused = a.model.fused;
  io.links = LinksFor(gpu, inst, a.instances);
  Result<IterationPrediction> p =
      PredictIteration(*m->perf, m->s.step, m->s.memory.total_bytes, gpu, io);
  if (!p.ok()) return ReportError(p.status().WithPrefix(a.model.model));
  PrintNote(note);
  PrintNotes(notes);
  if (a.model.json) {
    nlohmann::json j = ToJson(a, *m, gpu, gpus, io, *p);
    if (!note.empty()) j["notes"].push_back(note);
    for (const std::string& n : notes) j["notes"].push_back(n);
    PrintJson(j);
  } else {
    PrintText(a, *m, gpu, gpus, io, *p);
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
  sub.add_option("--gpus", a->gpus, "Data-parallel GPUs in all (default: 1, or all GPUs "
                                    "of the instances)")
      ->check(IntIn(1, 65536));
  sub.add_option("--top", a->top, "Slowest ops to list")
      ->capture_default_str()
      ->check(IntIn(0, 1000000));
  sub.callback([a, exit_code] { *exit_code = RunPredict(*a); });
}

}  // namespace frugal::cli
