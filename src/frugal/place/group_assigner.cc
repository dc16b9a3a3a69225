#include "frugal/place/group_assigner.h"

namespace frugal::place {

GroupAssigner::GroupAssigner(const PlacementProblem& p)
    : p_(p), device_(p.num_groups, -1), used_(p.num_devices, 0) {}

bool GroupAssigner::Fits(int g, int d) const {
  return used_[d] + static_cast<double>(p_.group_mem_bytes[g]) <= p_.device_mem_bytes[d];
}

void GroupAssigner::Assign(int g, int d) {
  device_[g] = d;
  used_[d] += static_cast<double>(p_.group_mem_bytes[g]);
}

std::vector<int> GroupAssigner::OpDevices() const {
  std::vector<int> out(p_.num_ops());
  for (int i = 0; i < p_.num_ops(); ++i) out[i] = device_[p_.group[i]];
  return out;
}

}  // namespace frugal::place
