// `frugal cache simulate|train|gen|info|speed|list`: simulate cache policies
// on I/O traces, train smartcache's models into a model file, generate
// Beam-like pipeline traces, describe a trace, list the policies, presets
// and trace formats (SmartCache).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli_util.h"
#include "frugal/base/file_io.h"
#include "frugal/base/units.h"
#include "frugal/cache/generator.h"
#include "frugal/cache/policy_registry.h"
#include "frugal/cache/request_trace.h"
#include "frugal/cache/simulator.h"
#include "frugal/cache/smartcache_model.h"
#include "frugal/cache/trace_writer.h"
#include "frugal/report/report.h"
#include "verbs.h"

namespace frugal::cli {
namespace {

using namespace frugal::cache;  // NOLINT: one module per file here

struct SimulateArgs {
  std::string trace;
  std::string format = "auto";
  std::string policy = "lru";
  std::string size = "1%,5%,10%";
  std::string svg;
  std::string model;
  std::string out;
  std::string breakdown;
  bool breakdown_given = false;  // --breakdown "" is an error, not "none"
  bool json = false;
  bool no_stream = false;
  int threads = 0;
  uint64_t seed = 1;
  ThroughputOptions throughput;
};

nlohmann::json TraceJson(const RequestTrace& t) {
  return {{"trace", t.source},
          {"records", t.records},
          {"objects", t.objects.size()},
          {"reads", t.reads},
          {"read_bytes", t.read_bytes},
          {"written_bytes", t.written_bytes},
          {"footprint_bytes", t.footprint_bytes},
          {"skipped",
           {{"unknown_reads", t.skipped.unknown_reads},
            {"unknown_deletes", t.skipped.unknown_deletes},
            {"unknown_renames", t.skipped.unknown_renames}}}};
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// Whole run (load + simulate) and simulation-alone rates; the three timing
// fields are the only ones that vary between identical runs.
struct RunTimes {
  double load_s = 0;
  double simulate_s = 0;
  double requests = 0;  // replayed over all policy x size runs
  double requests_per_s() const { return requests / std::max(load_s + simulate_s, 1e-9); }
  double simulate_requests_per_s() const { return requests / std::max(simulate_s, 1e-9); }
};

// The keys that miss most, one line each, under a result's line (keys
// with no reads, such as files only written, are left to --json).
std::string BreakdownText(const SimulationResult& r) {
  constexpr size_t kShown = 12;
  std::vector<const BreakdownRow*> rows;
  for (const BreakdownRow& b : r.breakdown) {
    if (b.cell.reads > 0) rows.push_back(&b);
  }
  auto miss = [](const BreakdownRow* b) { return b->cell.read_bytes - b->cell.hit_bytes; };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const BreakdownRow* x, const BreakdownRow* y) { return miss(x) > miss(y); });
  std::string out;
  for (size_t k = 0; k < rows.size() && k < kShown; ++k) {
    const BreakdownCell& c = rows[k]->cell;
    const double read = static_cast<double>(c.read_bytes);
    out += fmt::format("{:<11}   {:>10} read, byte miss {:.4f}, {:.4f} of all reads: {}\n", "", HumanBytes(read),
                       read > 0 ? 1.0 - static_cast<double>(c.hit_bytes) / read : 0.0,
                       r.read_bytes > 0 ? static_cast<double>(miss(rows[k])) / static_cast<double>(r.read_bytes) : 0.0,
                       rows[k]->key);
  }
  if (rows.size() > kShown) {
    out += fmt::format("{:<11}   ... {} more {} keys with reads (--json has all)\n", "", rows.size() - kShown,
                       r.breakdown_by);
  }
  return out;
}

int PrintSimulation(const SimulateArgs& a, const RequestTrace& t, int64_t requests,
                    const std::vector<SimulationResult>& res, const RunTimes& times, bool streamed) {
  nlohmann::json j = TraceJson(t);
  j["streamed"] = streamed;
  j["load_s"] = times.load_s;
  j["simulate_s"] = times.simulate_s;
  j["requests_per_s"] = times.requests_per_s();
  j["simulate_requests_per_s"] = times.simulate_requests_per_s();
  j["results"] = nlohmann::json::array();
  for (const auto& r : res) j["results"].push_back(ResultToJson(r));
  if (!a.svg.empty()) {
    Status st = WriteStringToFile(a.svg, report::CacheCurvesSvg(j, "miss-ratio curves: " + a.trace));
    if (!st.ok()) return ReportError(st);
  }
  if (a.json) {
    PrintJson(j);
    return 0;
  }
  std::string out = fmt::format("trace {}: {} reads, {} objects, footprint {}\n", a.trace, t.reads,
                                t.objects.size(), HumanBytes(static_cast<double>(t.footprint_bytes)));
  if (t.skipped.total() > 0) {
    out += fmt::format("skipped {} records of unknown files (reads {}, deletes {}, renames {})\n",
                       t.skipped.total(), t.skipped.unknown_reads, t.skipped.unknown_deletes,
                       t.skipped.unknown_renames);
  }
  out += fmt::format("{:<11} {:>12} {:>8} {:>10} {:>10} {:>14} {:>9}\n", "policy", "cache", "of fp",
                     "miss", "byte miss", "to cache", "speed-up");
  for (const auto& r : res) {
    out += fmt::format("{:<11} {:>12} {:>7.2f}% {:>10.4f} {:>10.4f} {:>14} {:>8.3f}x\n", r.policy,
                       HumanBytes(static_cast<double>(r.cache_bytes)), 100 * r.cache_fraction,
                       r.miss_ratio, r.byte_miss_ratio,
                       HumanBytes(static_cast<double>(r.bytes_written_to_cache)), r.pipeline_speedup);
    out += BreakdownText(r);
    if (r.report.is_object() && r.report.contains("lifetime_within_2x") &&
        r.report["lifetime_within_2x"].is_number() && r.report["reuse_accuracy"].is_number()) {
      out += fmt::format("{:<11} model: lifetime within 2x {:.1f}%, reuse predicted right {:.1f}%, {} retrains\n",
                         "", 100 * r.report["lifetime_within_2x"].get<double>(),
                         100 * r.report["reuse_accuracy"].get<double>(),
                         r.report["retrains"].get<int64_t>());
    }
  }
  out += fmt::format("{} requests x {} runs: {:.3f} M requests/s whole run ({} {:.3f} s), "
                     "{:.3f} M requests/s simulation alone ({:.3f} s)\n",
                     requests, res.size(), times.requests_per_s() / 1e6,
                     streamed ? "streamed, indexing" : "load", times.load_s,
                     times.simulate_requests_per_s() / 1e6, times.simulate_s);
  std::fputs(out.c_str(), stdout);
  return 0;
}

int RunSimulate(const SimulateArgs& a) {
  const std::vector<std::string> policies = SplitCommas(a.policy);
  if (a.no_stream && !IsOracleGeneral(a.trace, a.format)) {
    return ReportUsage("--no-stream applies to oracleGeneral traces (only they are ever streamed)");
  }
  // One cell streams (less memory, as fast); several stream only when the
  // trace is too large to load (each replay reads the file again).
  const bool one_cell = policies.size() == 1 && SplitCommas(a.size).size() == 1;
  if (!a.no_stream && !a.breakdown_given && CanSimulateStreamed(a.trace, a.format, policies) &&
      (one_cell || !OracleGeneralLoadFits(a.trace))) {
    SimulationOptions o;
    o.threads = a.threads;
    o.seed = a.seed;
    o.throughput = a.throughput;
    o.model_path = a.model;
    Result<StreamedSimulation> s = SimulateStreamed(a.trace, policies, a.size, o);
    if (!s.ok()) return ReportError(s.status());
    RunTimes times{s->load_s, s->simulate_s,
                   static_cast<double>(s->requests) * static_cast<double>(s->results.size())};
    return PrintSimulation(a, s->trace, s->requests, s->results, times, true);
  }
  const auto load_start = std::chrono::steady_clock::now();
  Result<RequestTrace> t = LoadRequestTrace(a.trace, a.format);
  if (!t.ok()) return ReportError(t.status());
  const double load_s = SecondsSince(load_start);
  if (Status st = CheckTouchesBytes(*t, a.trace); !st.ok()) return ReportError(st);
  Result<std::vector<int64_t>> sizes = ParseCacheSizes(a.size, t->footprint_bytes);
  if (!sizes.ok()) return ReportError(sizes.status());
  Result<Breakdown> breakdown = Breakdown{};
  if (a.breakdown_given) {
    breakdown = MakeBreakdown(*t, a.breakdown);
    if (!breakdown.ok()) return ReportError(breakdown.status());
  }
  SimulationOptions o;
  o.breakdown = a.breakdown_given ? &*breakdown : nullptr;
  o.policies = policies;
  o.cache_bytes = *sizes;
  o.threads = a.threads;
  o.seed = a.seed;
  o.throughput = a.throughput;
  o.model_path = a.model;
  const auto sim_start = std::chrono::steady_clock::now();
  Result<std::vector<SimulationResult>> res = Simulate(*t, o);
  if (!res.ok()) return ReportError(res.status());
  const double simulate_s = SecondsSince(sim_start);
  const int64_t requests = static_cast<int64_t>(t->requests.size());
  RunTimes times{load_s, simulate_s, static_cast<double>(requests) * static_cast<double>(res->size())};
  return PrintSimulation(a, *t, requests, *res, times, false);
}

// Runs smartcache's online learner over the trace and writes its models.
int RunTrain(const SimulateArgs& a) {
  Result<RequestTrace> t = LoadRequestTrace(a.trace, a.format);
  if (!t.ok()) return ReportError(t.status());
  Result<std::vector<int64_t>> sizes = ParseCacheSizes(a.size, t->footprint_bytes);
  if (!sizes.ok()) return ReportError(sizes.status());
  if (sizes->size() != 1) return ReportError(InvalidArgument("cache train takes one --size, got '" + a.size + "'"));
  PolicyOptions o;
  o.capacity_bytes = sizes->front();
  o.seed = a.seed;
  o.model_path = a.model;
  Result<nlohmann::json> model = TrainSmartCacheModel(*t, o);
  if (!model.ok()) return ReportError(model.status());
  Status st = WriteStringToFile(a.out, model->dump() + "\n");
  if (!st.ok()) return ReportError(st);
  const nlohmann::json& on = (*model)["trained_on"];
  if (a.json) {
    PrintJson({{"model", a.out}, {"trained_on", on}});
    return 0;
  }
  std::fputs(fmt::format("wrote {}: smartcache models trained on {} ({} requests, cache {}, {} refits)\n", a.out,
                         a.trace, on["requests"].get<int64_t>(),
                         HumanBytes(static_cast<double>(o.capacity_bytes)), on["retrains"].get<int64_t>())
                 .c_str(),
             stdout);
  return 0;
}

struct GenArgs {
  GeneratorOptions o;
  std::string out;
  std::string format = "auto";
};

int RunGen(const GenArgs& a) {
  Result<std::vector<TraceEvent>> ev = GenerateTrace(a.o);
  if (!ev.ok()) return ReportError(ev.status());
  Result<std::unique_ptr<TraceWriter>> w = CreateTraceWriter(a.out, a.format);
  if (!w.ok()) return ReportError(w.status());
  for (const TraceEvent& e : *ev) {
    Status st = (*w)->Write(e);
    if (!st.ok()) return ReportError(st);
  }
  Status st = (*w)->Close();
  if (!st.ok()) return ReportError(st);
  std::fprintf(stderr, "wrote %s: %zu events (preset %s, %d pipelines, %d days, seed %llu)\n",
               a.out.c_str(), ev->size(), a.o.preset.c_str(), a.o.pipelines, a.o.days,
               static_cast<unsigned long long>(a.o.seed));
  return 0;
}

// An oracleGeneral trace is indexed as for a streamed simulation (about 8
// bytes a request, no per-request table): its counts need nothing more.
int RunInfo(const std::string& trace, const std::string& format, bool json) {
  Result<RequestTrace> t = RequestTrace{};
  if (IsOracleGeneral(trace, format)) {
    Result<StreamedTrace> st = StreamedTrace::Open(trace);
    if (!st.ok()) return ReportError(st.status());
    t = st->trace();
  } else {
    t = LoadRequestTrace(trace, format);
  }
  if (!t.ok()) return ReportError(t.status());
  nlohmann::json j = TraceJson(*t);
  if (json) {
    PrintJson(j);
    return 0;
  }
  std::string out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "skipped") continue;
    out += fmt::format("{:<16} {}\n", it.key(), it.value().is_string() ? it.value().get<std::string>()
                                                                        : it.value().dump());
  }
  out += fmt::format("{:<16} {} unknown reads, {} unknown deletes, {} unknown renames\n", "skipped",
                     t->skipped.unknown_reads, t->skipped.unknown_deletes, t->skipped.unknown_renames);
  std::fputs(out.c_str(), stdout);
  return 0;
}

