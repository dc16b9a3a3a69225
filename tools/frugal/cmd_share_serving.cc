// `frugal share simulate|plan|workload`: SLO-aware sharing of training and
// inference jobs (library: src/frugal/share/, docs/share.md).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli_util.h"
#include "frugal/base/file_io.h"
#include "frugal/plan/precision.h"
#include "frugal/share/fitted_slowdown.h"
#include "frugal/share/jobs_json.h"
#include "frugal/share/plan.h"
#include "frugal/share/serving_sim.h"
#include "frugal/share/sharing_policy.h"
#include "gpu_note.h"
#include "share_verbs.h"

namespace frugal::cli {
namespace {
using namespace frugal::share;

struct CommonArgs {
  std::string jobs;      // JOBS.json
  std::string workload;  // "mixed"
  std::string gpu = "A100-SXM4-80GB";
  std::string catalog;
  std::string perf_model;
  std::string trace;
  uint64_t seed = 1;
  int services = 12;
  double training_per_hour = 9;
  double min_speed = 0.8;
  double headroom = 0.9;
  const CLI::Option* interference_opt = nullptr;
  const CLI::Option* min_speed_opt = nullptr;  // to tell a given flag from its default
  std::vector<const CLI::Option*> mixed_opts;  // --services, --training-per-hour, --trace
  const CLI::Option* headroom_opt = nullptr;
  std::string interference;  // fitted model file, "analytic", or "" (bundled)
  std::string precision;     // refused unless fp32: see Load
  bool json = false;
};

void AddCommon(CLI::App* c, CommonArgs* a, bool gen) {
  c->add_option("--gpu", a->gpu, "Catalog GPU of the cluster")->capture_default_str();
  c->add_option("--catalog", a->catalog, "Catalog folder or JSON file (default: bundled)");
  c->add_option("--perf-model", a->perf_model,
                "Op-time model for batch latencies and iteration times (default: bundled learned)");
  c->add_option("--seed", a->seed, "Seed of the generator and the request arrivals")
      ->capture_default_str();
  c->add_option("--precision", a->precision,
                "Only fp32: the jobs' models are priced from JOBS.json in fp32");
  if (gen) {
    c->add_option("--workload", a->workload, "Generated workload: mixed");
    a->mixed_opts = {
        c->add_option("--services", a->services, "mixed: inference services")
            ->capture_default_str()->check(IntIn(0, 200)),
        c->add_option("--training-per-hour", a->training_per_hour,
                      "mixed: mean training-job arrivals per hour")
            ->capture_default_str()->check(NumberIn(0, 200)),
        c->add_option("--trace", a->trace,
                      "mixed: Alibaba pod list whose lifetimes give training durations "
                      "(default: ../shared/data/traces/alibaba-gpu-v2023/openb_pod_list_default.csv)")};
  }
}

void AddPlanning(CLI::App* c, CommonArgs* a) {
  a->min_speed_opt = c->add_option("--min-speed", a->min_speed,
                "gshare, mig-static: least co-located / alone speed of a training job")
      ->capture_default_str()->check(NumberIn(0, 1, true));
  a->headroom_opt = c->add_option("--slo-headroom", a->headroom,
                "Plan services to predicted p99 <= this x SLO")
      ->capture_default_str()->check(NumberIn(0, 1, true));
  a->interference_opt = c->add_option("--interference", a->interference,
                "Training slowdown when time-sliced: a model from `share interference fit`, or "
                "'analytic' (default: the bundled Gavel fit, " + DefaultInterferenceModelPath() +
                    ")");
  c->add_flag("--json", a->json, "Machine-readable output");
}

// The fitted interference model prices time-sliced training; the analytic
// model everything else (see fitted_slowdown.h).
Result<std::unique_ptr<SlowdownModel>> OpenSlowdown(const std::string& flag) {
  if (flag == "analytic") return NewAnalyticSlowdown();
  const std::string path = flag.empty() ? DefaultInterferenceModelPath() : flag;
  FRUGAL_ASSIGN_OR_RETURN(InterferenceModel m, InterferenceModel::Load(path));
  return NewFittedSlowdown(std::move(m), NewAnalyticSlowdown());
}

struct Env {
  Catalog catalog;
  const GpuSpec* gpu = nullptr;
  std::unique_ptr<OpTimeModel> perf;
  std::unique_ptr<CostCache> costs;
  std::unique_ptr<SlowdownModel> slowdown;
  Workload w;
  std::string source;  // what the workload is, for headers
};

Result<std::unique_ptr<Env>> Load(const CommonArgs& a, bool need_workload) {
  // The services' batch-latency and the training jobs' iteration tables are
  // built from each job's model entry, in fp32; one flag cannot say which
  // job runs in which precision.
  Precision p;
  if (!a.precision.empty() && !ParsePrecision(a.precision, &p)) {
    return InvalidArgument(std::string(kUsagePrefix) + "unknown --precision '" + a.precision + "' (expected " +
                           PrecisionList() + ")");
  }
  if (!a.precision.empty() && a.precision != "fp32") {
    return InvalidArgument("--precision " + a.precision +
                           ": share prices every job's model in fp32 (per-job precision is "
                           "not supported)");
  }
  auto e = std::make_unique<Env>();
  FRUGAL_ASSIGN_OR_RETURN(e->catalog,
                          LoadCatalog(a.catalog.empty() ? DefaultCatalogPath() : a.catalog));
  std::string note;
  FRUGAL_ASSIGN_OR_RETURN(e->gpu, LookupGpuNoted(e->catalog, a.gpu, &note));
  PrintNote(note);
  FRUGAL_ASSIGN_OR_RETURN(e->perf, OpenOpTimeModel(a.perf_model));
  e->costs = std::make_unique<CostCache>(*e->perf);
  FRUGAL_ASSIGN_OR_RETURN(e->slowdown, OpenSlowdown(a.interference));
  if (!need_workload) return e;
  if (!a.jobs.empty() && !a.workload.empty()) {
    return InvalidArgument(std::string(kUsagePrefix) + "give JOBS.json or --workload, not both");
  }
  if (!a.jobs.empty()) {
    for (const CLI::Option* o : a.mixed_opts) {
      if (o->count() > 0) {
        return InvalidArgument(std::string(kUsagePrefix) + o->get_name() +
                               " applies to --workload mixed; JOBS.json lists its own jobs");
      }
    }
    FRUGAL_ASSIGN_OR_RETURN(e->w, ReadJobsJson(a.jobs));
    e->source = a.jobs;
  } else if (a.workload == "mixed") {
    if (a.services == 0 && a.training_per_hour == 0) {
      return InvalidArgument("--services 0 and --training-per-hour 0 leave the mixed workload without jobs");
    }
    MixedOptions mo;
    mo.seed = a.seed;
    mo.services = a.services;
    mo.training_per_hour = a.training_per_hour;
    mo.trace = a.trace;
    FRUGAL_ASSIGN_OR_RETURN(e->w, GenerateMixed(mo, *e->gpu, e->costs.get()));
    e->source = fmt::format("mixed workload (seed {})", a.seed);
  } else if (a.workload.empty()) {
    return InvalidArgument(std::string(kUsagePrefix) + "give JOBS.json or --workload mixed");
  } else {
    return InvalidArgument("unknown --workload '" + a.workload + "' (expected mixed)");
  }
  return e;
}

// --min-speed / --slo-headroom given for policies that never read them would
// be silently ignored: a usage error instead.
Status CheckTargetsApply(const CommonArgs& a, const std::vector<const SharingPolicy*>& policies) {
  bool targets = false, co_located = false;
  for (const SharingPolicy* p : policies) {
    targets = targets || p->uses_targets();
    co_located = co_located || p->co_locates();
  }
  if (!targets && (a.min_speed_opt->count() > 0 || a.headroom_opt->count() > 0)) {
    return InvalidArgument(std::string(kUsagePrefix) +
                           "--min-speed and --slo-headroom apply only to gshare and mig-static");
  }
  if (!co_located && a.interference_opt->count() > 0) {
    return InvalidArgument(std::string(kUsagePrefix) +
                           "--interference prices co-located jobs; exclusive and mig-static "
                           "co-locate none");
  }
  return Status::Ok();
}

// The policies that can run on the planner's GPU: one named that cannot is
// an error; `all` leaves it out with a note on stderr.
Result<std::vector<std::unique_ptr<SharingPolicy>>> RunnablePolicies(
    const std::vector<std::string>& names, bool all, const Planner& p) {
  std::vector<std::unique_ptr<SharingPolicy>> out;
  for (const std::string& n : names) {
    FRUGAL_ASSIGN_OR_RETURN(std::unique_ptr<SharingPolicy> pol, NewSharingPolicy(n));
    if (const std::string why = pol->CannotRun(p); !why.empty()) {
      if (!all) return InvalidArgument(fmt::format("policy {} cannot run: {}", n, why));
      std::fprintf(stderr, "frugal: note: %s left out: %s\n", n.c_str(), why.c_str());
      continue;
    }
    out.push_back(std::move(pol));
  }
  return out;
}

Result<Planner> MakePlanner(const CommonArgs& a, Env* e) {
  PlannerOptions po;
  po.min_training_speed = a.min_speed;
  po.slo_headroom = a.headroom;
  po.seed = a.seed;
  Result<Planner> p = Planner::Create(e->w, *e->gpu, e->costs.get(), *e->slowdown, po);
  if (!p.ok() && !a.jobs.empty()) return p.status().WithPrefix(a.jobs);
  return p;
}

nlohmann::json Num(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); }

// --- workload ---

struct WorkloadArgs {
  CommonArgs c;
  std::string out;
};

int RunWorkload(const WorkloadArgs& a) {
  if (a.c.workload.empty()) return ReportUsage("give --workload mixed");
  Result<std::unique_ptr<Env>> e = Load(a.c, true);
  if (!e.ok()) return ReportError(e.status());
  const std::string text = JobsToJson((*e)->w).dump(2) + "\n";
  if (a.out.empty() || a.out == "-") {
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  if (Status st = WriteStringToFile(a.out, text); !st.ok()) return ReportError(st);
  std::fprintf(stderr, "wrote %s: %zu services, %zu training jobs\n", a.out.c_str(),
               (*e)->w.services.size(), (*e)->w.training.size());
  return 0;
}

// --- plan ---

struct PlanArgs {
  CommonArgs c;
  int gpus = 0;
  std::string policy = "gshare";
};

int RunPlan(const PlanArgs& a) {
  Result<std::unique_ptr<Env>> e = Load(a.c, true);
  if (!e.ok()) return ReportError(e.status());
  Result<Planner> p = MakePlanner(a.c, e->get());
  if (!p.ok()) return ReportError(p.status());
  Result<std::vector<std::unique_ptr<SharingPolicy>>> pol =
      RunnablePolicies({a.policy}, false, *p);
  if (!pol.ok()) return ReportError(pol.status());
  if (Status s = CheckTargetsApply(a.c, {pol->front().get()}); !s.ok()) return ReportError(s);
  SharePlan plan = PlanWorkload(*p, *pol->front(), a.gpus);
  if (a.c.json) {
    PrintJson(PlanToJson(plan));
    return 0;
  }
  std::string s = fmt::format("{}: {} jobs on {} of {} x {} ({})\n", (*e)->source,
                              p->jobs(), plan.gpus_used, a.gpus, plan.gpu, plan.policy);
  for (const PlannedGpu& g : plan.gpus) {
    s += fmt::format("GPU {} ({})\n", g.index, MechanismName(g.mechanism));
    for (const PlannedJob& j : g.jobs) {
      const std::string share = !j.mig.empty() ? "MIG " + j.mig
                                               : fmt::format("share {:.0f} %", 100 * j.share);
      if (j.service) {
        s += fmt::format("  {:<28} {:<14} {:6.1f} GiB  p99 {:7.2f} ms (SLO {:.1f}){}\n", j.name,
                         share, j.mem_gib, j.p99_ms, j.slo_ms,
                         j.p99_ms <= j.slo_ms ? "" : "  MISSES SLO");
      } else {
        s += fmt::format("  {:<28} {:<14} {:6.1f} GiB  speed {:.2f} x alone\n", j.name, share,
                         j.mem_gib, j.speed);
      }
    }
  }
  for (const Unschedulable& u : plan.unschedulable) {
    s += fmt::format("unschedulable: {}: {}\n", u.name, u.reason);
  }
  std::fputs(s.c_str(), stdout);
  return 0;
}

// --- simulate ---

struct SimulateArgs {
  CommonArgs c;
  int gpus = 0;
  std::string policy = "all";
  bool list = false;
};

nlohmann::json ResultJson(const SimResult& r, double exclusive_hours) {
  nlohmann::json svc = nlohmann::json::array(), un = nlohmann::json::array();
  for (const ServiceOutcome& s : r.services) {
    svc.push_back({{"name", s.name},
                   {"slo_p99_ms", s.slo_ms},
                   {"requests", s.stats.requests},
                   {"p50_ms", Num(s.stats.p50_ms)},
                   {"p99_ms", Num(s.stats.p99_ms)},
                   {"over_slo_pct", s.stats.requests > 0
                                        ? 100.0 * s.stats.over_slo / s.stats.requests
                                        : 0.0},
                   {"mean_batch", s.stats.mean_batch}});
    if (s.unschedulable) un.push_back({{"name", s.name}, {"outcome", "unschedulable"}, {"reason", s.reason}});
  }
  for (const TrainingOutcome& t : r.training) {
    if (t.unschedulable) un.push_back({{"name", t.name}, {"outcome", "unschedulable"}, {"reason", t.reason}});
  }
  nlohmann::json j = {{"policy", r.policy},
                      {"gpu_hours", r.gpu_hours},
                      {"peak_gpus", r.peak_gpus},
                      {"gpus_by_hour", r.gpus_by_hour},
                      {"requests", r.requests},
                      {"over_slo_pct", r.over_slo_pct},
                      {"mean_training_speed", r.mean_training_speed},
                      {"migrations", r.migrations},
                      {"makespan_s", r.makespan_s},
                      {"services", svc},
                      {"unschedulable", un}};
  if (exclusive_hours > 0) j["gpu_hours_saved_vs_exclusive_pct"] = 100 * (1 - r.gpu_hours / exclusive_hours);
  return j;
}

int RunSimulate(const SimulateArgs& a) {
  if (a.list) return PrintRegistry(SharingPolicies(), a.c.json);
  Result<std::vector<std::string>> names = ParseSharingPolicyList(a.policy);
  if (!names.ok()) return ReportError(names.status());
  Result<std::unique_ptr<Env>> e = Load(a.c, true);
  if (!e.ok()) return ReportError(e.status());
  Result<Planner> p = MakePlanner(a.c, e->get());
  if (!p.ok()) return ReportError(p.status());
  SimOptions so;
  so.seed = a.c.seed;
  so.max_gpus = a.gpus;
  if (Status s = CheckSimulatable((*e)->w); !s.ok()) return ReportError(s);
  Result<std::vector<std::unique_ptr<SharingPolicy>>> runnable =
      RunnablePolicies(*names, a.policy == "all", *p);
  if (!runnable.ok()) return ReportError(runnable.status());
  std::vector<std::unique_ptr<SharingPolicy>> policies = std::move(*runnable);
  std::vector<const SharingPolicy*> chosen;
  for (const auto& pol : policies) chosen.push_back(pol.get());
  if (Status s = CheckTargetsApply(a.c, chosen); !s.ok()) return ReportError(s);
  std::vector<SimResult> results;
  for (const auto& pol : policies) {
    if (isatty(STDERR_FILENO)) {
      const std::string name = pol->name();
      so.progress = [name](double now_s) {
        std::fprintf(stderr, "\rsimulate: %-14s %6.1f h simulated", name.c_str(), now_s / 3600);
        std::fflush(stderr);
      };
    }
    results.push_back(SimulateCluster(*p, *pol, so));
    if (so.progress) std::fprintf(stderr, "\n");
  }
  double excl = 0;
  for (const SimResult& r : results) {
    if (r.policy == "exclusive") excl = r.gpu_hours;
  }
  if (a.c.json) {
    nlohmann::json rs = nlohmann::json::array();
    for (const SimResult& r : results) rs.push_back(ResultJson(r, excl));
    PrintJson({{"workload", (*e)->source},
               {"gpu", (*e)->gpu->name},
               {"gpus", a.gpus},
               {"seed", a.c.seed},
               {"services", (*e)->w.services.size()},
               {"training_jobs", (*e)->w.training.size()},
               {"min_training_speed", a.c.min_speed},
               {"results", rs}});
    return 0;
  }
  std::string s = fmt::format("{}: {} services, {} training jobs on {} ({} GPUs)\n",
                              (*e)->source, (*e)->w.services.size(), (*e)->w.training.size(),
                              (*e)->gpu->name, a.gpus > 0 ? std::to_string(a.gpus) : "unlimited");
  s += fmt::format("  {:<14} {:>9} {:>8} {:>5} {:>11} {:>10} {:>11} {:>7}\n", "policy", "GPU-h",
                   "vs excl", "peak", "over SLO %", "worst p99", "train speed", "unsched");
  for (const SimResult& r : results) {
    double worst = 0;
    int un = 0;
    for (const ServiceOutcome& sv : r.services) {
      if (sv.stats.requests > 0) worst = std::max(worst, sv.stats.p99_ms / sv.slo_ms);
      un += sv.unschedulable;
    }
    for (const TrainingOutcome& t : r.training) un += t.unschedulable;
    // Without an exclusive run there is nothing to compare against: "-".
    const std::string vs =
        excl > 0 ? fmt::format("{:.1f}%", 100 * (r.gpu_hours / excl - 1)) : std::string("-");
    s += fmt::format("  {:<14} {:>9.1f} {:>8} {:>5} {:>11.3f} {:>9.2f}x {:>11.2f} {:>7}  "
                     "({} migrations)\n",
                     r.policy, r.gpu_hours, vs, r.peak_gpus, r.over_slo_pct, worst, r.mean_training_speed, un,
                     r.migrations);
  }
  std::fputs(s.c_str(), stdout);
  return 0;
}

}  // namespace

void SetupShareServing(CLI::App& share, int* exit_code) {
  {
    CLI::App* c = share.add_subcommand(
        "simulate", "Request-level simulation of sharing policies on a workload");
    auto a = std::make_shared<SimulateArgs>();
    c->add_option("JOBS", a->c.jobs, "JOBS.json (or --workload mixed)");
    AddCommon(c, &a->c, true);
    AddPlanning(c, &a->c);
    c->add_option("--gpus", a->gpus, "GPUs in the cluster (default: as many as needed)")
        ->check(IntIn(1, 100000));
    c->add_option("--policy", a->policy, "all, or a comma-separated list")->capture_default_str();
    c->add_flag("--list-policies", a->list, "List the sharing policies and exit");
    c->callback([a, exit_code] { *exit_code = RunSimulate(*a); });
  }
  {
    CLI::App* c = share.add_subcommand(
        "plan", "Place every job at once: per GPU the jobs, mechanism, shares, p99, speed");
    auto a = std::make_shared<PlanArgs>();
    c->add_option("JOBS", a->c.jobs, "JOBS.json")->required();
    AddCommon(c, &a->c, false);
    AddPlanning(c, &a->c);
    c->add_option("--gpus", a->gpus, "GPUs available")->required()->check(IntIn(1, 100000));
    c->add_option("--policy", a->policy, "Sharing policy")->capture_default_str();
    c->callback([a, exit_code] { *exit_code = RunPlan(*a); });
  }
  {
    CLI::App* c = share.add_subcommand("workload", "Write a generated workload as JOBS.json");
    auto a = std::make_shared<WorkloadArgs>();
    AddCommon(c, &a->c, true);
    c->add_option("--out", a->out, "Output file (default: stdout)");
    c->callback([a, exit_code] { *exit_code = RunWorkload(*a); });
  }
}

}  // namespace frugal::cli
