// A Kubernetes scheduler extender's decisions with G-Share's placement
// policies: the cluster as the API server lists it (nodes, the pods bound
// to them and the GPUs each holds), plus the pods this extender bound that
// the listing does not show yet; Filter, Prioritize and Bind answer the
// scheduler's three extender calls for one pending pod.
//
// The policies score as in FGD's experiment (frag_experiment.h): a node
// that fits (CPU, memory, GPU model, enough GPUs with enough free milli)
// gets the policy's score, the target workload's typical pods are built
// from a pod trace. In ExtenderFilter::kBest mode Filter keeps only the
// nodes with the best score, so the scheduler must take one of them (its
// own filters have run first); in kFit mode Filter keeps every node that
// fits and Prioritize maps scores onto the scheduler's 0..10.
//
// gshare decides between its two descents as in FGD's experiment: on the
// first Sync that lists GPUs, by replaying the workload on the listed
// cluster, empty (32 replays; seconds on a thousand nodes).
//
// Not thread-safe: the server serialises calls.
#ifndef FRUGAL_SHARE_K8S_EXTENDER_H_
#define FRUGAL_SHARE_K8S_EXTENDER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frugal/base/rng.h"
#include "frugal/base/status.h"
#include "frugal/share/cluster.h"
#include "frugal/share/frag.h"
#include "frugal/share/k8s/objects.h"
#include "frugal/share/placement_policy.h"

namespace frugal::share::k8s {

enum class ExtenderFilter { kBest, kFit };
// "best", "fit"; InvalidArgument otherwise.
Result<ExtenderFilter> ParseExtenderFilter(std::string_view name);

// The scheduler's extender score range (k8s.io/kube-scheduler/extender/v1).
inline constexpr int kMaxExtenderPriority = 10;

struct ExtenderOptions {
  std::string policy = "fgd";  // a placement registry name
  ExtenderFilter filter = ExtenderFilter::kBest;
  uint64_t seed = 42;          // the random policy's stream
  // How long a pod this extender bound counts on its node while the
  // listing does not show it bound.
  double assume_ttl_s = 60;
};

struct FilterResult {
  std::vector<std::string> nodes;  // kept, in candidate order
  std::vector<std::pair<std::string, std::string>> failed;  // node, reason
  // Nodes that cannot host the pod however many pods leave them (cordoned,
  // no or too few GPUs, a model the pod refuses, unknown): preemption
  // cannot help there (the protocol's failedAndUnresolvableNodes).
  std::vector<std::pair<std::string, std::string>> unresolvable;
};

struct HostScore {
  std::string host;
  int64_t score = 0;  // 0..kMaxExtenderPriority
};

// What Bind decided: the GPUs the pod gets ("" for a CPU-only pod).
struct Binding {
  std::string node;
  GpuSet gpus = 0;
};

struct NodeView {
  std::string name;
  bool schedulable = true;
  NodeState state;
  double frag_milli = 0;  // under FGD's typical pods
};

class Extender {
 public:
  // `workload` is the pod trace the typical pods are built from (its
  // models interned into `models`, which the extender then owns).
  // InvalidArgument for an empty workload; NotFound for an unknown policy.
  static Result<std::unique_ptr<Extender>> Create(const ExtenderOptions& options,
                                                  const std::vector<PodSpec>& workload,
                                                  GpuModelTable models);

  // The table pod and node objects must be read with.
  GpuModelTable* models() { return &models_; }

  // Replaces the cluster state: `pods` are every pod the listing returned
  // (pending and terminal ones are skipped). A bound pod without a
  // gpu-index annotation (bound by another scheduler) is charged on the
  // GPUs the policy's GPU choice would give it. `now_s` ages the pods
  // this extender bound. Returns how many bound pods could not be charged
  // in full (their node is unknown or overfull). A bind ends its
  // assumption once listed bound, listed terminal, named in `departed`
  // (pods a watch saw leave since the last Sync: bound and finished in
  // between, so never listed), or after assume_ttl_s.
  int Sync(const std::vector<Node>& nodes, const std::vector<Pod>& pods, double now_s,
           const std::vector<std::string>& departed = {});

  FilterResult Filter(const Pod& pod, const std::vector<std::string>& candidates);
  std::vector<HostScore> Prioritize(const Pod& pod, const std::vector<std::string>& candidates);
  // Chooses the pod's GPUs on `node` and charges it there until a Sync
  // lists it bound (or assume_ttl_s passes). FailedPrecondition when the
  // pod does not fit (the cluster changed since Filter); NotFound for an
  // unknown node.
  Result<Binding> Bind(const Pod& pod, const std::string& node, double now_s);
  // Undoes Bind (the API server refused the binding): the node gets back
  // what Bind charged.
  void Forget(const std::string& uid);

  std::vector<NodeView> Nodes() const;
  const ExtenderOptions& options() const { return options_; }
  // What the policy decided from rollouts (gshare: which descent), or "".
  std::string decision() const { return policy_->Decision(); }
  int assumed() const { return static_cast<int>(assumed_.size()); }

 private:
  Extender(const ExtenderOptions& options, GpuModelTable models, std::vector<PodSpec> workload,
           std::unique_ptr<PlacementPolicy> policy);
  struct Entry {
    std::string name;
    bool schedulable = true;
    NodeState state;
  };
  struct Assumed {
    Binding binding;
    PodShape shape;
    int64_t memory_mib = 0;
    double expires_s = 0;
  };
  // Why `pod` cannot run on `e`, or "" when it fits; `*unresolvable`
  // (when given) says whether freeing resources could not change that.
  std::string Misfit(const Entry& e, const PodShape& shape, int64_t memory_mib,
                     bool* unresolvable = nullptr) const;
  // Charges a bound pod; false when its node cannot hold it in full.
  bool Charge(Entry& e, const PodShape& shape, int64_t memory_mib, GpuSet gpus);
  Entry* Find(const std::string& name);

  ExtenderOptions options_;
  GpuModelTable models_;
  std::vector<PodSpec> workload_;
  // The first Sync that lists GPUs offers the policy rollouts of the
  // workload on the listed cluster, empty (frag_experiment.h).
  bool rollouts_offered_ = false;
  std::vector<TypicalPod> typical_;
  std::vector<TypicalPod> blend_;
  std::vector<TypicalPod> trace_shapes_;  // gshare's reservation; no horizon is known here
  FragMemo memo_;
  FragMemo blend_memo_;
  SplitMix64 rng_;
  std::unique_ptr<PlacementPolicy> policy_;
  ScoreContext ctx_;
  std::vector<Entry> nodes_;
  std::unordered_map<std::string, size_t> index_;
  std::map<std::string, Assumed> assumed_;  // by pod UID
};

}  // namespace frugal::share::k8s

#endif  // FRUGAL_SHARE_K8S_EXTENDER_H_
