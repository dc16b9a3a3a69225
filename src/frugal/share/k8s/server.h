// `frugal share extender`'s HTTP side: a Kubernetes scheduler extender
// (KubeSchedulerConfiguration `extenders:`, k8s.io/kube-scheduler/extender/v1)
// that answers
//   POST .../filter      ExtenderArgs        -> ExtenderFilterResult
//   POST .../prioritize  ExtenderArgs        -> HostPriorityList
//   POST .../bind        ExtenderBindingArgs -> ExtenderBindingResult
//   GET  /healthz        "ok"
//   GET  /state          the extender's view of the cluster (JSON)
// with one Extender. Before a filter call it brings the cluster up to
// date: from a ClusterWatch (watch.h) when it has one, reading only what
// changed; else by listing it from the API server (nodes; pods bound and
// not finished; at most every ServerOptions::resync_s). Bind writes the
// pod's alibabacloud.com/gpu-index annotation, then binds it. Handlers
// run on the server's threads one at a time (a mutex), so the cluster
// view is never read while it changes.
#ifndef FRUGAL_SHARE_K8S_SERVER_H_
#define FRUGAL_SHARE_K8S_SERVER_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "frugal/base/status.h"
#include "frugal/share/k8s/api_client.h"
#include "frugal/share/k8s/extender.h"

namespace httplib {
class Server;
}

namespace frugal::share::k8s {

class ClusterWatch;

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8888;  // 0: any free port (Bind says which)
  // One line per decision and per problem; Default: silent.
  std::function<void(const std::string&)> log;
  // Seconds since some fixed point; Default: the steady clock.
  std::function<double()> clock;
  // A filter call re-reads the cluster when the last read is at least
  // this old (0: every call). Between reads, this extender's own binds
  // are charged as it makes them; other schedulers' binds and departures
  // show at the next read.
  double resync_s = 0;
  // When set, the cluster view comes from this watch (resync_s unused).
  // Not owned; must outlive the server.
  ClusterWatch* watch = nullptr;
};

class ExtenderServer {
 public:
  ExtenderServer(Extender* extender, ApiClient* api, ServerOptions options);
  ~ExtenderServer();

  // Listens. FailedPrecondition naming the address when it cannot.
  Result<int> Bind();
  // Serves until Stop. REQUIRES: Bind succeeded.
  void Run();
  // From any thread (a signal handler's helper thread, a test).
  void Stop();

  // Serves the cluster from `watch` from now on (see ServerOptions::watch).
  void set_watch(ClusterWatch* watch);

  // Brings the extender's cluster up to date (list, or the watch's changes).
  Status Refresh();

  // The handlers, without HTTP: a request body in, a response body out.
  // A filter or bind that cannot be answered returns {"error": "..."},
  // as the extender protocol asks; prioritize returns an error Status.
  nlohmann::json Filter(const nlohmann::json& args);
  Result<nlohmann::json> Prioritize(const nlohmann::json& args);
  nlohmann::json BindPod(const nlohmann::json& args);
  nlohmann::json State();

 private:
  void Log(const std::string& line) const;
  double Now() const;
  Result<Pod> PodOf(const nlohmann::json& args);
  Status RefreshLocked();  // REQUIRES: mu_ held
  // Hands a listed or watched cluster to the extender. REQUIRES: mu_ held.
  void SyncLocked(const std::vector<Node>& nodes, const std::vector<Pod>& pods, int skipped,
                  const std::string& first_skip, double since,
                  const std::vector<std::string>& departed = {});
  nlohmann::json WatchJson() const;

  Extender* extender_;
  ApiClient* api_;
  ServerOptions options_;
  std::unique_ptr<httplib::Server> http_;
  std::mutex mu_;
  std::map<std::string, Pod> pending_;  // pods seen by filter, by UID
  int skipped_objects_ = 0;             // of the last Refresh
  int short_charged_ = 0;
  int64_t binds_ = 0, bind_failures_ = 0, filters_ = 0, syncs_ = 0;
  // Wall seconds spent, in all: waiting for the API server's lists,
  // reading them into the cluster model, and deciding (filter, bind).
  double api_s_ = 0, sync_s_ = 0, decide_s_ = 0;
  double last_refresh_ = 0;
  bool refreshed_ = false;
};

}  // namespace frugal::share::k8s

#endif  // FRUGAL_SHARE_K8S_SERVER_H_
