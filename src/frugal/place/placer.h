// Placers: methods that turn a PlacementProblem into a Placement (device
// per op, order per device). One registry table (placer.cc) lists them all —
// the baselines (single, expert, heft, m-topo, m-etf, m-sct, metis) and
// pesto; `frugal place --method list` prints it. Every placer is scored by
// the simulator and honours the time limit. Placers keep no state and print
// nothing (third-party solvers are silenced); each call is independent and
// deterministic for a given seed as long as the time limit does not cut it
// short.
#ifndef FRUGAL_PLACE_PLACER_H_
#define FRUGAL_PLACE_PLACER_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "frugal/base/registry.h"
#include "frugal/base/status.h"
#include "frugal/place/deadline.h"
#include "frugal/place/problem.h"
#include "frugal/place/simulator.h"

namespace frugal::place {

// What a solve found (how the call went is the Result's Status).
enum class SolveStatus {
  kOk,          // a heuristic placement
  kOptimal,     // the MIP proved its solution optimal (for its model)
  kTimeLimit,   // stopped at the time limit with the best schedule so far
  kInfeasible,  // the method found no placement that fits in memory
};
const char* SolveStatusName(SolveStatus s);  // "ok", "optimal", ...

struct PlaceOptions {
  // The call's whole budget: RunPlacer ends every placer by the earlier of
  // now + time_limit_s and `deadline`. A baseline that runs out finishes its
  // remaining ops greedily on few candidate devices (status kTimeLimit);
  // pesto returns its best placement so far.
  double time_limit_s = 60;
  Deadline deadline{};  // Default: never (time_limit_s alone)
  uint64_t seed = 1;
  int threads = 1;  // CBC threads
  std::function<void(const std::string&)> log;  // Default: silent
  // Pesto: the placements to start from (the CLI passes the baselines' so
  // they are not recomputed). Empty: pesto runs every baseline itself.
  std::vector<std::pair<std::string, Placement>> starts;
  // Pesto: node count the coarsening aims for; 0 = automatic.
  int coarse_nodes = 0;
};

struct PlaceOutcome {
  SolveStatus status = SolveStatus::kOk;
  Placement placement;  // empty when kInfeasible
  std::string note;     // one line: why infeasible, or what pesto started from
  // Pesto's MIP: best bound and relative gap of the coarse model
  // (-1 = none). bound_is_global: the MIP ran on the uncoarsened problem,
  // so bound_ms is a lower bound on every placement.
  double bound_ms = -1;
  double gap = -1;
  bool bound_is_global = false;
};

using PlacerFn = Result<PlaceOutcome> (*)(const PlacementProblem&, const PlaceOptions&);

std::span<const RegistryRow<PlacerFn>> Placers();

// Runs the placer named `name`; NotFound lists the names.
Result<PlaceOutcome> RunPlacer(const std::string& name, const PlacementProblem& p,
                               const PlaceOptions& options);

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_PLACER_H_
