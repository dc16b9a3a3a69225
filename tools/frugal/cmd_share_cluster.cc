// `frugal share policies` and `frugal share frag`: the placement policy
// table and FGD's fragmentation experiment on Alibaba's GPU trace.
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli_util.h"
#include "frugal/base/file_io.h"
#include "frugal/hw/catalog.h"
#include "frugal/share/frag_experiment.h"
#include "frugal/share/node_trace.h"
#include "frugal/share/placement_registry.h"
#include "frugal/share/pod_trace.h"
#include "share_verbs.h"

namespace frugal::cli {

std::string AlibabaTraceDir() {
  return SharedDataDir() + "/traces/alibaba-gpu-v2023";
}

share::TraceReadOptions ShareTraceReadOptions() {
  share::TraceReadOptions o;
  // Catalog GPU names may name node models too (a what-if cluster).
  if (auto catalog = LoadCatalog(DefaultCatalogPath()); catalog.ok()) {
    for (const auto& g : catalog->gpus()) o.known_models.push_back(g.name);
  }
  return o;
}

namespace {

using share::FragExperimentOptions;
using share::FragExperimentResult;

struct FragArgs {
  std::string pods;
  std::string nodes;
  std::string policy = "all";
  std::string seeds = "42-51";
  double tune = 1.3;
  int threads = 0;
  std::string tie_break = "first";
  std::string filter_order = "list";
  bool json = false;
  std::string out;
};

// "42-51", "42,45,50" or "7".
Result<std::vector<uint64_t>> ParseSeeds(const std::string& text) {
  std::vector<uint64_t> out;
  auto num = [](std::string_view s, uint64_t* v) {
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
    return ec == std::errc() && p == s.data() + s.size() && !s.empty();
  };
  std::string_view rest = text;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view part = rest.substr(0, comma);
    const size_t dash = part.find('-');
    uint64_t a = 0, b = 0;
    if (dash == std::string_view::npos) {
      if (!num(part, &a)) {
        return InvalidArgument(std::string(kUsagePrefix) + "--seeds: bad seed '" + std::string(part) + "'");
      }
      b = a;
    } else if (!num(part.substr(0, dash), &a) || !num(part.substr(dash + 1), &b) || b < a) {
      return InvalidArgument("--seeds: bad range '" + std::string(part) + "'");
    }
    if (b - a >= 10000 || out.size() + (b - a) >= 10000) {
      return InvalidArgument("--seeds: at most 10000 seeds");
    }
    for (uint64_t s = a; s <= b; ++s) out.push_back(s);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

nlohmann::json ToJson(const FragArgs& a, const FragExperimentOptions& o,
                      const FragExperimentResult& r, const share::GpuModelTable& models) {
  nlohmann::json j;
  j["pods"] = a.pods;
  j["nodes"] = a.nodes;
  j["tune"] = o.tune;
  j["tie_break"] = a.tie_break;
  j["filter_order"] = share::FilterOrderName(o.filter_order);
  j["seeds"] = o.seeds;
  j["num_nodes"] = r.num_nodes;
  j["cluster_gpus"] = r.cluster_gpu_milli / share::kMilliPerGpu;
  j["trace_pods"] = r.num_trace_pods;
  nlohmann::json typical = nlohmann::json::array();
  for (const auto& t : r.typical) {
    std::string spec;
    for (int m = 1; m < models.size(); ++m) {
      if ((t.shape.models >> m) & 1u) spec += (spec.empty() ? "" : "|") + models.Name(m);
    }
    typical.push_back({{"cpu_milli", t.shape.cpu_milli},
                       {"num_gpu", t.shape.num_gpu},
                       {"gpu_milli", t.shape.gpu_milli},
                       {"gpu_spec", spec},
                       {"weight", t.weight}});
  }
  j["typical_pods"] = typical;
  j["arrived_pct"] = r.arrived_pct;
  nlohmann::json results = nlohmann::json::array();
  for (const auto& p : r.results) {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& run : p.runs) {
      runs.push_back({{"seed", run.seed},
                      {"pods", run.pods},
                      {"failed_pods", run.failed_pods},
                      {"arrived_final_pct", run.arrived_final_pct},
                      {"unallocated_gpu_pct", run.unallocated_gpu_pct}});
    }
    nlohmann::json one = {{"policy", p.policy},
                          {"arrived_pct", r.arrived_pct},
                          {"unallocated_gpu_pct", p.unallocated_gpu_pct},
                          {"frag_gpu_pct", p.frag_gpu_pct},
                          {"frag_ratio_pct", p.frag_ratio_pct},
                          {"failed_pods", p.failed_pods},
                          {"runs", runs}};
    if (!p.decision.empty()) one["decision"] = p.decision;
    results.push_back(std::move(one));
  }
  j["results"] = results;
  return j;
}

void PrintFragTable(const FragExperimentResult& r, const char* title,
                    std::vector<double> share::FragPolicyResult::*metric) {
  std::string line = fmt::format("{:<16}", title);
  for (double l : r.arrived_pct) line += fmt::format("{:>7}", fmt::format("{:g}%", l));
  std::fputs((line + "\n").c_str(), stdout);
  for (const auto& p : r.results) {
    line = fmt::format("  {:<14}", p.policy);
    for (double v : p.*metric) line += fmt::format("{:>7.2f}", v);
    std::fputs((line + "\n").c_str(), stdout);
  }
}

int RunFrag(FragArgs a) {
  const bool default_pods = a.pods.empty(), default_nodes = a.nodes.empty();
  if (default_pods) a.pods = AlibabaTraceDir() + "/openb_pod_list_default.csv";
  if (default_nodes) a.nodes = AlibabaTraceDir() + "/openb_node_list_gpu_node.csv";
  for (const auto& [given, path] : {std::pair{!default_pods, a.pods}, {!default_nodes, a.nodes}}) {
    if (!given && CheckInputFile(path, -1).code() == StatusCode::kNotFound) {
      return ReportError(NotFound("default trace " + path +
                                  " not found: pass --pods FILE and --nodes FILE"));
    }
  }
  FragExperimentOptions o;
  auto policies = share::ParsePlacementPolicyList(a.policy);
  if (!policies.ok()) return ReportError(policies.status());
  o.policies = *policies;
  auto seeds = ParseSeeds(a.seeds);
  if (!seeds.ok()) return ReportError(seeds.status());
  o.seeds = *seeds;
  o.tune = a.tune;
  if (a.tie_break == "random") {
    o.tie_break = share::TieBreak::kRandom;
  } else if (a.tie_break != "first") {
    return ReportError(InvalidArgument("--tie-break: 'first' or 'random', got '" + a.tie_break + "'"));
  }
  auto filter_order = share::ParseFilterOrder(a.filter_order);
  if (!filter_order.ok()) return ReportError(filter_order.status().WithPrefix("--filter-order"));
  o.filter_order = *filter_order;
  if (!o.filter_order.node_list() && o.tie_break == share::TieBreak::kRandom) {
    return ReportUsage("--filter-order " + a.filter_order +
                       " orders the first of equal scores; it needs --tie-break first");
  }
  o.threads = a.threads;
  share::GpuModelTable models;
  const share::TraceReadOptions read = ShareTraceReadOptions();
  auto nodes = share::ReadNodeList(a.nodes, &models, read);
  if (!nodes.ok()) return ReportError(nodes.status());
  auto pods = share::ReadPodTrace(a.pods, &models, read);
  if (!pods.ok()) return ReportError(pods.status());
  if (isatty(STDERR_FILENO)) {
    o.progress = [](int done, int total) {
      std::fprintf(stderr, "\rfrag: %d/%d runs%s", done, total, done == total ? "\n" : "");
      std::fflush(stderr);
    };
  }
  o.nodes_source = a.nodes;
  o.pods_source = a.pods;
  auto r = share::RunFragExperiment(*nodes, *pods, o);
  if (!r.ok()) return ReportError(r.status());
  const nlohmann::json j = ToJson(a, o, *r, models);
  if (!a.out.empty()) {
    Status st = WriteStringToFile(a.out, j.dump(2) + "\n");
    if (!st.ok()) return ReportError(st);
  }
  if (a.json) {
    PrintJson(j);
    return 0;
  }
  std::fputs(fmt::format("{} nodes, {} GPUs; {} trace pods, tuned to {:g} % of GPU capacity; "
                         "{} typical pod shapes; median of {} seeds\n",
                         r->num_nodes, r->cluster_gpu_milli / share::kMilliPerGpu,
                         r->num_trace_pods, 100 * o.tune, r->typical.size(), o.seeds.size())
                 .c_str(),
             stdout);
  std::fputs("\nunallocated GPU % of capacity, by arrived workload\n", stdout);
  PrintFragTable(*r, "policy", &share::FragPolicyResult::unallocated_gpu_pct);
  std::fputs("\nfragmented GPU % of capacity\n", stdout);
  PrintFragTable(*r, "policy", &share::FragPolicyResult::frag_gpu_pct);
  std::fputs("\nfragmentation ratio % (fragmented / idle)\n", stdout);
  PrintFragTable(*r, "policy", &share::FragPolicyResult::frag_ratio_pct);
  std::fputs("\nfailed pods (median)\n", stdout);
  for (const auto& p : r->results) {
    std::fputs(fmt::format("  {:<14}{:>7g}\n", p.policy, p.failed_pods).c_str(), stdout);
  }
  for (const auto& p : r->results) {
    if (!p.decision.empty()) std::fputs(fmt::format("\n{}: {}\n", p.policy, p.decision).c_str(), stdout);
  }
  return 0;
}

}  // namespace

void SetupShareCluster(CLI::App& share, int* exit_code) {
  auto* policies = share.add_subcommand("policies", "List the cluster placement policies");
  auto policies_json = std::make_shared<bool>(false);
  policies->add_flag("--json", *policies_json, "JSON array of {name, help}");
  policies->callback([policies_json, exit_code] {
    *exit_code = PrintRegistry(share::PlacementPolicies(), *policies_json);
  });

  auto* frag = share.add_subcommand(
      "frag", "FGD's fragmentation experiment: unallocated and fragmented GPUs as a trace "
              "fills a cluster");
  auto a = std::make_shared<FragArgs>();
  frag->add_option("--pods", a->pods, "pod list CSV (default: the shared Alibaba trace's "
                                      "openb_pod_list_default.csv)");
  frag->add_option("--nodes", a->nodes, "node list CSV (default: openb_node_list_gpu_node.csv)");
  frag->add_option("--policy", a->policy, "all, or a comma-separated list (frugal share policies)")
      ->capture_default_str();
  frag->add_option("--seeds", a->seeds, "seeds: 42-51, or 1,2,3")->capture_default_str();
  frag->add_option("--tune", a->tune, "arrivals until this × GPU capacity")
      ->capture_default_str()
      ->check(NumberIn(0, 10, true));
  frag->add_option("--threads", a->threads, "worker threads (0: all cores)")
      ->capture_default_str()
      ->check(IntIn(0, 1024));
  frag->add_option("--tie-break", a->tie_break,
                   "equal best scores: first node in list order (FGD's simulator) or random")
      ->capture_default_str();
  frag->add_option("--filter-order", a->filter_order,
                   "which node is 'first': list (node-list order), or parallel:P[:J], "
                   "Kubernetes' parallel filter with P of its 16 goroutines at once and "
                   "each check 1 ± J time units (docs/share.md)")
      ->capture_default_str();
  frag->add_flag("--json", a->json, "JSON output");
  frag->add_option("--out", a->out, "also write the JSON document to FILE");
  frag->callback([a, exit_code] { *exit_code = RunFrag(*a); });
}

}  // namespace frugal::cli
