// A memory-aware path bound. Take any path v_1 -> ... -> v_m of the DAG. In
// a schedule, every edge of the path whose ends sit on different devices
// delays the head by at least its cheapest transfer (the output is sent when
// the producer ends), so
//   makespan >= head(v_1) + sum_i t(v_i) + sum_{cut edges} c + tail(v_m)
// with head/tail from comm_bound.h. The cut edges split the path into
// maximal runs on one device; each run's colocation groups (whole groups:
// a group's ops share a device) must fit on that device, and ops of one
// group are never cut apart by an edge between them. So the cheapest set of
// cuts for which every run's distinct groups fit in the largest device
// memory (a segmentation DP over the path) is a lower bound on the cut
// cost of every schedule. Runs on the same device at different times would
// have to fit together; ignoring that is a relaxation, so the bound stays
// valid. Any path gives a valid bound; the paths tried are the longest paths
// by op time plus lambda x the op's share of its group's memory, for a few
// lambda. Stateless; deterministic.
#ifndef FRUGAL_PLACE_PATH_BOUND_H_
#define FRUGAL_PLACE_PATH_BOUND_H_

#include <vector>

#include "frugal/place/problem.h"

namespace frugal::place {

// The bound of one path (ops in path order, consecutive ops joined by an
// edge); head/tail per op (zeros are valid).
double PathBoundMs(const PlacementProblem& p, const std::vector<int>& path,
                   const std::vector<double>& head, const std::vector<double>& tail);

// The best bound over the candidate paths.
double MemoryPathBoundMs(const PlacementProblem& p, const std::vector<double>& head,
                         const std::vector<double>& tail);

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_PATH_BOUND_H_
