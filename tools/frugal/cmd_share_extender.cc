// `frugal share extender`: G-Share's placement policies as a Kubernetes
// scheduler extender (docs/share.md, "In a Kubernetes cluster"), or with
// --check one look at the cluster as the extender sees it.
#include <pthread.h>
#include <signal.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "cli_util.h"
#include "frugal/base/file_io.h"
#include "frugal/share/k8s/api_client.h"
#include "frugal/share/k8s/extender.h"
#include "frugal/share/k8s/server.h"
#include "frugal/share/k8s/watch.h"
#include "frugal/share/placement_registry.h"
#include "frugal/share/pod_trace.h"
#include "share_verbs.h"

namespace frugal::cli {
namespace {

namespace k8s = share::k8s;

struct ExtenderArgs {
  std::string policy = "fgd";
  std::string workload;
  std::string listen = "127.0.0.1:8888";
  std::string api;
  std::string token_file;
  std::string ca_file;
  std::string filter = "best";
  uint64_t seed = 42;
  double assume_ttl_s = 60;
  double timeout_s = 10;
  double resync_s = 0;
  bool quiet = false;
  bool watch = false;
  bool check = false;
  bool json = false;
  // Flags the user gave that --check or the policy cannot use.
  std::vector<std::string> given_unused_by_check;
  bool seed_given = false;
};

// "HOST:PORT", ":PORT" (all interfaces) or "PORT" (loopback).
Status ParseListen(const std::string& text, k8s::ServerOptions* o) {
  const size_t colon = text.rfind(':');
  std::string host = colon == std::string::npos ? "127.0.0.1" : text.substr(0, colon);
  const std::string port = colon == std::string::npos ? text : text.substr(colon + 1);
  if (host.empty()) host = "0.0.0.0";
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  int p = -1;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || p < 0 || p > 65535) {
    return InvalidArgument("--listen '" + text + "': expected HOST:PORT with a port in 0..65535");
  }
  o->host = host;
  o->port = p;
  return Status::Ok();
}

void LogLine(const std::string& line) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
  std::fprintf(stderr, "%s %s\n", stamp, line.c_str());
  std::fflush(stderr);
}

int PrintCheck(k8s::ExtenderServer& server, bool json) {
  const nlohmann::json state = server.State();
  if (json) {
    PrintJson(state);
    return 0;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& n : state["nodes"]) {
    std::string gpus;
    for (const auto& g : n["gpu_milli_free"]) gpus += (gpus.empty() ? "" : " ") + g.dump();
    rows.push_back({n["name"].get<std::string>(), n["gpu_model"].get<std::string>(),
                    n["schedulable"].get<bool>() ? "yes" : "cordoned",
                    fmt::format("{}", n["cpu_milli_free"].get<int64_t>()),
                    fmt::format("{}", n["memory_mib_free"].get<int64_t>()),
                    gpus.empty() ? "-" : gpus,
                    fmt::format("{:.0f}", n["frag_gpu_milli"].get<double>())});
  }
  std::fputs(fmt::format("{}: {} nodes, {} GPUs; unallocated {:.2f} % of GPU capacity, "
                         "fragmented {:.2f} % ({} filter, policy {})\n\n",
                         state["api"].get<std::string>(), rows.size(), state["gpus"].get<int64_t>(),
                         state["unallocated_gpu_pct"].get<double>(),
                         state["frag_gpu_pct"].get<double>(), state["filter"].get<std::string>(),
                         state["policy"].get<std::string>())
                 .c_str(),
             stdout);
  PrintTable({"node", "gpu model", "schedulable", "cpu milli free", "memory MiB free",
              "GPU milli free (per GPU)", "frag milli"},
             rows, 3);
  if (const std::string d = state["decision"].get<std::string>(); !d.empty()) {
    std::fputs(fmt::format("\n{}: {}\n", state["policy"].get<std::string>(), d).c_str(), stdout);
  }
  if (const int skipped = state["skipped_objects"].get<int>(); skipped > 0) {
    std::fputs(fmt::format("\n{} object(s) could not be read and are left out (run without "
                           "--check to see why in the log)\n",
                           skipped)
                   .c_str(),
               stdout);
  }
  return 0;
}

