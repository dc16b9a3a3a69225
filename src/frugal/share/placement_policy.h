// A placement policy scores one node for one pod; the scheduler
// (frag_experiment.h) filters the nodes that fit, scores each, and takes
// the highest score (ties: the first node, or one at random). A policy also says which GPUs of the chosen node the
// pod gets. Scores may depend only on the node's state, the pod's shape
// and the policy's fixed inputs (the typical pods), never on other nodes,
// so the scheduler caches them per node until the node changes; a policy
// that draws random numbers says so (cacheable() false).
//
// Policies are created per simulation run and used by one thread.
#ifndef FRUGAL_SHARE_PLACEMENT_POLICY_H_
#define FRUGAL_SHARE_PLACEMENT_POLICY_H_

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "frugal/base/rng.h"
#include "frugal/share/cluster.h"
#include "frugal/share/frag.h"

namespace frugal::share {

class PlacementPolicy;
using PolicyFactory = std::unique_ptr<PlacementPolicy> (*)();

// Simulation on the experiment's own scheduler and cluster, for a policy
// that chooses how to score by trying (gshare): Run replays a fresh policy
// from `make` (its Observe called as in a real run, with no rollouts of its
// own) from the empty cluster over the k-th rollout arrival sequence —
// drawn from the trace by the experiment's protocol with seeds of its own,
// the same for every run of the experiment, so every run decides alike —
// and returns its unallocated GPU % at the experiment's levels of arrived
// workload. Results may be shared between runs (same make and k, same
// answer). RunMany answers several in `keys` order; an implementation that
// shares results between threads may replay them in any order (each answer
// depends on its key alone), so that threads asking for the same set each
// replay different ones instead of waiting on each other.
struct RolloutKey {
  PolicyFactory make;
  int k;
};
class Rollouts {
 public:
  virtual ~Rollouts() = default;
  virtual std::vector<double> Run(PolicyFactory make, int k) = 0;
  virtual std::vector<std::vector<double>> RunMany(const std::vector<RolloutKey>& keys) {
    std::vector<std::vector<double>> out;
    out.reserve(keys.size());
    for (const RolloutKey& key : keys) out.push_back(Run(key.make, key.k));
    return out;
  }
};

// What a policy may consult besides the node: the target workload and its
// fragmentation memo, the run's random stream, and rollouts.
struct ScoreContext {
  FragMemo* frag = nullptr;
  // Fragmentation under G-Share's target workload (BlendTypicalPods):
  // FGD's popular shapes blended with every shape of the trace.
  FragMemo* blend_frag = nullptr;
  SplitMix64* rng = nullptr;
  // Null inside a rollout and where the caller offers none.
  Rollouts* rollouts = nullptr;
  // Every shape of the trace at its own frequency (gshare's reservation,
  // placement/scarce_slots.h); null where the caller has no trace.
  const std::vector<TypicalPod>* trace_shapes = nullptr;
  // GPU-milli still to arrive where the caller knows it (FGD's experiment:
  // tune × capacity minus what has arrived), set before each Observe; 0
  // where unknown.
  double remaining_milli = 0;
};

struct NodeScore {
  double score = 0;  // higher is better
  GpuSet gpus = 0;   // the GPUs the pod gets on this node (0: CPU-only pod)
};

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  // REQUIRES: node.Fits(pod, memory).
  virtual NodeScore Score(ScoreContext& ctx, const NodeState& node, const PodShape& pod) = 0;
  // False when Score draws from ctx.rng; the scheduler then scores afresh.
  virtual bool cacheable() const { return true; }
  // True for a policy that picks a uniformly random fitting node; Score is
  // then called only for that node, to choose its GPUs.
  virtual bool random_node() const { return false; }
  // Called before the first arrival and before each arrival whose workload
  // crosses a step of kObserveStepPct % of capacity, with the cluster's nodes. A policy whose
  // scores change with them returns true; the scheduler then drops its
  // cached scores.
  virtual bool Observe(ScoreContext& ctx, const std::vector<NodeState>& nodes) {
    (void)ctx, (void)nodes;
    return false;
  }
  // After a run: what the policy decided on its own and why (gshare: the
  // descent its rollouts chose), for the experiment's report; empty for
  // a policy that decides nothing.
  virtual std::string Decision() const { return {}; }
};

inline constexpr double kObserveStepPct = 5.0;

// Kubernetes' score range, used by the policies FGD compared.
inline constexpr int64_t kMaxNodeScore = 100;

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_PLACEMENT_POLICY_H_
