// `frugal place GRAPH --gpus K ...`: op-level placement and scheduling across
// GPUs (Pesto). Runs the chosen methods, scores every one with the same
// simulator, prints makespan beside the lower bound, and writes the best
// placement (placement.json) and its Chrome trace.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli_util.h"
#include "gpu_note.h"
#include "frugal/graph/importer.h"
#include "frugal/graph/modules.h"
#include "frugal/hw/catalog.h"
#include "frugal/perf/iteration.h"
#include "frugal/place/bounds.h"
#include "frugal/place/chrome_trace.h"
#include "frugal/place/colocation.h"
#include "frugal/place/device_map.h"
#include "frugal/place/microbatch.h"
#include "frugal/place/placement_json.h"
#include "frugal/place/placer.h"
#include "frugal/place/topology.h"
#include "model_args.h"
#include "verbs.h"

namespace frugal::cli {
namespace {

using place::PlaceOptions;
using place::PlaceOutcome;
using place::SolveStatus;

struct PlaceArgs {
  ModelArgs model;  // GRAPH, sizes and mode; model.perf_model for --gpu
  int gpus = 0;
  std::string topology = "nvlink";
  double mem_gb = -1;
  bool mem_given = false;
  std::string gpu;
  double time_limit_s = 60;
  std::string method = "all";
  std::string granularity;  // "" = DefaultGranularity
  int microbatches = 1;
  std::string out;
  std::string trace;
  bool json = false;
  uint64_t seed = 1;
  int threads = 1;
};

// Ops without a measured time get Ceer's prediction on the catalog GPU
// (the op-time model of `--perf-model`, by default the bundled learned
// model), written into the graph as their time.
Status PredictOpTimes(OpGraph& g, const GpuSpec& gpu, const std::string& perf_model) {
  FRUGAL_ASSIGN_OR_RETURN(std::unique_ptr<OpTimeModel> model, OpenOpTimeModel(perf_model));
  FRUGAL_ASSIGN_OR_RETURN(std::vector<OpTimePrediction> times, PredictOps(*model, g, gpu));
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (g.ops[i].measured_time_ms < 0) g.ops[i].measured_time_ms = times[i].time_ms;
  }
  return Status::Ok();
}

bool NeedsOpTimes(const OpGraph& g) {
  return std::any_of(g.ops.begin(), g.ops.end(),
                     [](const Op& op) { return op.measured_time_ms < 0; });
}

int ListMethods(bool json) { return PrintRegistry(place::Placers(), json); }

struct MethodRun {
  std::string name;
  PlaceOutcome outcome;
  place::SimResult sim;
  double seconds = 0;
};

struct LoadedProblem {
  LoadedStep step;
  place::PlacementProblem problem;
  place::Granularity granularity = place::Granularity::kOp;
  int groups = 0;  // colocation groups of two ops or more
  // Micro-batched: per op of the problem, the op of step.step it copies.
  std::vector<int> source;
  ModuleMap modules;  // step.step's
};

// Per op of the step graph, the GPU of (its first copy in) the problem.
std::vector<int> StepDevices(const LoadedProblem& lp, const std::vector<int>& device) {
  if (lp.source.empty()) return device;
  std::vector<int> out(lp.step.step.num_ops(), 0);
  for (int u = static_cast<int>(lp.source.size()) - 1; u >= 0; --u) out[lp.source[u]] = device[u];
  return out;
}

// The simulated times of the step graph's ops: micro-batch 0's copies.
place::SimResult StepSim(const LoadedProblem& lp, const place::SimResult& sim) {
  if (lp.source.empty()) return sim;
  place::SimResult out = sim;
  out.ops.assign(lp.step.step.num_ops(), {});
  for (int u = static_cast<int>(lp.source.size()) - 1; u >= 0; --u) {
    out.ops[lp.source[u]] = sim.ops[u];
  }
  return out;
}

// The step is priced with the one memory model predict uses
// (EstimateStepMemory); a GPU taken from the catalog keeps the framework's
// reserve free, as predict's fit check does.
Result<LoadedProblem> LoadProblem(const PlaceArgs& a) {
  const std::string& path = a.model.model;
  ModelArgs model = a.model;
  if (a.microbatches > 1) {
    if (model.batch <= 0) {
      return InvalidArgument(path + ": --microbatches needs --batch (the step's batch, split "
                                    "into micro-batches)");
    }
    if (model.batch % a.microbatches != 0) {
      return InvalidArgument(path + ": --microbatches " + std::to_string(a.microbatches) +
                             " does not divide --batch " + std::to_string(model.batch));
    }
    model.batch /= a.microbatches;
  }
  FRUGAL_ASSIGN_OR_RETURN(LoadedStep s,
                          LoadStep(model, {.train_by_default = false, .batch_required = false}));
  if (a.microbatches > 1 && !s.training) {
    return InvalidArgument(path + ": --microbatches needs a training step (--train)");
  }
  PrintNotes(s.notes);
  OpGraph& g = s.step;
  place::ProblemOptions po;
  po.num_devices = a.gpus;
  FRUGAL_ASSIGN_OR_RETURN(po.topology, place::MakeTopology(a.topology, a.gpus));
  if (a.mem_given) po.device_mem_bytes = a.mem_gb * (1ull << 30);
  if (!a.gpu.empty()) {
    if (!NeedsOpTimes(g)) {
      return InvalidArgument(path + ": every op has a measured time and profiled ops cannot "
                                    "be re-priced, so --gpu cannot apply (set memory with "
                                    "--mem-gb)");
    }
    FRUGAL_ASSIGN_OR_RETURN(Catalog catalog, LoadCatalog(DefaultCatalogPath()));
    std::string note;
    FRUGAL_ASSIGN_OR_RETURN(const GpuSpec* spec, LookupGpuNoted(catalog, a.gpu, &note));
    PrintNote(note);
    std::string precision_note;
    FRUGAL_RETURN_IF_ERROR(CheckPrecisionSupported(*spec, s.precision, &precision_note));
    PrintNote(precision_note);
    FRUGAL_RETURN_IF_ERROR(PredictOpTimes(g, *spec, a.model.perf_model));
    if (po.device_mem_bytes < 0 && g.device_mem_bytes <= 0) {
      po.device_mem_bytes = spec->mem_gib * (1ull << 30) - IterationOptions{}.reserved_bytes;
    }
  } else if (NeedsOpTimes(g)) {
    return InvalidArgument(path + ": ops have no measured times; pass --gpu NAME to "
                                  "predict them");
  } else if (!a.model.perf_model.empty()) {
    return InvalidArgument(path + ": --perf-model needs --gpu (every op has a measured time)");
  }
  place::Granularity granularity = place::DefaultGranularity(g);
  if (!a.granularity.empty()) {
    FRUGAL_ASSIGN_OR_RETURN(granularity, place::ParseGranularity(a.granularity));
  }
  Result<place::Colocation> co = place::Colocate(g, granularity);
  if (!co.ok()) return co.status().WithPrefix(path);
  for (int i = 0; i < g.num_ops(); ++i) g.ops[i].color_class = co->color[i];
  if (co->modules.has_modules()) po.op_modules = co->modules.module_of_op;
  Result<place::PlacementProblem> p = place::BuildProblem(g, po);
  std::vector<int> source;
  if (p.ok() && a.microbatches > 1) {
    p = place::ReplicateMicrobatches(*p, a.microbatches, place::SharedMemoryBytes(g, p->mem_bytes),
                                     &source);
  }
  if (!p.ok()) {
    return p.status().message().rfind(path, 0) == 0 ? p.status() : p.status().WithPrefix(path);
  }
  return LoadedProblem{std::move(s), std::move(p).value(), granularity, co->groups,
                       std::move(source), std::move(co->modules)};
}

int RunPlace(const PlaceArgs& a) {
  if (a.method == "list") {
    if (!a.granularity.empty() || a.microbatches != 1) {
      return ReportUsage("--granularity and --microbatches cannot apply to --method list");
    }
    return ListMethods(a.json);
  }
  if (a.model.model.empty()) return ReportUsage("GRAPH is required");
  if (a.gpus == 0) return ReportUsage("--gpus K is required");
  if (a.method != "all" && !FindRow(place::Placers(), a.method)) {
    return ReportError(NotFound("unknown method '" + a.method + "' (expected all, list, " +
                                RowNames(place::Placers()) + ")"));
  }
  Result<LoadedProblem> pr = LoadProblem(a);
  if (!pr.ok()) return ReportError(pr.status());
  const place::PlacementProblem& p = pr->problem;
  const LoadedStep& step = pr->step;
  const char* mode = step.training ? "training" : "inference";
  bool progress = !a.json && isatty(fileno(stderr));

  PlaceOptions opts;
  opts.time_limit_s = a.time_limit_s;
  // One budget for the whole run: the bounds first (cheap, and cut short
  // when they are not), then every method.
  opts.deadline = place::Deadline::In(a.time_limit_s);
  place::LowerBounds lb = place::ComputeLowerBounds(p, opts.deadline);
  opts.seed = a.seed;
  opts.threads = a.threads;
  if (progress) opts.log = [](const std::string& m) { std::fprintf(stderr, "  %s\n", m.c_str()); };
  std::vector<MethodRun> runs;
  double baseline_seconds = 0;
  for (const auto& row : place::Placers()) {
    std::string name = row.name;
    if (a.method != "all" && a.method != name) continue;
    if (progress) std::fprintf(stderr, "placing with %s...\n", name.c_str());
    if (name == "pesto" && a.method == "all") {
      opts.starts.clear();
      for (const MethodRun& r : runs) {
        if (r.sim.feasible) opts.starts.push_back({r.name, r.outcome.placement});
      }
    }
    auto t0 = std::chrono::steady_clock::now();
    Result<PlaceOutcome> o = place::RunPlacer(name, p, opts);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!o.ok()) return ReportError(o.status());
    MethodRun run{name, std::move(*o), {}, secs};
    // Pesto reuses the baselines' placements: its time includes theirs.
    if (name == "pesto" && a.method == "all") run.seconds += baseline_seconds;
    else baseline_seconds += secs;
    if (run.outcome.status != SolveStatus::kInfeasible) {
      run.sim = place::Simulate(p, run.outcome.placement, {.keep_timeline = true});
      if (!run.sim.feasible) {
        run.outcome.note = "rejected by the simulator: " + run.sim.reason;
        run.outcome.status = SolveStatus::kInfeasible;
      }
    }
    runs.push_back(std::move(run));
  }
  for (const MethodRun& r : runs) {
    if (r.outcome.bound_is_global && r.outcome.bound_ms > lb.mip_ms) lb.mip_ms = r.outcome.bound_ms;
  }
  double lower = lb.best_ms();
  const MethodRun* best = nullptr;
  for (const MethodRun& r : runs) {
    if (r.sim.feasible && (!best || r.sim.makespan_ms < best->sim.makespan_ms)) best = &r;
  }
  if (!best) {
    std::string why = runs.size() == 1 ? ": " + runs[0].outcome.note : "";
    return ReportError(InvalidArgument(a.model.model + ": no method found a placement that fits in "
                                       "device memory" + why));
  }
  if (!a.out.empty()) {
    place::PlacementInfo info;
    info.method = best->name;
    info.lower_bound_ms = lower;
    info.granularity = place::GranularityName(pr->granularity);
    if (!p.op_modules.empty()) {
      const std::vector<int> devices = StepDevices(*pr, best->outcome.placement.device);
      Result<nlohmann::json> map = place::BuildDeviceMap(step.step, pr->modules, devices);
      if (map.ok()) {
        info.device_map = std::move(*map);
        info.modules =
            place::ModuleSpans(step.step, pr->modules, devices, StepSim(*pr, best->sim));
      } else {
        info.device_map_note = map.status().message();
      }
    }
    Status st = place::WritePlacementJson(a.out, p, best->outcome.placement, best->sim, info);
    if (!st.ok()) return ReportError(st);
  }
  if (!a.trace.empty()) {
    Status st = place::WriteChromeTrace(a.trace, p, best->outcome.placement, best->sim);
    if (!st.ok()) return ReportError(st);
  }
  if (a.json) {
    nlohmann::json j;
    j["graph"] = p.name;
    j["ops"] = p.num_ops();
    j["gpus"] = p.num_devices;
    j["topology"] = p.topology.name;
    j["mode"] = mode;
    j["granularity"] = place::GranularityName(pr->granularity);
    j["colocation_groups"] = pr->groups;
    j["batch"] = step.batch > 0 ? nlohmann::json(step.batch * a.microbatches) : nlohmann::json();
    j["microbatches"] = a.microbatches;
    j["memory_bytes"] = p.total_mem_bytes();
    if (!std::isinf(p.device_mem_bytes[0])) j["device_mem_bytes"] = p.device_mem_bytes[0];
    j["lower_bound_ms"] = lower;
    j["lower_bounds"] = {{"critical_path_ms", lb.critical_path_ms},
                         {"work_per_gpu_ms", lb.work_per_device_ms},
                         {"comm_ms", lb.comm_ms},
                         {"memory_path_ms", lb.memory_path_ms},
                         {"chain_ms", lb.chain_ms}};
    if (lb.mip_ms >= 0) j["lower_bounds"]["mip_ms"] = lb.mip_ms;
    nlohmann::json methods = nlohmann::json::array();
    for (const MethodRun& r : runs) {
      nlohmann::json m = {{"name", r.name},
                          {"status", place::SolveStatusName(r.outcome.status)},
                          {"seconds", r.seconds}};
      if (r.sim.feasible) {
        m["makespan_ms"] = r.sim.makespan_ms;
        m["ratio"] = lower > 0 ? r.sim.makespan_ms / lower : 1.0;
      } else {
        m["makespan_ms"] = nullptr;
      }
      if (r.outcome.bound_ms >= 0) m["mip_bound_ms"] = r.outcome.bound_ms;
      if (r.outcome.gap >= 0) m["gap"] = r.outcome.gap;
      if (!r.outcome.note.empty()) m["note"] = r.outcome.note;
      methods.push_back(std::move(m));
    }
    j["methods"] = std::move(methods);
    j["best"] = best->name;
    PrintJson(j);
    return 0;
  }
  std::string mem = std::isinf(p.device_mem_bytes[0])
                        ? "unlimited"
                        : fmt::format("{:.2f} GiB", p.device_mem_bytes[0] / (1ull << 30));
  std::fputs(fmt::format("{}: {} ops on {} GPUs, {} topology, {} per GPU\n", p.name,
                         p.num_ops(), p.num_devices, p.topology.name, mem).c_str(), stdout);
  std::fputs(fmt::format("granularity {}: {} colocation groups\n",
                         place::GranularityName(pr->granularity), pr->groups).c_str(), stdout);
  std::fputs(fmt::format("{} step{}: {:.2f} GiB in all\n", mode,
                         step.batch > 0
                             ? fmt::format(", batch {}", step.batch * a.microbatches) +
                                   (a.microbatches > 1
                                        ? fmt::format(" as {} micro-batches of {}",
                                                      a.microbatches, step.batch)
                                        : "")
                             : "",
                         static_cast<double>(p.total_mem_bytes()) / (1ull << 30)).c_str(),
             stdout);
  std::fputs(fmt::format("lower bound {:.3f} ms (critical path {:.3f}, work/GPU {:.3f}, "
                         "comm {:.3f}, memory path {:.3f}, chain {:.3f}{})\n\n",
                         lower, lb.critical_path_ms, lb.work_per_device_ms, lb.comm_ms,
                         lb.memory_path_ms, lb.chain_ms,
                         lb.mip_ms >= 0 ? fmt::format(", MIP {:.3f}", lb.mip_ms) : "")
                 .c_str(), stdout);
  std::fputs(fmt::format("  {:<8} {:>13} {:>8} {:>9}  {}\n", "method", "makespan ms",
                         "ratio", "seconds", "status").c_str(), stdout);
  for (const MethodRun& r : runs) {
    std::string ms = r.sim.feasible ? fmt::format("{:.3f}", r.sim.makespan_ms) : "-";
    std::string ratio =
        r.sim.feasible && lower > 0 ? fmt::format("{:.3f}", r.sim.makespan_ms / lower) : "-";
    std::string status = place::SolveStatusName(r.outcome.status);
    if (r.outcome.gap >= 0) status += fmt::format(" (gap {:.1f}%)", 100 * r.outcome.gap);
    if (r.outcome.status == SolveStatus::kInfeasible) status += ": " + r.outcome.note;
    std::fputs(fmt::format("  {:<8} {:>13} {:>8} {:>9.2f}  {}{}\n", r.name, ms, ratio,
                           r.seconds, status, &r == best ? "  <- best" : "").c_str(), stdout);
  }
  if (!a.out.empty()) std::fprintf(stdout, "\nwrote %s (%s)\n", a.out.c_str(), best->name.c_str());
  if (!a.trace.empty()) std::fprintf(stdout, "wrote %s\n", a.trace.c_str());
  return 0;
}

}  // namespace

