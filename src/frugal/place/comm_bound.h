// A communication- and memory-aware lower bound on the makespan of any
// placement and schedule the simulator can execute (simulator.h).
//
// head(v) <= start(v) in every schedule, computed in topological order.
// For op v with distinct predecessors p, let a_p = head(p) + t_p + c_pv,
// where c_pv is the cheapest transfer of the slowest edge p -> v over any
// device pair. In a given schedule each p is either
//   * local (on v's device): the local preds all run on that one device,
//     each starting no earlier than head(p), and v starts after the last of
//     them ends, so start(v) >= SM(L), the optimal makespan of one machine
//     with release times head(p) and processing times t_p (release-date
//     order is optimal for 1|r_j|Cmax); or
//   * remote: its output is sent when p ends (>= head(p) + t_p), the
//     transfer to v's device lasts as long as its slowest edge there, at
//     least c_pv, and v starts after it arrives: start(v) >= a_p.
// So start(v) >= max(max_{p remote} a_p, SM(L)) for the schedule's own
// split (L, R). Some splits are impossible: a pred in v's colocation group
// is local; a pred whose group cannot share a device with v's group (their
// memory exceeds every device's capacity) is remote; the groups of L and v
// together fit on one device; with one device nothing is remote. head(v) is
// the minimum over the possible splits. The minimum is attained where the
// free local preds are those with the largest a_p: for the schedule's split
// let tau = max a over free remote preds; the free preds with a_p > tau are
// local in it, and taking exactly those as L (a subset, so SM and memory do
// not grow) keeps max_R a_p = tau. Hence head(v) = min over prefixes of the
// free preds sorted by decreasing a_p, stopping at the first prefix that
// does not fit in memory (every longer one does not fit either).
//
// tail(v) <= makespan - end(v) is the mirror image over successors (a
// successor s is local, then it runs after v on v's device followed by at
// least tail(s), or remote, then makespan >= end(v) + c_vs + t_s + tail(s));
// by time reversal the local part is again a one-machine makespan, with the
// tails as release times.
//
// Bound: every op gives makespan >= head(v) + t_v + tail(v). Every
// colocation group's ops share one device, so for any subset S of a group,
// makespan >= min_{S} head + sum_{S} t + min_{S} tail (subsets of the form
// {head >= h, tail >= q}). All terms hold for every schedule, so the
// largest is a valid lower bound. It ignores link contention (a relaxation).
// Stateless; deterministic.
#ifndef FRUGAL_PLACE_COMM_BOUND_H_
#define FRUGAL_PLACE_COMM_BOUND_H_

#include <vector>

#include "frugal/place/problem.h"

namespace frugal::place {

struct Neighbor {
  int op;
  double c;  // cheapest transfer of the slowest edge between the two ops
};

// Distinct predecessors (preds) or successors of every op, with the largest
// per-edge cheapest transfer.
std::vector<std::vector<Neighbor>> Neighbors(const PlacementProblem& p, bool preds);

struct CommBound {
  std::vector<double> head_ms;  // per op: lower bound on its start
  std::vector<double> tail_ms;  // per op: lower bound on makespan - its end
  double bound_ms = 0;
};

CommBound ComputeCommBound(const PlacementProblem& p);

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_COMM_BOUND_H_
