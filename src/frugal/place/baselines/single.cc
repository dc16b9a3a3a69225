// `single`: every op on GPU 0 in topological order.
#include "frugal/place/baselines/baselines.h"

namespace frugal::place {

Result<PlaceOutcome> PlaceSingle(const PlacementProblem& p, const PlaceOptions&) {
  if (static_cast<double>(p.total_mem_bytes()) > p.device_mem_bytes[0]) {
    return Infeasible("the ops do not fit on one GPU");
  }
  PlaceOutcome o;
  o.placement.device.assign(p.num_ops(), 0);
  o.placement.order.assign(p.num_devices, {});
  o.placement.order[0] = p.topo_order;
  return o;
}

}  // namespace frugal::place
