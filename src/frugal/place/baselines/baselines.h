// The baseline placers, one per file in this folder; listed in placer.cc's
// registry table. Each returns kInfeasible (not an error) when it cannot fit
// the ops in memory, and honours PlaceOptions::deadline.
#ifndef FRUGAL_PLACE_BASELINES_BASELINES_H_
#define FRUGAL_PLACE_BASELINES_BASELINES_H_

#include "frugal/place/est_scheduler.h"
#include "frugal/place/placer.h"

namespace frugal::place {

Result<PlaceOutcome> PlaceSingle(const PlacementProblem& p, const PlaceOptions& o);
Result<PlaceOutcome> PlaceExpert(const PlacementProblem& p, const PlaceOptions& o);
Result<PlaceOutcome> PlaceHeft(const PlacementProblem& p, const PlaceOptions& o);
Result<PlaceOutcome> PlaceMTopo(const PlacementProblem& p, const PlaceOptions& o);
Result<PlaceOutcome> PlaceMEtf(const PlacementProblem& p, const PlaceOptions& o);
Result<PlaceOutcome> PlaceMSct(const PlacementProblem& p, const PlaceOptions& o);
Result<PlaceOutcome> PlaceMetis(const PlacementProblem& p, const PlaceOptions& o);
Result<PlaceOutcome> PlacePipeline(const PlacementProblem& p, const PlaceOptions& o);

// Shared by expert and m-topo: walks the ops in topological order, each as
// late as possible, and starts the next device once the ops so far carry
// (d + 1) / K of the total `weight`; a colocation group goes where its first
// op went, skipping devices it does not fit on. Then list-schedules by
// bottom level.
PlaceOutcome ContiguousSplit(const PlacementProblem& p, const std::vector<double>& weight);

// Shared by m-etf and m-sct: repeatedly commits the (ready op, device) pair
// that starts earliest (ties: larger bottom level, lower device).
// favorite_parent[v] >= 0 pins v to that parent's device when its group
// allows (m-SCT); empty = none. Once `deadline` passes, each step tries
// only EstScheduler::FewCandidates (status kTimeLimit).
PlaceOutcome EarliestTaskFirst(const PlacementProblem& p, const std::vector<int>& favorite_parent,
                               const Deadline& deadline);

// The outcome of a greedy EstScheduler run in which the last `hurried` of n
// ops were placed after the time limit (0: none; then status kOk).
PlaceOutcome FinishGreedy(const EstScheduler& s, int hurried, int n);

inline PlaceOutcome Infeasible(std::string why) {
  PlaceOutcome o;
  o.status = SolveStatus::kInfeasible;
  o.note = std::move(why);
  return o;
}

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_BASELINES_BASELINES_H_
