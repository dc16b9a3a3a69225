// Memory bookkeeping shared by the baselines: ops are assigned a colocation
// group at a time, and a group reserves its whole memory on its device when
// first assigned, so a method can never split a group or overfill a device.
// Not thread-safe; one per placer call.
#ifndef FRUGAL_PLACE_GROUP_ASSIGNER_H_
#define FRUGAL_PLACE_GROUP_ASSIGNER_H_

#include <vector>

#include "frugal/place/problem.h"

namespace frugal::place {

class GroupAssigner {
 public:
  explicit GroupAssigner(const PlacementProblem& p);

  // Device of op's group, or -1.
  int DeviceOfOp(int op) const { return device_[p_.group[op]]; }
  int DeviceOfGroup(int g) const { return device_[g]; }
  bool Fits(int g, int d) const;
  // REQUIRES: unassigned, Fits(g, d).
  void Assign(int g, int d);
  double used_bytes(int d) const { return used_[d]; }
  // Device per op. REQUIRES: every group assigned.
  std::vector<int> OpDevices() const;

 private:
  const PlacementProblem& p_;
  std::vector<int> device_;
  std::vector<double> used_;
};

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_GROUP_ASSIGNER_H_
