// `pesto`: coarsen the graph (coarsen.h), solve placement and scheduling of
// the coarse graph as a MIP with CBC under a time limit, warm-started from
// the best baseline (ilp.h), expand the solution to the original ops, and
// refine it with moves and swaps scored by the simulator (refine.h). Never
// returns a schedule worse than the best start it was given. Stateless.
#ifndef FRUGAL_PLACE_PESTO_H_
#define FRUGAL_PLACE_PESTO_H_

#include "frugal/place/placer.h"

namespace frugal::place {

Result<PlaceOutcome> PlacePesto(const PlacementProblem& p, const PlaceOptions& options);

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_PESTO_H_
