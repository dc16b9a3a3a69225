// The placement problem: a DAG of ops, each with a time (ms, the same on
// every device) and a memory footprint (bytes, resident for the whole step),
// edges that carry tensors between ops, K devices with memory capacities,
// colocation groups (ops that must share a device) and a link model.
// Per-op times and memory are inputs: BuildProblem takes them from the
// graph's measurements or from caller-supplied functions (the CLI supplies a
// roofline estimate today; the perf module's predictor plugs in there).
// A PlacementProblem is an immutable value once built; thread-safe to read.
#ifndef FRUGAL_PLACE_PROBLEM_H_
#define FRUGAL_PLACE_PROBLEM_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/graph/op_graph.h"
#include "frugal/place/topology.h"

namespace frugal::place {

struct PlaceEdge {
  int src = -1;
  int dst = -1;
  int64_t bytes = 0;
  double cost_ms = -1;  // measured transfer time; negative = none
};

struct PlacementProblem {
  std::string name;
  int num_devices = 1;
  std::vector<std::string> op_names;
  std::vector<int64_t> op_ids;       // the input's node ids (index when none)
  std::vector<double> time_ms;       // per op, >= 0
  std::vector<int64_t> mem_bytes;    // per op, >= 0
  std::vector<int64_t> color;        // per op; -1 = free, equal = colocated
  // Per op, the framework module it comes from ("" = none), or empty when
  // the graph has no modules: names groups in errors, traces and device maps.
  std::vector<std::string> op_modules;
  // Per op, its pass (forward / backward / optimizer), or empty when unknown.
  std::vector<Phase> op_phase;
  // Per op of a micro-batched step (microbatch.h), its micro-batch; -1 for
  // ops shared by all (optimizer updates). Empty: one micro-batch.
  std::vector<int> op_microbatch;
  int num_microbatches = 1;
  std::vector<PlaceEdge> edges;
  std::vector<double> device_mem_bytes;  // per device; +inf = unlimited
  Topology topology;

  // Derived by Finalize().
  std::vector<std::vector<int>> out_edges, in_edges;  // edge indices
  std::vector<std::vector<int>> succs, preds;         // distinct op indices
  std::vector<int> topo_order;
  std::vector<int> topo_pos;  // position of each op in topo_order
  std::vector<int> group;     // colocation group of each op, 0..num_groups-1
  std::vector<std::vector<int>> group_ops;
  std::vector<int64_t> group_mem_bytes;
  std::vector<double> group_time_ms;
  int num_groups = 0;
  std::vector<double> min_transfer_ms;  // per edge: MinEdgeTransferMs

  int num_ops() const { return static_cast<int>(time_ms.size()); }
  double total_time_ms() const;
  int64_t total_mem_bytes() const;
  // Transfer time of edge e from device a to device b without contention.
  double EdgeTransferMs(int e, int a, int b) const {
    return topology.TransferMs(edges[e].bytes, edges[e].cost_ms, a, b);
  }
  // Cheapest transfer of edge e over any device pair (for bounds,
  // priorities); O(1) once finalized.
  double MinEdgeTransferMs(int e) const;

  // Computes the derived fields and checks the problem: 1 <= K <=
  // kMaxPlaceDevices, topology of K devices, times and transfer costs in
  // [0, kMaxSaneTimeMs], non-negative memory, valid edges, a DAG,
  // one weakly connected component (edges and colocation both connect), and enough memory for some placement
  // (no colocation group larger than the largest device, total memory not
  // above the devices' sum). InvalidArgument with a one-line reason.
  Status Finalize();
};

struct ProblemOptions {
  int num_devices = 1;  // REQUIRES: >= 1
  // Memory per device, bytes. Default -1: the graph's device_mem_bytes when
  // it has one, else unlimited.
  double device_mem_bytes = -1;
  // Time of an op without a measured time (ms). Default: none, which makes
  // such graphs an error.
  std::function<double(const Op&)> op_time_ms;
  // Memory of an op without a measured size. Default: the op's share of
  // EstimateStepMemory(graph) (graph/training.h), the model `predict` uses,
  // so the ops' sum is the step's memory (inference: the liveness peak).
  std::function<int64_t(const Op&)> op_mem_bytes;
  // Default (num_devices == 0): NvlinkTopology(num_devices).
  Topology topology;
  // Per op of the graph, its module (colocation.h), or empty.
  std::vector<std::string> op_modules;
};

// Builds and finalizes the problem. Measured times / sizes / transfer costs
// win over the functions.
Result<PlacementProblem> BuildProblem(const OpGraph& graph,
                                      const ProblemOptions& options);

// Memory repair of a group -> device assignment: device by device, moves
// the smallest groups that hold memory off a device over capacity onto the
// device with the most free memory. Returns false when a device still does
// not fit. REQUIRES: group_device->size() == p.num_groups.
bool RepairGroupMemory(const PlacementProblem& p, std::vector<int>* group_device);

// "1.234 GiB": a byte count in the module's error messages.
std::string FormatGiB(double bytes);

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_PROBLEM_H_
