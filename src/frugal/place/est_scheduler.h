// Greedy schedule builder shared by HEFT, m-ETF and m-SCT: commits ops one
// at a time to a device, appending to the device's order, and books each
// output's transfer to a remote device on the links of its route (first
// come, first served) — the simulator's semantics, estimated while
// building. Not thread-safe; one per placer call.
#ifndef FRUGAL_PLACE_EST_SCHEDULER_H_
#define FRUGAL_PLACE_EST_SCHEDULER_H_

#include <unordered_map>
#include <vector>

#include "frugal/place/group_assigner.h"
#include "frugal/place/problem.h"
#include "frugal/place/simulator.h"

namespace frugal::place {

class EstScheduler {
 public:
  explicit EstScheduler(const PlacementProblem& p);

  // Devices op may go to: its group's device, else every device the group
  // fits on. Empty = none fits.
  std::vector<int> Candidates(int op) const;
  // Candidates cut to a handful, for when the time limit has passed: the
  // group's device, else the devices of op's preds that the group fits on
  // and the fitting device that is free first. O(K + preds).
  std::vector<int> FewCandidates(int op) const;
  // Earliest time op's inputs are all on device d. REQUIRES: preds committed.
  double DataReady(int op, int d) const;
  double Start(int op, int d) const;
  // Commits op to d at Start(op, d). REQUIRES: d in Candidates(op).
  void Commit(int op, int d);

  double finish(int op) const { return finish_[op]; }
  int device(int op) const { return device_[op]; }
  // REQUIRES: every op committed.
  Placement ToPlacement() const;

 private:
  double Arrival(int src, int d, bool book) const;

  const PlacementProblem& p_;
  GroupAssigner groups_;
  std::vector<int> device_;
  std::vector<double> finish_, device_free_;
  mutable std::vector<double> link_free_;
  mutable std::unordered_map<long long, double> arrival_;  // src * K + d -> time
  std::vector<std::vector<int>> order_;
};

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_EST_SCHEDULER_H_
