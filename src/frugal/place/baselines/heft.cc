// `heft` (Topcuoglu et al., TPDS'02): ops by decreasing upward rank (mean
// transfer costs), each to the device where it finishes earliest (after the
// time limit: among EstScheduler::FewCandidates).
#include <algorithm>
#include <numeric>

#include "frugal/place/baselines/baselines.h"
#include "frugal/place/est_scheduler.h"

namespace frugal::place {

Result<PlaceOutcome> PlaceHeft(const PlacementProblem& p, const PlaceOptions& o) {
  const int k = p.num_devices;
  std::vector<double> rank = BottomLevels(p, {}, static_cast<double>(k - 1) / k);
  std::vector<int> order(p.num_ops());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if (rank[a] != rank[b]) return rank[a] > rank[b];
    return p.topo_pos[a] < p.topo_pos[b];
  });
  EstScheduler s(p);
  int hurried = 0;  // ops placed on few candidates after the time limit
  for (int u : order) {
    if (hurried == 0 && o.deadline.Passed()) hurried = 1;
    std::vector<int> cands = hurried ? s.FewCandidates(u) : s.Candidates(u);
    if (hurried) ++hurried;
    if (cands.empty()) return Infeasible("op '" + p.op_names[u] + "' fits on no device");
    int best = -1;
    double best_t = 0;
    for (int d : cands) {
      double t = s.Start(u, d) + p.time_ms[u];
      if (best < 0 || t < best_t) best = d, best_t = t;
    }
    s.Commit(u, best);
  }
  return FinishGreedy(s, hurried > 0 ? hurried - 1 : 0, p.num_ops());
}

}  // namespace frugal::place