int RunExtender(ExtenderArgs a) {
  if (a.json && !a.check) return ReportUsage("--json needs --check (the server logs lines)");
  if (a.check && !a.given_unused_by_check.empty()) {
    return ReportUsage(a.given_unused_by_check[0] + " does not apply with --check (it serves nothing)");
  }
  k8s::ExtenderOptions eo;
  // One policy scores a live cluster: no list, no `all`.
  if (auto policy = share::MakePlacementPolicy(a.policy); !policy.ok()) {
    if (a.policy.find(',') != std::string::npos || a.policy == "all") {
      return ReportUsage("--policy takes one placement policy, got '" + a.policy + "'");
    }
    return ReportError(policy.status().WithPrefix("--policy"));
  }
  eo.policy = a.policy;
  if (a.watch && a.resync_s > 0) {
    return ReportUsage("--resync does not apply with --watch (the watch keeps the cluster current)");
  }
  if (a.seed_given && eo.policy != "random") {
    return ReportUsage("--seed applies to --policy random only, not " + eo.policy);
  }
  auto filter = k8s::ParseExtenderFilter(a.filter);
  if (!filter.ok()) return ReportError(filter.status().WithPrefix("--filter"));
  eo.filter = *filter;
  eo.seed = a.seed;
  eo.assume_ttl_s = a.assume_ttl_s;
  k8s::ServerOptions so;
  if (Status s = ParseListen(a.listen, &so); !s.ok()) return ReportError(s);
  so.resync_s = a.resync_s;

  const bool default_workload = a.workload.empty();
  if (default_workload) a.workload = AlibabaTraceDir() + "/openb_pod_list_default.csv";
  if (default_workload && CheckInputFile(a.workload, -1).code() == StatusCode::kNotFound) {
    return ReportError(NotFound("default workload trace " + a.workload +
                                " not found: pass --workload FILE (a pod list CSV)"));
  }
  share::GpuModelTable models;
  auto workload = share::ReadPodTrace(a.workload, &models, ShareTraceReadOptions());
  if (!workload.ok()) return ReportError(workload.status());
  auto extender = k8s::Extender::Create(eo, *workload, std::move(models));
  if (!extender.ok()) return ReportError(extender.status().WithPrefix(a.workload));

  k8s::ApiOptions ao = k8s::DefaultApiOptions();
  if (!a.api.empty()) ao.url = a.api;
  if (!a.token_file.empty()) ao.token_file = a.token_file;
  if (!a.ca_file.empty()) ao.ca_file = a.ca_file;
  ao.timeout_s = a.timeout_s;
  for (const std::string* f : {&ao.token_file, &ao.ca_file}) {
    if (!f->empty()) {
      if (Status s = CheckInputFile(*f, 1 << 20); !s.ok()) return ReportError(s);
    }
  }
  auto api = k8s::ApiClient::Create(ao);
  if (!api.ok()) return ReportError(api.status());
  if (!a.quiet && !a.check) so.log = LogLine;
  k8s::ExtenderServer server(extender->get(), api->get(), so);

  if (a.check) {
    if (Status s = server.Refresh(); !s.ok()) return ReportError(s);
    return PrintCheck(server, a.json);
  }
  // Signals go to one helper thread, which stops the server; every other
  // thread (httplib's workers included) inherits the blocked mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  auto port = server.Bind();
  if (!port.ok()) return ReportError(port.status());
  // Declared after the server, so it stops before the server goes.
  std::unique_ptr<k8s::ClusterWatch> watch;
  if (a.watch) {
    watch = std::make_unique<k8s::ClusterWatch>(ao, so.log);
    if (Status s = watch->Start(); !s.ok()) return ReportError(s.WithPrefix("--watch"));
    server.set_watch(watch.get());
  }
  if (Status s = server.Refresh(); !s.ok()) {
    LogLine("cannot read the cluster yet (each filter call retries): " + s.message());
  }
  if (const std::string d = (*extender)->decision(); !d.empty()) LogLine(eo.policy + ": " + d);
  LogLine(fmt::format("frugal share extender: policy {}, {} filter, workload {} ({} pods); "
                      "serving http://{}:{}, API server {}{}",
                      eo.policy, a.filter, a.workload, workload->size(), so.host, *port,
                      (*api)->url(), a.watch ? " (watched)" : ""));
  std::thread waiter([&server, signals] {
    int sig = 0;
    sigwait(&signals, &sig);
    server.Stop();
  });
  server.Run();
  // Run returns after Stop; if it returned on its own, wake the waiter.
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  LogLine("frugal share extender: stopped");
  return 0;
}

}  // namespace

