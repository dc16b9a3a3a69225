// FGD's fragmentation experiment (ATC'23 §6): schedule a growing workload
// onto a fixed cluster, pods never leaving, and record after every pod the
// unallocated GPU share, the fragmented GPU share and the fragmentation
// ratio, against the workload arrived so far (% of cluster GPU capacity).
//
// Protocol, as FGD's simulator runs it (kubernetes-scheduler-simulator):
//  1. The trace's pods, ordered by name, are shuffled with the seed.
//  2. "Tune" to `tune` × capacity: while the GPU total stays within the
//     target, append pods drawn with replacement from the trace (FGD's
//     check adds the draw's per-GPU milli; so does this). A trace above
//     the target loses random pods instead.
//  3. Each pod in turn: filter the fitting nodes, score them with the
//     policy, take the best (ties: see TieBreak); a pod that fits
//     nowhere fails and is not retried.
// The typical pods for fragmentation come from the untuned trace.
// Metrics at each level are taken just before the first pod that would
// push the arrived workload past it (the final state for the last level).
//
// Runs are independent: (policy, seed) pairs run on `threads` threads;
// results do not depend on the thread count.
#ifndef FRUGAL_SHARE_FRAG_EXPERIMENT_H_
#define FRUGAL_SHARE_FRAG_EXPERIMENT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/share/cluster.h"
#include "frugal/share/filter_order.h"
#include "frugal/share/frag.h"
#include "frugal/share/placement_policy.h"

namespace frugal::share {

// How the scheduler picks among nodes with the same best score. FGD's
// simulator runs on a patched Kubernetes (mental2008/kubernetes
// v1.20.5-minor); measured against its published table, its choice
// behaves as kFirst (the first such node in node-list order): with
// kRandom, FGD spreads one-GPU pods over idle 8-GPU nodes and ends near
// 10 % unallocated instead of 4.6 % (docs/share.md).
enum class TieBreak { kFirst, kRandom };

struct FragExperimentOptions {
  std::vector<std::string> policies;             // registry names
  std::vector<uint64_t> seeds = {42, 43, 44, 45, 46, 47, 48, 49, 50, 51};
  double tune = 1.3;                             // Default: FGD's 130 %
  std::vector<double> arrived_levels_pct = {50, 70, 80, 85, 90, 95, 100, 105, 110, 120, 130};
  TypicalPodOptions typical;
  TieBreak tie_break = TieBreak::kFirst;
  // Which node kFirst's "first" is (filter_order.h); node-list order by
  // default. Anything else needs kFirst.
  FilterOrder filter_order;
  int threads = 0;                               // 0: hardware threads
  // What errors call the inputs (the CLI gives their paths).
  std::string nodes_source = "the node list";
  std::string pods_source = "the pod trace";
  // Called after each finished run with (done, total); from any thread,
  // one call at a time.
  std::function<void(int, int)> progress;
};

struct FragRun {
  uint64_t seed = 0;
  std::vector<double> unallocated_gpu_pct;  // per level
  std::vector<double> frag_gpu_pct;
  std::vector<double> frag_ratio_pct;
  int64_t pods = 0;
  int64_t failed_pods = 0;
  double arrived_final_pct = 0;
  std::string decision;  // PlacementPolicy::Decision() after the run
};

struct FragPolicyResult {
  std::string policy;
  std::vector<FragRun> runs;  // one per seed, in seed order
  // Medians over the seeds, per level.
  std::vector<double> unallocated_gpu_pct;
  std::vector<double> frag_gpu_pct;
  std::vector<double> frag_ratio_pct;
  double failed_pods = 0;  // median
  // The policy's own decision (PlacementPolicy::Decision); the same in
  // every run of an experiment for gshare, empty for the others.
  std::string decision;
};

struct FragExperimentResult {
  std::vector<double> arrived_pct;
  int64_t cluster_gpu_milli = 0;
  int num_nodes = 0;
  int num_trace_pods = 0;
  std::vector<TypicalPod> typical;
  std::vector<FragPolicyResult> results;  // in options.policies order
};

// InvalidArgument for no nodes, no pods, no GPU capacity, no policies or
// seeds, tune outside (0, 10], levels outside (0, 1000], a filter order
// with random ties or out of range; NotFound for an unknown policy.
Result<FragExperimentResult> RunFragExperiment(const std::vector<NodeSpec>& nodes,
                                               const std::vector<PodSpec>& pods,
                                               const FragExperimentOptions& options);

// The experiment's rollouts (fresh arrival sequences of `pods` on an empty
// `nodes`, at `options`' levels, tune, ties and filter order) for a policy
// that decides by them outside an experiment: gshare in the scheduler
// extender. Each (policy, k) replays once, lazily. nullptr when the nodes
// have no GPU or no pod asks for one. Not thread-safe.
std::unique_ptr<Rollouts> MakeFragRollouts(std::vector<NodeSpec> nodes, std::vector<PodSpec> pods,
                                           const FragExperimentOptions& options = {});

// One run, for tests: the arrival order the protocol builds for `seed`.
std::vector<int> BuildArrivals(const std::vector<PodSpec>& pods, int64_t capacity_milli,
                               double tune, uint64_t seed);

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_FRAG_EXPERIMENT_H_
