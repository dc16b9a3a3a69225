// A chain bound: serialization that accumulates along a long path whose side
// branches cannot leave it cheaply. Take a path p_0 -> ... -> p_{m-1} of the
// DAG; in a schedule let gap_l = start(p_{l+1}) - end(p_l) >= 0, so
//   makespan >= head(p_0) + sum_i t(p_i) + sum_l gap_l + tail(p_{m-1})
// (head/tail from comm_bound.h). The bound is that inequality with a lower
// bound on the gaps that holds for every schedule.
//
// Side ops. For an op v off the path with a path ancestor and a path
// descendant, let A(v) be the last path op it descends from and D(v) the
// first it leads to; v runs inside [end(p_A), start(p_D)]. b_in(v) is a
// lower bound on start(v) - end(p_A) in schedules where v is not on p_A's
// device (infinite where that is impossible), by induction over v's preds y
// that descend from p_A: y = p_A gives the edge's cheapest transfer; a side
// pred y is either on p_A's device (then y -> v crosses:
// >= a0(y) + t_y + c_yv, with a0 the longest op-time path from p_A) or not
// (>= b_in(y) + t_y); a case that splits a colocation group is skipped, and
// v in p_A's group cannot be off it. b_out(v) mirrors it towards p_D.
//
// A block [a, b] of path positions is *uncut* in a schedule when p_a..p_b
// all sit on one device d. Take the sides with a <= A(v) and D(v) <= b:
//   * local (on d): v, the path ops p_{a+1}..p_{b-1} and the other local
//     sides all run on d inside [end(p_a), start(p_b)], one at a time, so
//     the block's gaps sum to at least the local sides' times;
//   * remote: start(p_D) - end(p_A) >= b_in + t_v + b_out, so the gaps of
//     v's window (a subset of the block's) sum to at least
//     e_v = b_in + t_v + b_out - (time of the path ops strictly inside).
// A side in the colocation group of a path op in the block, or with an
// infinite e_v, is local. So the block's gaps sum to at least
// NoCut(a, b) = min over the split of max(local time, max remote e_v); the
// minimum is attained keeping local the sides with the largest e_v (as in
// comm_bound.h), so only prefixes of that order are tried.
//
// Cuts. Each schedule splits the path into maximal uncut runs; a path edge
// between two runs costs its cheapest transfer (an edge inside a colocation
// group is never cut). A run's gaps sum to at least U(run), the best sum of
// NoCut over a partition of the run into blocks (the blocks' gaps are
// disjoint). So every schedule has
//   sum gaps >= sum_{cut edges} c + sum_{runs} U(run)
// and the bound takes the minimum of the right side over all cut sets (a
// DP over the path, quadratic in its length; blocks longer than kMaxBlock
// path positions are not tried, which only weakens the bound).
//
// Windows. Cheap cuts let the DP above drop every side whose window
// straddles a cut; a side colocated with a path op cannot escape that way.
// For a window [a, d] and a schedule, the cuts inside it split it into runs
// R (each on one device d_R). The window's gaps are at least
//   * the cuts' costs plus U of every run (disjoint gaps), and
//   * for each R, phi(R) = time of R's path ops strictly inside the window +
//     time of the window's sides colocated with a path op of R - the
//     window's inner path time: those ops all run on d_R, one at a time,
//     inside [end(p_a), start(p_d)].
// So they are at least the minimum over cut patterns of the larger of the
// two. For a threshold tau, a DP finds the cheapest cuts + U whose runs all
// have phi <= tau; it falls as tau grows, so the minimum of max(DP, tau)
// over the runs' phi values is found by bisection. Windows with disjoint
// gaps add up (a weighted interval DP over the sides' windows up to
// kMaxWindow positions). The bound takes the larger of the two gap sums.
// Memory, link contention and non-colocated sides that straddle a cut are
// ignored: relaxations. Stateless; deterministic.
#ifndef FRUGAL_PLACE_CHAIN_BOUND_H_
#define FRUGAL_PLACE_CHAIN_BOUND_H_

#include <vector>

#include "frugal/place/deadline.h"
#include "frugal/place/problem.h"

namespace frugal::place {

// The bound of one path (ops in path order, consecutive ops joined by an
// edge); head/tail per op (zeros are valid).
// Once `deadline` passes, the window DP stops and keeps the gaps of the
// prefix it covered (gaps are >= 0, so still a valid bound).
double ChainBoundOfPathMs(const PlacementProblem& p, const std::vector<int>& path,
                          const std::vector<double>& head, const std::vector<double>& tail,
                          const Deadline& deadline = {});

// The bound on the longest path by op time.
double ChainBoundMs(const PlacementProblem& p, const std::vector<double>& head,
                    const std::vector<double>& tail, const Deadline& deadline = {});

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_CHAIN_BOUND_H_
