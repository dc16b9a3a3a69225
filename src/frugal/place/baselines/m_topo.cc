// `m-topo` (Baechi, SoCC'20): topological order, each device filled with its
// share (1/K) of the total memory, never above its capacity.
#include "frugal/place/baselines/baselines.h"

namespace frugal::place {

Result<PlaceOutcome> PlaceMTopo(const PlacementProblem& p, const PlaceOptions&) {
  std::vector<double> w(p.mem_bytes.begin(), p.mem_bytes.end());
  return ContiguousSplit(p, w);
}

}  // namespace frugal::place
