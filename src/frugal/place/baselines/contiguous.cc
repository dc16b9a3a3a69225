// Contiguous splits of the topological order (expert, m-topo).
#include <algorithm>
#include <numeric>

#include "frugal/place/baselines/baselines.h"
#include "frugal/place/group_assigner.h"

namespace frugal::place {
namespace {

// Topological order by latest start (as late as possible): inputs such as
// weights sit right before their first consumer instead of all at the front,
// so contiguous pieces cut few edges. Ties by Kahn's order keep it
// topological (an op with zero time shares its successor's latest start).
std::vector<int> AlapOrder(const PlacementProblem& p) {
  std::vector<double> bl = BottomLevels(p, {}, 0);
  std::vector<int> order(p.topo_order);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (bl[a] != bl[b]) return bl[a] > bl[b];
    return p.topo_pos[a] < p.topo_pos[b];
  });
  return order;
}

}  // namespace

PlaceOutcome ContiguousSplit(const PlacementProblem& p, const std::vector<double>& weight) {
  const int k = p.num_devices;
  double total = 0;
  for (double w : weight) total += w;
  GroupAssigner ga(p);
  int d = 0;
  double cum = 0;
  for (int u : AlapOrder(p)) {
    int g = p.group[u];
    cum += weight[u];
    if (ga.DeviceOfGroup(g) >= 0) continue;
    // Midpoint rule: an op straddling a boundary goes where most of it lies.
    while (d < k - 1 && cum - weight[u] / 2 > (d + 1) * total / k) ++d;
    int chosen = -1;
    for (int dd = d; dd < k && chosen < 0; ++dd) {
      if (ga.Fits(g, dd)) chosen = dd;
    }
    if (chosen < 0) {
      for (int dd = 0; dd < k; ++dd) {
        if (ga.Fits(g, dd) && (chosen < 0 || ga.used_bytes(dd) < ga.used_bytes(chosen))) {
          chosen = dd;
        }
      }
    }
    if (chosen < 0) {
      return Infeasible("op '" + p.op_names[u] + "' fits on no device after the split");
    }
    ga.Assign(g, chosen);
    if (chosen > d) d = chosen;
  }
  PlaceOutcome o;
  o.placement = ScheduleByBottomLevel(p, ga.OpDevices());
  return o;
}

}  // namespace frugal::place
