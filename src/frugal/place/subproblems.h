// Restricted versions of a placement problem whose placements are
// placements of the original (pesto's diversification), and small helpers
// to move placements between them. Stateless; deterministic.
#ifndef FRUGAL_PLACE_SUBPROBLEMS_H_
#define FRUGAL_PLACE_SUBPROBLEMS_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frugal/place/problem.h"
#include "frugal/place/simulator.h"

namespace frugal::place {

// The same problem on the first k devices only (a placement of it is one of
// the original that leaves the other devices idle). Error when nothing fits.
Result<PlacementProblem> FirstDevices(const PlacementProblem& p, int k);

// Moves the smallest groups off devices over capacity onto the device with
// the most free memory. Returns false when that does not make it fit.
bool RepairMemory(const PlacementProblem& q, std::vector<int>* device);

// The problem on k devices with each device's memory cut to 1.2 x total / k,
// for the largest k in K, K/2, K/4, ... where that is tighter than the
// devices' memory and everything still fits (an error when none). Its
// placements are placements of p with the same makespans. Searching under
// it (baselines, MIP, refinement) is a diversification: the memory limit
// forces balanced splits that the unrestricted search misses (gnmt on 4
// GPUs: 367 -> 340 ms).
Result<PlacementProblem> MemoryBalanced(const PlacementProblem& p);

// The placement with k device orders, or nullopt when it uses a device >= k.
std::optional<Placement> OnDevices(Placement pl, int k);

// The best ranked start (ranked: (makespan, index into starts), best first)
// that fits q, else `best` with its memory repaired; nullopt when neither
// fits. Orders for q's devices.
std::optional<Placement> BalancedStart(
    const PlacementProblem& q, const std::vector<std::pair<std::string, Placement>>& starts,
    const std::vector<std::pair<double, int>>& ranked, const Placement& best);

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_SUBPROBLEMS_H_
