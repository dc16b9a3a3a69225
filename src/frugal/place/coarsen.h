// Coarsening (Pesto, ATC'21): merges ops along edges whose tail has a single
// successor or whose head has a single predecessor — contractions that can
// never create a cycle — largest transfer first, while a merged node stays
// under a compute limit and its colocation group under a memory limit, until
// the graph has at most `target_nodes` nodes. If that is not enough, other
// edges are contracted when no second path joins their ends. The coarse
// graph is a PlacementProblem itself (times and memory summed, transfers
// summed per producing op). Stateless; deterministic unless the deadline
// cuts it short.
#ifndef FRUGAL_PLACE_COARSEN_H_
#define FRUGAL_PLACE_COARSEN_H_

#include <vector>

#include "frugal/place/deadline.h"
#include "frugal/place/problem.h"
#include "frugal/place/simulator.h"

namespace frugal::place {

struct CoarsenOptions {
  int target_nodes = 200;
  // Largest compute of a merged node, ms. Default (<= 0): total / K.
  double max_node_time_ms = -1;
  // Largest memory of a merged colocation group, bytes. Default (<= 0):
  // a third of min(device memory, total memory / K).
  double max_group_mem_bytes = -1;
  // Once passed, no more merges: the coarsening so far (valid, possibly
  // above target_nodes) is returned.
  Deadline deadline{};
};

struct Coarsening {
  PlacementProblem coarse;
  std::vector<int> coarse_of;  // fine op -> coarse node
};

Result<Coarsening> Coarsen(const PlacementProblem& fine, const CoarsenOptions& options);

// Fine device per op from a coarse one.
std::vector<int> ExpandDevices(const Coarsening& c, const std::vector<int>& coarse_device);
// Coarse device per node from a fine placement: the device holding most of
// the node's compute (ties: lower device).
std::vector<int> ProjectDevices(const PlacementProblem& fine, const Coarsening& c,
                                const std::vector<int>& fine_device);

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_COARSEN_H_