void SetupPlace(CLI::App& sub, int* exit_code) {
  auto a = std::make_shared<PlaceArgs>();
  AddStepArgs(&sub, &a->model, "GRAPH", false);
  sub.add_option("--gpus", a->gpus, "Number of GPUs K (1..1024)")
      ->check(IntIn(1, place::kMaxPlaceDevices));
  sub.add_option("--topology", a->topology, "nvlink, pcie or a topology JSON file")
      ->capture_default_str();
  CLI::Option* mem = sub.add_option("--mem-gb", a->mem_gb,
                 "Memory per GPU in GiB (default: the graph's maxSizePerFPGA, else the "
                 "--gpu's less 1 GiB reserved, as predict, else unlimited)");
  mem->check(NumberIn(0, 1e6, true));
  sub.add_option("--gpu", a->gpu, "Catalog GPU on which Ceer predicts op times for graphs "
                                  "without measured times");
  sub.add_option("--perf-model", a->model.perf_model,
                 "Op-time model for --gpu: a file from `perf train`, or roofline / ceer / "
                 "learned / efficiency (default: the bundled efficiency model)");
  sub.add_option("--time-limit", a->time_limit_s,
                 "Seconds for the whole run: bounds, every method, pesto's MIP and refinement")
      ->capture_default_str()
      ->check(NumberIn(0, 1e7, true));
  sub.add_option("--method", a->method, "A method, `all`, or `list` to print them")
      ->capture_default_str();
  sub.add_option("--granularity", a->granularity,
                 "What is placed whole: op (the graph's own colocation only), module (a "
                 "module with its backward and update; parameter-free ops with their input) "
                 "or layer (whole blocks); default module for HF configs and ONNX models, "
                 "else op")
      ->check(CLI::IsMember({"op", "module", "layer"}));
  sub.add_option("--microbatches", a->microbatches,
                 "Split a training step's --batch into M micro-batches (GPipe / 1F1B): each "
                 "forward and backward op runs once per micro-batch, updates once")
      ->capture_default_str()
      ->check(IntIn(1, place::kMaxMicrobatches));
  sub.add_option("--out", a->out, "Write the best placement as placement.json (with a "
                                  "device_map where ops come from modules)");
  sub.add_option("--trace", a->trace, "Write the best schedule as Chrome-trace JSON");
  sub.add_option("--seed", a->seed, "Random seed")->capture_default_str();
  sub.add_option("--threads", a->threads, "CBC threads")
      ->capture_default_str()
      ->check(IntIn(1, 1024));
  sub.add_flag("--json", a->json, "Machine-readable output");
  sub.callback([a, mem, exit_code] {
    a->mem_given = mem->count() > 0;
    *exit_code = RunPlace(*a);
  });
}

}  // namespace frugal::cli