void SetupShareExtender(CLI::App& share, int* exit_code) {
  auto* cmd = share.add_subcommand(
      "extender", "Serve a placement policy as a Kubernetes scheduler extender "
                  "(filter, prioritize, bind; docs/share.md)");
  auto a = std::make_shared<ExtenderArgs>();
  cmd->add_option("--policy", a->policy, "placement policy (frugal share policies)")
      ->capture_default_str();
  cmd->add_option("--workload", a->workload,
                  "pod list CSV whose popular shapes are the typical pods (default: the shared "
                  "Alibaba trace's openb_pod_list_default.csv)");
  cmd->add_option("--listen", a->listen, "address to serve on: HOST:PORT, :PORT (all interfaces)")
      ->capture_default_str();
  cmd->add_option("--api", a->api,
                  "API server URL (default: in a pod, the in-cluster service; else "
                  "http://127.0.0.1:8001, `kubectl proxy`)");
  cmd->add_option("--token-file", a->token_file,
                  "bearer token file, re-read on every request (default in a pod: the service "
                  "account's)");
  cmd->add_option("--ca-file", a->ca_file, "CA bundle for an https API server");
  cmd->add_option("--filter", a->filter,
                  "best: keep only the nodes the policy scores best (the scheduler must take "
                  "one); fit: keep every node that fits, rank them in prioritize")
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "the random policy's seed")->capture_default_str();
  cmd->add_option("--assume-ttl", a->assume_ttl_s,
                  "seconds a pod this extender bound counts on its node before the API server "
                  "lists it")
      ->capture_default_str()
      ->check(NumberIn(0, 86400, true));
  cmd->add_option("--timeout", a->timeout_s, "API request timeout, seconds")
      ->capture_default_str()
      ->check(NumberIn(0, 3600, true));
  cmd->add_option("--resync", a->resync_s,
                  "re-read the cluster before a filter call only when the last read is this many "
                  "seconds old (0: every call; the extender's own binds count at once)")
      ->capture_default_str()
      ->check(NumberIn(0, 3600));
  cmd->add_flag("--watch", a->watch,
                "keep the cluster view current by watching the API server (list once, then "
                "follow its events) instead of listing it for filter calls");
  cmd->add_flag("--quiet", a->quiet, "no log lines");
  cmd->add_flag("--check", a->check,
                "read the cluster once, print each node's free resources and fragmentation, exit");
  cmd->add_flag("--json", a->json, "with --check: the cluster view as JSON");
  cmd->callback([a, cmd, exit_code] {
    for (const char* flag : {"--listen", "--resync", "--assume-ttl", "--quiet", "--watch"}) {
      if (cmd->count(flag) > 0) a->given_unused_by_check.emplace_back(flag);
    }
    a->seed_given = cmd->count("--seed") > 0;
    *exit_code = RunExtender(*a);
  });
}

}  // namespace frugal::cli
