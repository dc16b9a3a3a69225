// FGD's descent with gshare's reservation (scarce_slots.h): FGD's target
// workload, node score and GPU choice, with the expected GPU-milli of
// future pods a placement turns away subtracted from its fragmentation
// decrease. One of the descents gshare (gshare.cc) chooses between.
#include <memory>

#include "frugal/share/placement/policies.h"

namespace frugal::share {
namespace {

class GshareReservePolicy final : public PlacementPolicy {
 public:
  NodeScore Score(ScoreContext& ctx, const NodeState& node, const PodShape& pod) override {
    return FgdDescentScore(*ctx.frag, node, pod, &reserve_);
  }

  bool Observe(ScoreContext& ctx, const std::vector<NodeState>& nodes) override {
    return ctx.trace_shapes != nullptr && reserve_.Update(*ctx.trace_shapes, nodes, ctx.remaining_milli);
  }

 private:
  ScarceSlots reserve_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> NewGshareReservePolicy() { return std::make_unique<GshareReservePolicy>(); }

}  // namespace frugal::share
