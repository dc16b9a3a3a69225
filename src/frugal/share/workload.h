// A sharing workload: inference services and training jobs over a horizon,
// and the seeded `mixed` generator: services from the bundled models with
// SLOs 2-5 x their solo latency at their largest batch and diurnal Poisson
// rates; training jobs arriving as a Poisson process with durations drawn
// from the Alibaba GPU trace (deletion_time - creation_time of its pods).
#ifndef FRUGAL_SHARE_WORKLOAD_H_
#define FRUGAL_SHARE_WORKLOAD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/hw/catalog.h"
#include "frugal/share/batch_latency.h"
#include "frugal/share/service.h"
#include "frugal/share/training_job.h"

namespace frugal::share {

struct Workload {
  double horizon_s = 86400;  // services run at most until here
  std::vector<InferenceService> services;
  std::vector<TrainingJob> training;
  int jobs() const { return static_cast<int>(services.size() + training.size()); }
};

struct MixedOptions {
  uint64_t seed = 1;
  int services = 12;
  double training_per_hour = 9;  // mean arrivals
  double horizon_s = 86400;
  // The trace whose pod lifetimes give training durations. Default: the
  // shared Alibaba GPU trace (openb_pod_list_default.csv).
  std::string trace;
  double min_duration_s = 120;    // shorter lifetimes are raised to this
  double max_duration_s = 8 * 3600;  // longer ones are capped
};

std::string DefaultAlibabaTrace();

// Lifetimes (deletion - creation, s) of the trace's pods with both times
// and a positive lifetime. NotFound naming the path when it is absent;
// InvalidArgument naming the line for a malformed row.
Result<std::vector<double>> ReadPodLifetimes(const std::string& path);

// The mixed workload. Prices the services' models on `gpu` (for the SLOs).
Result<Workload> GenerateMixed(const MixedOptions& options, const GpuSpec& gpu,
                               CostCache* costs);

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_WORKLOAD_H_