// Times SimulateOne on one thread (the trace is loaded once, outside the
// clock); reports the best of `repeat` passes.
int RunSpeed(const SimulateArgs& a, int repeat) {
  Result<RequestTrace> t = LoadRequestTrace(a.trace, a.format);
  if (!t.ok()) return ReportError(t.status());
  Result<std::vector<int64_t>> sizes = ParseCacheSizes(a.size, t->footprint_bytes);
  if (!sizes.ok()) return ReportError(sizes.status());
  SimulationOptions o;
  double best = 1e300;
  for (int i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    Result<SimulationResult> r = SimulateOne(*t, a.policy, sizes->front(), o);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!r.ok()) return ReportError(r.status());
    best = std::min(best, s);
  }
  const double rate = static_cast<double>(t->requests.size()) / best;
  if (a.json) {
    PrintJson({{"trace", a.trace}, {"policy", a.policy}, {"cache_bytes", sizes->front()},
               {"requests", t->requests.size()}, {"best_seconds", best}, {"repeat", repeat},
               {"requests_per_second", rate}});
  } else {
    std::fputs(fmt::format("{} on {}: {} requests in {:.4f} s (best of {}): {:.1f} M requests/s on one core\n",
                           a.policy, a.trace, t->requests.size(), best, repeat, rate / 1e6)
                   .c_str(),
               stdout);
  }
  return 0;
}

