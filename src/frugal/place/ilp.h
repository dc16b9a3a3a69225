// Pesto's mixed-integer program for placement and scheduling, solved with
// CBC. Variables: x[g][k] (colocation group g on device k), C[i] (completion
// time of node i), z[i][j] (edge crosses devices), s[i][j] (i and j share a
// device) and y[i][j] (i before j) for node pairs no path orders, and the
// makespan. Precedence adds the transfer time only when z = 1; pairs on one
// device do not overlap (big-M on the warm start's makespan); memory per
// device. Link contention is left to the simulator, so the model is a
// relaxation of the simulator's schedules: its bound is a valid lower bound
// for the problem it is given. Stateless.
#ifndef FRUGAL_PLACE_ILP_H_
#define FRUGAL_PLACE_ILP_H_

#include <vector>

#include "frugal/place/problem.h"
#include "frugal/place/simulator.h"

namespace frugal::place {

struct IlpOptions {
  double time_limit_s = 10;
  int threads = 1;
  // Warm start (a feasible placement of this problem), or null.
  const Placement* start = nullptr;
};

struct IlpResult {
  bool has_solution = false;
  bool optimal = false;
  bool time_limit = false;
  std::vector<int> device;      // per node
  std::vector<double> start_ms; // per node, the MIP's schedule
  double makespan_ms = -1;      // the MIP's objective (no contention)
  double bound_ms = 0;          // proven lower bound of the MIP
  int num_columns = 0, num_rows = 0;
};

Result<IlpResult> SolvePlacementIlp(const PlacementProblem& p, const IlpOptions& options);

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_ILP_H_
