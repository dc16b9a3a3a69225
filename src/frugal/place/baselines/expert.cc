// `expert`: what a person does by hand — cut the layers in topological order
// into K contiguous pieces of equal compute, keeping each under memory.
#include "frugal/place/baselines/baselines.h"

namespace frugal::place {

Result<PlaceOutcome> PlaceExpert(const PlacementProblem& p, const PlaceOptions&) {
  return ContiguousSplit(p, p.time_ms);
}

}  // namespace frugal::place