int RunList(bool json) {
  if (json) {
    nlohmann::json j = {{"policies", nlohmann::json::array()},
                        {"presets", nlohmann::json::array()},
                        {"formats", nlohmann::json::array()},
                        {"breakdown_keys", nlohmann::json::array()}};
    for (const auto& r : Policies()) {
      j["policies"].push_back({{"name", r.name}, {"help", r.help}, {"offline", IsOfflinePolicy(r.name)}});
    }
    for (const auto& r : Presets()) j["presets"].push_back({{"name", r.name}, {"help", r.help}});
    for (const auto& r : TraceFormats()) j["formats"].push_back({{"name", r.name}, {"help", r.help}});
    for (const auto& r : BreakdownKeys()) j["breakdown_keys"].push_back({{"name", r.name}, {"help", r.help}});
    PrintJson(j);
    return 0;
  }
  std::string out = "policies:\n";
  for (const auto& r : Policies()) out += fmt::format("  {:<12} {}\n", r.name, r.help);
  out += "presets (cache gen --preset):\n";
  for (const auto& r : Presets()) out += fmt::format("  {:<12} {}\n", r.name, r.help);
  out += "trace formats (--format):\n";
  for (const auto& r : TraceFormats()) out += fmt::format("  {:<12} {}\n", r.name, r.help);
  out += "breakdown keys (cache simulate --breakdown):\n";
  for (const auto& r : BreakdownKeys()) out += fmt::format("  {:<12} {}\n", r.name, r.help);
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace

void SetupCache(CLI::App& sub, int* exit_code) {
  sub.require_subcommand(1);

  auto sa = std::make_shared<SimulateArgs>();
  CLI::App* sim = sub.add_subcommand("simulate", "Simulate cache policies on a trace");
  sim->add_option("TRACE", sa->trace, "Trace: .frt (frugal binary), .csv, or oracleGeneral .bin / .zst (libCacheSim; zstd-compressed read as is)")->required();
  sim->add_option("--policy", sa->policy, "Policy name, comma-separated names, or all")->capture_default_str();
  sim->add_option("--size", sa->size, "Cache sizes: percentages of the footprint or bytes (512MiB)")
      ->capture_default_str();
  sim->add_option("--format", sa->format, "Trace format: auto, frugal, csv, oracle")->capture_default_str();
  sim->add_flag("--json", sa->json, "Machine-readable output");
  sim->add_flag("--no-stream", sa->no_stream,
                "Load the whole trace of an oracleGeneral file (otherwise one online policy x one size, "
                "or online policies on a trace too large to load, are simulated streamed, in less memory)");
  sim->add_option("--svg", sa->svg, "Write the miss-ratio curves to this SVG file");
  sim->add_option("--breakdown", sa->breakdown,
                  "Count each policy's reads and misses per key: stage, pattern (path pattern), day, "
                  "or a comma-separated list of them (stage,day)")
      ->each([sa](const std::string&) { sa->breakdown_given = true; });
  sim->add_option("--threads", sa->threads, "Simulation threads (0 = all cores)")
      ->capture_default_str()
      ->check(IntIn(0, 1024));
  sim->add_option("--seed", sa->seed, "Seed for randomised and learned policies")->capture_default_str();
  sim->add_option("--model", sa->model, "smartcache model file to warm-start from (frugal cache train)");
  sim->add_option("--remote-gbps", sa->throughput.remote_gbps, "Remote storage bandwidth, GB/s")
      ->capture_default_str()
      ->check(NumberIn(0, 1e6, true));
  sim->add_option("--cache-gbps", sa->throughput.cache_gbps, "Cache tier bandwidth, GB/s")
      ->capture_default_str()
      ->check(NumberIn(0, 1e6, true));
  sim->add_option("--compute-gbps", sa->throughput.compute_gbps, "Pipeline compute rate, GB/s of input")
      ->capture_default_str()
      ->check(NumberIn(0, 1e6, true));
  sim->add_option_function<std::string>(
         "--overlap", [sa](const std::string& v) { sa->throughput.overlap = v == "full"; },
         "Compute and I/O of a stage: full (time = the longer of the two, the default) or none "
         "(they add up: tasks that read, then process)")
      ->check(CLI::IsMember({"full", "none"}));
  sim->callback([sa, exit_code] { *exit_code = RunSimulate(*sa); });

  auto ta = std::make_shared<SimulateArgs>();
  ta->size = "10%";
  CLI::App* train = sub.add_subcommand("train", "Train smartcache's models on a trace and write a model file");
  train->add_option("TRACE", ta->trace, "Trace file")->required();
  train->add_option("-o,--out", ta->out, "Model file to write (JSON)")->required();
  train->add_option("--size", ta->size, "Cache size the learner runs at (percentage or bytes)")
      ->capture_default_str();
  train->add_option("--seed", ta->seed, "Seed of the learner")->capture_default_str();
  train->add_option("--format", ta->format, "Trace format: auto, frugal, csv, oracle")->capture_default_str();
  train->add_option("--model", ta->model, "Model file to continue from");
  train->add_flag("--json", ta->json, "Machine-readable output");
  train->callback([ta, exit_code] { *exit_code = RunTrain(*ta); });

  auto ga = std::make_shared<GenArgs>();
  CLI::App* gen = sub.add_subcommand("gen", "Generate a Beam-like pipeline I/O trace");
  gen->add_option("--preset", ga->o.preset, "Preset: image, text, join")->capture_default_str();
  gen->add_option("-o,--out", ga->out, "Output trace (.frt binary or .csv)")->required();
  gen->add_option("--format", ga->format, "Output format: auto, frugal, csv")->capture_default_str();
  gen->add_option("--pipelines", ga->o.pipelines, "Pipelines running each day")->capture_default_str();
  gen->add_option("--days", ga->o.days, "Daily re-runs")->capture_default_str();
  gen->add_option("--scale", ga->o.scale, "Multiplier of every file size")->capture_default_str();
  gen->add_option("--straggler-prob", ga->o.straggler_prob, "Chance a worker is a straggler")
      ->capture_default_str();
  gen->add_option("--retry-prob", ga->o.retry_prob, "Chance an output bundle is retried")->capture_default_str();
  gen->add_option("--seed", ga->o.seed, "Random seed")->capture_default_str();
  gen->callback([ga, exit_code] { *exit_code = RunGen(*ga); });

  auto ia = std::make_shared<SimulateArgs>();
  CLI::App* info = sub.add_subcommand("info", "Counts, footprint and skipped records of a trace");
  info->add_option("TRACE", ia->trace, "Trace file")->required();
  info->add_option("--format", ia->format, "Trace format: auto, frugal, csv, oracle")->capture_default_str();
  info->add_flag("--json", ia->json, "Machine-readable output");
  info->callback([ia, exit_code] { *exit_code = RunInfo(ia->trace, ia->format, ia->json); });

  auto pa = std::make_shared<SimulateArgs>();
  auto repeat = std::make_shared<int>(10);
  pa->size = "10%";
  CLI::App* speed = sub.add_subcommand("speed", "Time one policy's simulation on one core (requests/s)");
  speed->add_option("TRACE", pa->trace, "Trace file")->required();
  speed->add_option("--policy", pa->policy, "Policy name")->capture_default_str();
  speed->add_option("--size", pa->size, "Cache size (the first of a list)")->capture_default_str();
  speed->add_option("--format", pa->format, "Trace format")->capture_default_str();
  speed->add_option("--repeat", *repeat, "Passes; the best is reported")
      ->capture_default_str()
      ->check(IntIn(1, 1000000));
  speed->add_flag("--json", pa->json, "Machine-readable output");
  speed->callback([pa, repeat, exit_code] { *exit_code = RunSpeed(*pa, *repeat); });

  auto list_json = std::make_shared<bool>(false);
  CLI::App* list = sub.add_subcommand("list", "List policies, generator presets and trace formats");
  list->add_flag("--json", *list_json, "Machine-readable output");
  list->callback([list_json, exit_code] { *exit_code = RunList(*list_json); });

  AddCacheMount(sub, exit_code);
}

}  // namespace frugal::cli
