#include "frugal/place/subproblems.h"

#include <algorithm>

namespace frugal::place {

Result<PlacementProblem> FirstDevices(const PlacementProblem& p, int k) {
  PlacementProblem q = p;
  q.num_devices = k;
  q.device_mem_bytes.resize(k);
  Topology t = p.topology;
  t.num_devices = k;
  t.routes.assign(static_cast<size_t>(k) * k, {});
  for (int a = 0; a < k; ++a) {
    for (int b = 0; b < k; ++b) t.routes[static_cast<size_t>(a) * k + b] = p.topology.Route(a, b);
  }
  q.topology = std::move(t);
  FRUGAL_RETURN_IF_ERROR(q.Finalize());
  return q;
}

bool RepairMemory(const PlacementProblem& q, std::vector<int>* device) {
  std::vector<int> gdev(q.num_groups);
  for (int g = 0; g < q.num_groups; ++g) gdev[g] = (*device)[q.group_ops[g][0]];
  if (!RepairGroupMemory(q, &gdev)) return false;
  for (int i = 0; i < q.num_ops(); ++i) (*device)[i] = gdev[q.group[i]];
  return true;
}

Result<PlacementProblem> MemoryBalanced(const PlacementProblem& p) {
  for (int k = p.num_devices; k >= 2; k /= 2) {
    Result<PlacementProblem> q = FirstDevices(p, k);
    if (!q.ok()) break;
    double cap = 1.2 * static_cast<double>(p.total_mem_bytes()) / k;
    bool tighter = false;
    for (double& m : q->device_mem_bytes) {
      if (cap < m) m = cap, tighter = true;
    }
    if (tighter && q->Finalize().ok()) return q;
  }
  return InvalidArgument("no memory-balanced problem");
}

std::optional<Placement> OnDevices(Placement pl, int k) {
  for (int d : pl.device) {
    if (d >= k) return std::nullopt;
  }
  for (size_t d = k; d < pl.order.size(); ++d) {
    if (!pl.order[d].empty()) return std::nullopt;
  }
  pl.order.resize(k);
  return pl;
}

std::optional<Placement> BalancedStart(const PlacementProblem& q,
                                       const std::vector<std::pair<std::string, Placement>>& starts,
                                       const std::vector<std::pair<double, int>>& ranked,
                                       const Placement& best) {
  for (const auto& [ms, i] : ranked) {
    std::optional<Placement> s = OnDevices(starts[i].second, q.num_devices);
    if (s && Simulate(q, *s).feasible) return s;
  }
  std::optional<Placement> b = OnDevices(best, q.num_devices);
  if (!b) return std::nullopt;
  std::vector<int> dev = b->device;
  if (!RepairMemory(q, &dev)) return std::nullopt;
  Placement s = ScheduleByBottomLevel(q, dev);
  if (!Simulate(q, s).feasible) return std::nullopt;
  return s;
}

}  // namespace frugal::place
