// Lower bounds on the makespan of any placement and schedule: the critical
// path (op times only: any path can sit on one device), total work / K, the
// communication- and memory-aware head/tail bound (comm_bound.h), the
// memory-aware path bound (path_bound.h), the chain bound (chain_bound.h),
// and a bound proved by the MIP when it solved the uncoarsened problem.
// Stateless; thread-safe.
#ifndef FRUGAL_PLACE_BOUNDS_H_
#define FRUGAL_PLACE_BOUNDS_H_

#include "frugal/place/deadline.h"
#include "frugal/place/problem.h"

namespace frugal::place {

struct LowerBounds {
  double critical_path_ms = 0;
  double work_per_device_ms = 0;  // total op time / K
  double comm_ms = 0;             // comm_bound.h
  double memory_path_ms = 0;      // path_bound.h
  double chain_ms = 0;            // chain_bound.h
  double mip_ms = -1;             // -1 = none proved
  double best_ms() const;         // the largest of them
};

double CriticalPathMs(const PlacementProblem& p);
// Once `deadline` passes, the costlier bounds still to compute are left at 0
// (the chain bound keeps what it proved so far): every field stays a valid
// lower bound.
LowerBounds ComputeLowerBounds(const PlacementProblem& p, const Deadline& deadline = {});

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_BOUNDS_H_
