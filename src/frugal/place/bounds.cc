#include "frugal/place/bounds.h"

#include <algorithm>

#include "frugal/place/chain_bound.h"
#include "frugal/place/comm_bound.h"
#include "frugal/place/path_bound.h"

namespace frugal::place {

double LowerBounds::best_ms() const {
  return std::max({critical_path_ms, work_per_device_ms, comm_ms, memory_path_ms, chain_ms, mip_ms});
}

double CriticalPathMs(const PlacementProblem& p) {
  std::vector<double> finish(p.num_ops(), 0);
  double best = 0;
  for (int u : p.topo_order) {
    double start = 0;
    for (int v : p.preds[u]) start = std::max(start, finish[v]);
    finish[u] = start + p.time_ms[u];
    best = std::max(best, finish[u]);
  }
  return best;
}

LowerBounds ComputeLowerBounds(const PlacementProblem& p, const Deadline& deadline) {
  LowerBounds b;
  b.critical_path_ms = CriticalPathMs(p);
  b.work_per_device_ms = p.total_time_ms() / p.num_devices;
  CommBound cb = ComputeCommBound(p);
  b.comm_ms = cb.bound_ms;
  if (!deadline.Passed()) b.memory_path_ms = MemoryPathBoundMs(p, cb.head_ms, cb.tail_ms);
  if (!deadline.Passed()) b.chain_ms = ChainBoundMs(p, cb.head_ms, cb.tail_ms, deadline);
  return b;
}

}  // namespace frugal::place
