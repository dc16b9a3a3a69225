// The request-level discrete-event simulation. Per service: FIFO requests,
// dynamic batching (a free server dispatches when max_batch requests wait or
// the oldest has waited max_queue_delay_ms; a partial batch runs at the next
// allowed batch size), batch latency from the service's placement at the
// dispatch time. Per cluster: arrivals and departures of jobs drive the
// policy; training jobs progress at their co-located speed; every 15
// minutes (and at every event) duties are re-priced at the current request
// rates. Deterministic for a seed. Thread-compatible.
#ifndef FRUGAL_SHARE_SERVING_SIM_H_
#define FRUGAL_SHARE_SERVING_SIM_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "frugal/share/service.h"
#include "frugal/share/sharing_policy.h"

namespace frugal::share {

// The service's batch latencies from start_s on (until the next segment);
// empty batch_ms: not placed, requests fail.
struct LatencySegment {
  double start_s = 0;
  std::vector<double> batch_ms;  // per allowed batch size
};

struct RequestStats {
  int64_t requests = 0;
  int64_t over_slo = 0;  // including failed
  int64_t failed = 0;    // arrived while the service had no GPU
  double p50_ms = 0;
  double p99_ms = 0;
  double mean_batch = 0;
};

// Simulates `arrivals` (ascending, s) through the batcher.
// REQUIRES: segments ascending by start_s, the first at or before arrivals[0].
RequestStats SimulateRequests(std::span<const double> arrivals,
                              std::span<const int64_t> batch_sizes,
                              double max_queue_delay_ms, double slo_ms,
                              std::span<const LatencySegment> segments);

struct SimOptions {
  uint64_t seed = 1;
  double tick_s = 900;          // re-pricing period
  double migration_cost_s = 30; // training progress lost per migration
  int max_gpus = 0;             // 0: unlimited
  // Called at every re-pricing tick with the simulated time (s); empty:
  // none. For progress on long runs.
  std::function<void(double now_s)> progress;
};

// Service i's arrivals over [start_s, min(end_s, horizon_s)). The
// simulation draws one service's at a time, so memory is bounded by the
// busiest service, not by all of them.
std::vector<double> ServiceArrivals(const Workload& w, size_t i, uint64_t seed);

// The request simulation keeps one service's arrivals and latencies at a
// time (12 bytes a request): at most kMaxServiceRequests expected of any one
// service, and kMaxSimulatedRequests of all (run time). An error names the
// service or the total.
inline constexpr double kMaxServiceRequests = 100e6;
inline constexpr double kMaxSimulatedRequests = 1e9;
Status CheckSimulatable(const Workload& w);

struct ServiceOutcome {
  std::string name;
  double slo_ms = 0;
  RequestStats stats;
  bool unschedulable = false;
  std::string reason;
};
struct TrainingOutcome {
  std::string name;
  double start_s = -1, end_s = -1;  // -1: never ran
  double speed = 0;  // solo duration / time running
  double wait_s = 0;
  bool unschedulable = false;
  std::string reason;
};
struct SimResult {
  std::string policy;
  double gpu_hours = 0;
  int peak_gpus = 0;
  std::vector<double> gpus_by_hour;  // mean GPUs in use per hour
  int64_t migrations = 0;
  int64_t requests = 0, over_slo = 0;
  double over_slo_pct = 0;
  double mean_training_speed = 0;  // over jobs that ran
  double makespan_s = 0;
  std::vector<ServiceOutcome> services;
  std::vector<TrainingOutcome> training;
};

SimResult SimulateCluster(const Planner& planner, SharingPolicy& policy,
                          const SimOptions& options);

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_SERVING_SIM_H_
