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
#include <vector>

#include "frugal/base/rng.h"
#include "frugal/share/cluster.h"
#include "frugal/share/frag.h"

namespace frugal::share {

// What a policy may consult besides the node: the target workload and its
// fragmentation memo, and the run's random stream.
struct ScoreContext {
  FragMemo* frag = nullptr;
  // Fragmentation under G-Share's target workload (BlendTypicalPods):
  // FGD's popular shapes blended with every shape of the trace.
  FragMemo* blend_frag = nullptr;
  SplitMix64* rng = nullptr;
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
  // Called before each arrival whose workload crosses a step of
  // kObserveStepPct % of capacity, with the cluster's nodes. A policy whose
  // scores change with them returns true; the scheduler then drops its
  // cached scores.
  virtual bool Observe(ScoreContext& ctx, const std::vector<NodeState>& nodes) {
    (void)ctx, (void)nodes;
    return false;
  }
};

inline constexpr double kObserveStepPct = 5.0;

// Kubernetes' score range, used by the policies FGD compared.
inline constexpr int64_t kMaxNodeScore = 100;

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_PLACEMENT_POLICY_H_
