// Look-ahead for pods that may find no host (gshare's reservation). A shape
// of the trace (say an 8-GPU pod asking for 120 CPUs) can run only where a
// node still has room for the whole of it. FGD's fragmentation weighs such
// a shape by its popularity, which for a rare shape is close to nothing, so
// a descent happily breaks up the last nodes that could host it and the
// shape's pods fail when they come. ScarceSlots prices that loss.
//
// For each GPU shape t of the trace: its hosting slots S_t (how many more t
// pods the cluster could take, summed over nodes, each node on its own) and
// its expected arrivals R_t over the look-ahead window (the GPU-milli still
// to arrive where the caller knows it, as FGD's experiment does; else
// kLookAheadCapacity of the cluster's GPU capacity), drawn from the trace's
// shape frequencies.
// Taking one slot from t turns one t pod away exactly when t's demand
// reaches its slots, so a slot is worth P(D_t >= S_t) × t's GPU-milli, with
// D_t ~ Poisson(R_t). Placing a pod of another shape on a node costs the
// slots it takes from every scarce shape, in GPU-milli: the unit of FGD's
// fragmentation, so the two add without a weight.
#ifndef FRUGAL_SHARE_PLACEMENT_SCARCE_SLOTS_H_
#define FRUGAL_SHARE_PLACEMENT_SCARCE_SLOTS_H_

#include <cstdint>
#include <vector>

#include "frugal/share/cluster.h"
#include "frugal/share/frag.h"

namespace frugal::share {

// The window of future arrivals the reservation looks at where no horizon
// is known (a live cluster), as a share of the cluster's GPU capacity.
inline constexpr double kLookAheadCapacity = 0.3;

// How many more pods of `shape` (a GPU shape) `node` could take on its own:
// by CPU, by GPU model, and by GPUs (sharing pods: the slices of every GPU;
// whole-GPU pods: groups of num_gpu GPUs with gpu_milli free). Memory is
// not part of a shape and is not counted.
int64_t HostSlots(const NodeState& node, const PodShape& shape);

// P(D >= s) for D ~ Poisson(mean).
double PoissonTailAtLeast(double mean, int64_t s);

class ScarceSlots {
 public:
  // Re-prices every GPU shape of `trace_shapes` (every shape of the trace,
  // weights = frequencies) on the cluster `nodes`. True when the prices
  // changed (cached scores must then go).
  // `remaining_milli`: the GPU-milli still to arrive where known (0:
  // unknown, look kLookAheadCapacity of the cluster ahead).
  bool Update(const std::vector<TypicalPod>& trace_shapes, const std::vector<NodeState>& nodes,
              double remaining_milli);

  // Expected GPU-milli of future pods turned away by placing `pod` on
  // `gpus` of `node` (slots it takes from scarce shapes other than its own).
  double Loss(const NodeState& node, const PodShape& pod, GpuSet gpus) const;

  struct Price {
    PodShape shape;
    double milli_per_slot = 0;
    bool operator==(const Price&) const = default;
  };
  // Shapes whose slot is worth at least 1 GPU-milli, in trace order.
  const std::vector<Price>& prices() const { return prices_; }

 private:
  std::vector<Price> prices_;
};

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_PLACEMENT_SCARCE_SLOTS_H_
