// Local refinement of a placement: moves of one colocation group to another
// device and swaps of two groups, each scored by list scheduling plus the
// simulator; first improvement, until no candidate improves, the
// evaluation budget is spent or the time limit passes. Deterministic for a
// given seed as long as the time limit does not cut it short. Stateless.
#ifndef FRUGAL_PLACE_REFINE_H_
#define FRUGAL_PLACE_REFINE_H_

#include <cstdint>

#include "frugal/place/problem.h"
#include "frugal/place/simulator.h"

namespace frugal::place {

struct RefineOptions {
  double time_limit_s = 10;
  int max_evaluations = 50000;
  uint64_t seed = 1;
};

struct RefineResult {
  Placement placement;
  double makespan_ms = 0;
  int evaluations = 0;
  int improvements = 0;
  bool time_limit = false;
};

// REQUIRES: start is feasible (Simulate accepts it).
RefineResult Refine(const PlacementProblem& p, const Placement& start,
                    const RefineOptions& options);

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_REFINE_H_
