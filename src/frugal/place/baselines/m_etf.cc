// `m-etf` (Baechi, SoCC'20): earliest task first, memory-aware; after the
// time limit each step looks only at EstScheduler::FewCandidates.
#include <algorithm>

#include "frugal/place/baselines/baselines.h"
#include "frugal/place/est_scheduler.h"

namespace frugal::place {

PlaceOutcome EarliestTaskFirst(const PlacementProblem& p, const std::vector<int>& favorite_parent,
                               const Deadline& deadline) {
  const int n = p.num_ops();
  std::vector<double> bl = BottomLevels(p, {}, 0);
  std::vector<int> missing(n);
  std::vector<int> ready;
  for (int i = 0; i < n; ++i) {
    missing[i] = static_cast<int>(p.preds[i].size());
    if (missing[i] == 0) ready.push_back(i);
  }
  EstScheduler s(p);
  int hurried = 0;  // ops placed on few candidates after the time limit
  for (int step = 0; step < n; ++step) {
    if (hurried == 0 && deadline.Passed()) hurried = n - step;
    int best_op = -1, best_d = -1, best_pos = -1;
    double best_t = 0;
    for (int idx = 0; idx < static_cast<int>(ready.size()); ++idx) {
      int u = ready[idx];
      std::vector<int> cands = hurried ? s.FewCandidates(u) : s.Candidates(u);
      if (!favorite_parent.empty() && favorite_parent[u] >= 0) {
        int pd = s.device(favorite_parent[u]);
        if (std::find(cands.begin(), cands.end(), pd) != cands.end()) cands = {pd};
      }
      for (int d : cands) {
        double t = s.Start(u, d);
        bool better = best_op < 0 || t < best_t ||
                      (t == best_t && (bl[u] > bl[best_op] ||
                                       (bl[u] == bl[best_op] &&
                                        p.topo_pos[u] < p.topo_pos[best_op])));
        if (better) best_op = u, best_d = d, best_t = t, best_pos = idx;
      }
    }
    if (best_op < 0) {
      return Infeasible("op '" + p.op_names[ready.empty() ? 0 : ready[0]] +
                        "' fits on no device");
    }
    s.Commit(best_op, best_d);
    ready[best_pos] = ready.back();
    ready.pop_back();
    for (int v : p.succs[best_op]) {
      if (--missing[v] == 0) ready.push_back(v);
    }
  }
  return FinishGreedy(s, hurried, n);
}

PlaceOutcome FinishGreedy(const EstScheduler& s, int hurried, int n) {
  PlaceOutcome o;
  o.placement = s.ToPlacement();
  if (hurried > 0) {
    o.status = SolveStatus::kTimeLimit;
    o.note = "time limit: the last " + std::to_string(hurried) + " of " + std::to_string(n) +
             " ops placed among few candidate devices";
  }
  return o;
}

Result<PlaceOutcome> PlaceMEtf(const PlacementProblem& p, const PlaceOptions& o) {
  return EarliestTaskFirst(p, {}, o.deadline);
}

}  // namespace frugal::place
