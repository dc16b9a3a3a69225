// The one-pass cache simulator: for each policy and cache size, one pass
// over a loaded RequestTrace, counting object and byte miss ratios over
// reads, bytes written into the cache tier, and the pipeline speed-up of
// the throughput model. Policy x size runs go to a pool of threads; each
// run is independent and deterministic, and results come back in the
// order policies x sizes, so output does not depend on `threads`.
#ifndef FRUGAL_CACHE_SIMULATOR_H_
#define FRUGAL_CACHE_SIMULATOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "frugal/base/status.h"
#include "frugal/cache/breakdown.h"
#include "frugal/cache/request_trace.h"
#include "frugal/cache/throughput.h"

namespace frugal::cache {

struct SimulationOptions {
  std::vector<std::string> policies = {"lru"};  // names, or {"all"}
  std::vector<int64_t> cache_bytes;              // REQUIRES: each > 0
  int threads = 0;  // 0 = one per hardware thread
  uint64_t seed = 1;
  ThroughputOptions throughput;
  std::string model_path;  // PolicyOptions::model_path for every policy; empty = none
  // Counts reads per key value (MakeBreakdown of the simulated trace); null
  // = none. Not for streamed simulations. Outlives the simulation.
  const Breakdown* breakdown = nullptr;
};

// One key value's counts in a simulation (SimulationOptions::breakdown).
struct BreakdownRow {
  std::string key;
  BreakdownCell cell;
};

struct SimulationResult {
  std::string policy;
  int64_t cache_bytes = 0;
  double cache_fraction = 0;  // of the trace's footprint
  int64_t reads = 0;
  int64_t hits = 0;
  int64_t read_bytes = 0;
  int64_t hit_bytes = 0;
  double miss_ratio = 0;
  double byte_miss_ratio = 0;
  int64_t bytes_written_to_cache = 0;
  double pipeline_speedup = 1;
  nlohmann::json report;  // policy-specific (model accuracy), or null
  std::string breakdown_by;             // SimulationOptions::breakdown->by, or empty
  std::vector<BreakdownRow> breakdown;  // in key order; empty without a breakdown
};

// Parses "1%,5%,10%" (of footprint_bytes) or byte counts with an optional
// unit ("536870912", "512MiB", "2GB"). InvalidArgument for an empty list, a
// malformed item, or a size that is 0 or negative.
Result<std::vector<int64_t>> ParseCacheSizes(const std::string& text, int64_t footprint_bytes);

// InvalidArgument naming `path` when the trace reads and writes no byte
// (nothing to cache: every size would be 0 % of nothing).
Status CheckTouchesBytes(const RequestTrace& trace, const std::string& path);

// One policy, one size.
Result<SimulationResult> SimulateOne(const RequestTrace& trace, const std::string& policy,
                                     int64_t cache_bytes, const SimulationOptions& options);

// Every policy x size, in parallel; fails on the first bad name or size.
Result<std::vector<SimulationResult>> Simulate(const RequestTrace& trace,
                                               const SimulationOptions& options);

// Online policies x sizes on an oracleGeneral file without loading it: an
// indexing pass (StreamedTrace::Open: counts, footprint, object ids), then
// replays from the file, one per group of options.threads (policy, size)
// cells, each block of requests handed to the group's cells side by side
// (one thread a cell; only a group's policy state is held at once). Same
// SimulationResults, in the same order (policy-major), as LoadRequestTrace
// + Simulate, in a fraction of the memory (see request_trace.h): each cell
// adds only its policy's state. `sizes` is a ParseCacheSizes list (of the
// footprint).
struct StreamedSimulation {
  RequestTrace trace;  // counts, footprint, objects; no requests
  int64_t requests = 0;
  std::vector<SimulationResult> results;
  double load_s = 0;      // the indexing pass
  double simulate_s = 0;  // the replay (reading the file again included)
};

// True when SimulateStreamed applies: online policies only (named: not
// "all", no offline one such as belady), an oracleGeneral trace (`format`
// "oracle", or "auto" and an oracleGeneral name).
bool CanSimulateStreamed(const std::string& path, const std::string& format,
                         const std::vector<std::string>& policies);

// InvalidArgument for an unknown or offline policy, a bad size, or the
// trace's own errors (as LoadRequestTrace).
Result<StreamedSimulation> SimulateStreamed(const std::string& path,
                                            const std::vector<std::string>& policies,
                                            const std::string& sizes,
                                            const SimulationOptions& options);

nlohmann::json ResultToJson(const SimulationResult& r);

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_SIMULATOR_H_
