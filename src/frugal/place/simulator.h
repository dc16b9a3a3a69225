// Discrete-event simulator: executes a placement (device per op) with a
// per-device execution order and reports the step's makespan, per-device and
// per-link busy time and peak memory. Semantics (docs/place.md): a device
// runs one op at a time, in its order, starting an op once every input is
// on the device; an op's output goes to each other device that consumes it
// in one transfer (as long as the slowest of its edges to that device),
// started when the op ends, FIFO per link; a transfer holds every link on its
// route. Memory is resident for the whole step: peak = sum over the device's
// ops. Every method is scored by this simulator. Stateless; thread-safe.
#ifndef FRUGAL_PLACE_SIMULATOR_H_
#define FRUGAL_PLACE_SIMULATOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "frugal/place/problem.h"

namespace frugal::place {

struct Placement {
  std::vector<int> device;               // per op, 0..K-1
  std::vector<std::vector<int>> order;   // per device: its ops, in run order
};

struct OpSpan {
  double start_ms = 0;
  double end_ms = 0;
};

struct TransferSpan {
  int op = -1;  // producer
  int src_device = -1;
  int dst_device = -1;
  double start_ms = 0;
  double end_ms = 0;
};

struct SimResult {
  bool feasible = false;
  std::string reason;  // why not, when !feasible: one line
  double makespan_ms = 0;
  std::vector<double> device_busy_ms;
  std::vector<double> link_busy_ms;
  std::vector<int64_t> device_peak_mem_bytes;
  // Filled when SimOptions::keep_timeline.
  std::vector<OpSpan> ops;
  std::vector<TransferSpan> transfers;
};

struct SimOptions {
  bool keep_timeline = false;
  bool check_memory = true;
};

// Rejects (feasible = false, with the reason) a placement of the wrong size,
// a device out of range, an order that misses, repeats or misplaces an op,
// split colocation groups, memory over capacity, and orders that contradict
// the dependencies (deadlock).
SimResult Simulate(const PlacementProblem& p, const Placement& placement,
                   const SimOptions& options = {});

// List scheduling for a fixed device assignment: whenever a device is idle it
// runs, among its ops whose inputs have arrived, the one with the highest
// priority (ties: lower topological position). Returns the placement with
// the realized per-device order. Same event semantics as Simulate, so
// Simulate(ListSchedule(...)) reproduces the list schedule's makespan.
// When makespan_ms is given it receives the schedule's makespan (what
// Simulate would return, without a second run).
// REQUIRES: device.size() == num_ops, values in range, priority per op.
Placement ListSchedule(const PlacementProblem& p, const std::vector<int>& device,
                       const std::vector<double>& priority, double* makespan_ms = nullptr);

// Bottom levels: op time plus the longest path to a sink, counting a
// transfer (no contention) only where the edge crosses devices of `device`;
// with an empty `device`, every edge costs its cheapest transfer times
// `comm_weight`.
std::vector<double> BottomLevels(const PlacementProblem& p, const std::vector<int>& device,
                                 double comm_weight = 0);

// ListSchedule with bottom-level priorities for this assignment.
Placement ScheduleByBottomLevel(const PlacementProblem& p, const std::vector<int>& device,
                                double* makespan_ms = nullptr);

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_SIMULATOR_H_
