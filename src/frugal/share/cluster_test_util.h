// Test helper for the cluster tests: a node state from its CPUs and the
// free GPU-milli of each GPU (GPU model 1, ample memory).
#ifndef FRUGAL_SHARE_CLUSTER_TEST_UTIL_H_
#define FRUGAL_SHARE_CLUSTER_TEST_UTIL_H_

#include <cstdint>
#include <initializer_list>

#include "frugal/share/cluster.h"

namespace frugal::share::testing {

inline NodeState Node(int64_t cpu, std::initializer_list<int> left) {
  NodeState s;
  s.cpu_left = s.cpu_capacity = cpu;
  s.memory_left = 1 << 20;
  s.model = 1;
  for (int l : left) s.gpu_left[s.num_gpus++] = static_cast<int16_t>(l);
  return s;
}

}  // namespace frugal::share::testing

#endif  // FRUGAL_SHARE_CLUSTER_TEST_UTIL_H_
