// GPU fragmentation as FGD (Weng et al., ATC'23) defines it. The target
// workload is a list of typical pod shapes with popularity weights: the
// trace's (CPU, GPU-milli, GPU count, GPU models) specs, CPU-only pods
// included, most popular first (ties: larger shape first) until they cover
// the threshold (95 %) of pods, renormalised to sum to 1.
//
// A node's fragment for one typical pod is the free GPU-milli that pod
// cannot use: all of it when the pod cannot run there at all (too little
// CPU, too few fitting GPUs, a GPU model it refuses, or no GPU wanted),
// else the free milli of the GPUs with less free than it asks. The node's
// fragmentation is the popularity-weighted sum (FGD's
// NodeGpuShareFragAmountScore). It depends only on the node's CPU left,
// GPU model and multiset of free GPU-milli, so FragMemo caches it by that
// key. TypicalPods are values; a FragMemo is used by one thread at a time.
#ifndef FRUGAL_SHARE_FRAG_H_
#define FRUGAL_SHARE_FRAG_H_

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "frugal/share/cluster.h"

namespace frugal::share {

struct TypicalPod {
  PodShape shape;
  double weight = 0;  // popularity, the weights sum to 1
};

struct TypicalPodOptions {
  double popularity_threshold = 0.95;  // Default: FGD's 95 %
  bool include_cpu_pods = true;        // Default: as FGD's experiments
};

// REQUIRES: pods non-empty.
std::vector<TypicalPod> BuildTypicalPods(const std::vector<PodSpec>& pods,
                                         const TypicalPodOptions& options = {});

// G-Share's target workload: half FGD's typical pods (popular shapes,
// renormalised), half every shape of the trace at its own frequency. The
// popular shapes dominate as in FGD, but rare shapes — 8-GPU pods, pods
// bound to a scarce GPU model — keep a voice, so descending it does not
// break up the nodes only they can use. Fragmentation is linear in the
// weights, so this is FGD's score under a mixed distribution.
std::vector<TypicalPod> BlendTypicalPods(const std::vector<PodSpec>& pods,
                                         const TypicalPodOptions& options = {});

// Every shape of the trace, CPU-only pods included, at its own frequency:
// the distribution an arriving pod is drawn from.
std::vector<TypicalPod> TraceShapes(const std::vector<PodSpec>& pods);

// Free GPU-milli of `node` that `pod` cannot use (see above).
int64_t NodeFragMilliFor(const NodeState& node, const PodShape& pod);
// Σ weight × NodeFragMilliFor over the typical pods, without the memo.
double NodeFragMilli(const NodeState& node, const std::vector<TypicalPod>& typical);

class FragMemo {
 public:
  explicit FragMemo(const std::vector<TypicalPod>* typical) : typical_(typical) {}
  double Frag(const NodeState& node);
  // Fragmentation after adding `pod` on `gpus` (CPU and GPUs only).
  double FragAfter(const NodeState& node, const PodShape& pod, GpuSet gpus);
  const std::vector<TypicalPod>& typical() const { return *typical_; }
  size_t size() const { return memo_.size(); }

 private:
  struct Key {
    uint64_t a = 0, b = 0, c = 0, d = 0, e = 0;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  const std::vector<TypicalPod>* typical_;
  std::unordered_map<Key, double, KeyHash> memo_;
};

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_FRAG_H_
