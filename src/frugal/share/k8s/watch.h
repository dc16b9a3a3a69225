// The cluster as the API server has it, kept current by watching, as
// client-go's informers do: list the nodes and the bound, unfinished pods,
// then watch each list from its resourceVersion (ADDED / MODIFIED /
// DELETED events; BOOKMARKs move the version on). A watch the server ends
// (its timeout, or a quiet stream) is re-opened from the last version; one
// it refuses as too old (410 Gone) is re-listed; an unreachable server is
// retried every second. A pod that finishes or is deleted leaves the pod
// watch's field selector, which the server reports as DELETED.
//
// Two threads watch (nodes, pods) and keep the raw objects; Snapshot reads
// into the cluster model only the objects that changed since the last
// Snapshot, on the caller's thread (the GpuModelTable is the caller's).
#ifndef FRUGAL_SHARE_K8S_WATCH_H_
#define FRUGAL_SHARE_K8S_WATCH_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "frugal/base/status.h"
#include "frugal/share/k8s/api_client.h"
#include "frugal/share/k8s/objects.h"

namespace frugal::share::k8s {

// Nodes with pods on them, not finished: what holds resources.
inline constexpr const char* kBoundPodsPath =
    "/api/v1/pods?fieldSelector=spec.nodeName%21%3D%2Cstatus.phase%21%3DSucceeded"
    "%2Cstatus.phase%21%3DFailed";

struct WatchStats {
  int64_t events = 0;    // applied, bookmarks excluded
  int64_t lists = 0;     // full lists, the first two included
  int64_t rewatches = 0; // watches re-opened after the server ended one
  int64_t errors = 0;    // failed lists or watches (each retried)
};

class ClusterWatch {
 public:
  // `log` (optional) gets one line per problem; it is called from the
  // watch threads.
  ClusterWatch(ApiOptions api, std::function<void(const std::string&)> log = {});
  ~ClusterWatch();  // Stop()

  // Lists nodes and pods once (errors name the request), then starts the
  // watch threads.
  Status Start();
  void Stop();

  // The objects now, read into the cluster model; each object that cannot
  // be read is skipped (counted, with the first reason). `changed` says
  // whether anything differs from the previous Snapshot.
  struct View {
    std::vector<Node> nodes;
    std::vector<Pod> pods;
    int skipped = 0;
    std::string first_skip;
    bool changed = false;
    // UIDs of the pods that left the watched list (deleted, or finished
    // and so out of the bound-pod selector) since the last Snapshot: a
    // pod may bind and finish between two Snapshots, and never show.
    std::vector<std::string> departed;
  };
  View Snapshot(GpuModelTable* models);

  // Blocks until an event (or list) arrives after `generation`, or
  // timeout_s passes; returns the generation then. For tests and tools.
  uint64_t WaitChange(uint64_t generation, double timeout_s);
  uint64_t generation() const;
  WatchStats stats() const;

 private:
  // One watched list: its raw objects by key, the keys changed since the
  // last Snapshot, and their parsed forms.
  struct Kind {
    std::string list_path;  // the list; "watch=1" is added to it
    std::string version;    // resourceVersion to watch from; empty: list
    std::map<std::string, nlohmann::json> raw;
    std::map<std::string, bool> dirty;  // key -> present
  };
  Status List(ApiClient& api, Kind& kind);
  // Applies one event line; false when the watch must be re-listed.
  bool Apply(Kind& kind, const std::string& line);
  void Loop(Kind& kind);
  void Touch();  // REQUIRES: mu_ held
  void Log(const std::string& line) const;

  ApiOptions api_options_;
  std::function<void(const std::string&)> log_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  Kind nodes_, pods_;
  std::map<std::string, Node> parsed_nodes_;
  std::map<std::string, Pod> parsed_pods_;
  std::map<std::string, std::string> node_errors_, pod_errors_;
  uint64_t generation_ = 0, snapshot_generation_ = 0;
  bool first_snapshot_ = true;
  std::vector<std::string> departed_;  // since the last Snapshot
  WatchStats stats_;
  std::atomic<bool> stop_{false};
  std::vector<ApiClient*> active_;  // clients of running watches, for Stop
  std::vector<std::thread> threads_;
};

}  // namespace frugal::share::k8s

#endif  // FRUGAL_SHARE_K8S_WATCH_H_
