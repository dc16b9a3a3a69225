// Small placement problems for tests, built in memory.
#ifndef FRUGAL_PLACE_TEST_PROBLEMS_H_
#define FRUGAL_PLACE_TEST_PROBLEMS_H_

#include <cmath>
#include <string>
#include <vector>

#include "frugal/place/problem.h"

namespace frugal::place::testing {

// ops with times; edges {src, dst, cost_ms}; K devices; memory per op 1
// byte unless given; capacity per device.
inline PlacementProblem MakeProblem(std::vector<double> times,
                                    std::vector<std::vector<double>> edges, int k,
                                    double cap = INFINITY, std::vector<int64_t> mem = {},
                                    std::string topology = "nvlink",
                                    std::vector<int64_t> color = {}) {
  PlacementProblem p;
  p.name = "test";
  p.num_devices = k;
  p.time_ms = times;
  const int n = static_cast<int>(times.size());
  p.mem_bytes = mem.empty() ? std::vector<int64_t>(n, 1) : mem;
  p.color = color.empty() ? std::vector<int64_t>(n, -1) : color;
  for (int i = 0; i < n; ++i) p.op_names.push_back("op" + std::to_string(i));
  for (const auto& e : edges) {
    p.edges.push_back({static_cast<int>(e[0]), static_cast<int>(e[1]), 0, e[2]});
  }
  p.device_mem_bytes.assign(k, cap);
  p.topology = topology == "pcie" ? PcieTopology(k) : NvlinkTopology(k);
  Status st = p.Finalize();
  if (!st.ok()) p.name = "INVALID: " + st.message();
  return p;
}

// Fork-join: source -> `width` branches of `time` ms -> sink; edge cost c.
inline PlacementProblem ForkJoin(int width, double time, double c, int k,
                                 std::string topology = "nvlink") {
  std::vector<double> times{0.5};
  std::vector<std::vector<double>> edges;
  for (int i = 0; i < width; ++i) {
    times.push_back(time);
    edges.push_back({0, static_cast<double>(i + 1), c});
  }
  times.push_back(0.5);
  for (int i = 0; i < width; ++i) {
    edges.push_back({static_cast<double>(i + 1), static_cast<double>(width + 1), c});
  }
  return MakeProblem(times, edges, k, INFINITY, {}, topology);
}

// A layered DAG like a small training graph: `layers` forward ops and their
// backward ops, with a weight op per layer colocated with both.
inline PlacementProblem TrainingLike(int layers, int k, double cap = INFINITY) {
  std::vector<double> times;
  std::vector<std::vector<double>> edges;
  std::vector<int64_t> mem, color;
  for (int l = 0; l < layers; ++l) {  // forward l = 2l (weight), 2l+1 (op)
    times.push_back(0);
    times.push_back(1.0 + (l % 3));
    mem.push_back(100);
    mem.push_back(10);
    color.push_back(l);
    color.push_back(l);
    edges.push_back({2.0 * l, 2.0 * l + 1, 0.2});
    if (l > 0) edges.push_back({2.0 * l - 1, 2.0 * l + 1, 0.5});
  }
  int base = 2 * layers;
  for (int l = layers - 1; l >= 0; --l) {  // backward of layer l
    int id = base + (layers - 1 - l);
    times.push_back(2.0 + (l % 3));
    mem.push_back(10);
    color.push_back(l);
    edges.push_back({2.0 * l + 1, static_cast<double>(id), 0.5});
    if (l < layers - 1) edges.push_back({static_cast<double>(id - 1), static_cast<double>(id), 0.5});
  }
  return MakeProblem(times, edges, k, cap, mem, "nvlink", color);
}

}  // namespace frugal::place::testing

#endif  // FRUGAL_PLACE_TEST_PROBLEMS_H_
