// Where a policy's misses come from: a trace's reads grouped by a key —
// the (pipeline, stage) that issued them, the file's path pattern as
// smartcache sees it (policies/path_features.h: one pattern per kind of
// file a pipeline writes), the trace day, or several of these at once
// ("stage,day").
// Keys are numbered in order of first appearance, so the same trace gives
// the same breakdown. One registry table of key kinds (BreakdownKeys()).
#ifndef FRUGAL_CACHE_BREAKDOWN_H_
#define FRUGAL_CACHE_BREAKDOWN_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "frugal/base/registry.h"
#include "frugal/base/status.h"
#include "frugal/cache/request_trace.h"

namespace frugal::cache {

struct Breakdown {
  std::string by;                    // the key list as given, e.g. "stage,day"
  std::vector<std::string> names;    // one per key value, e.g. "pipeline 0 stage 2 · day 1"
  std::vector<uint32_t> of_request;  // the key value of each request of the trace
};

// Appends, for every request of `trace`, its value of one key kind to
// `ids` (a dense index into `names`, which it fills). Fails when the trace
// lacks what the key needs (paths for "pattern").
using BreakdownKeyFn = Status (*)(const RequestTrace& trace, std::vector<uint32_t>* ids,
                                  std::vector<std::string>* names);

// The table: "stage", "pattern", "day".
std::span<const RegistryRow<BreakdownKeyFn>> BreakdownKeys();

// `by`: one key kind or a comma-separated list of them. Errors name the
// unknown kind or what the trace lacks. REQUIRES: trace.requests loaded.
Result<Breakdown> MakeBreakdown(const RequestTrace& trace, const std::string& by);

// Counts of one key value in one simulation.
struct BreakdownCell {
  int64_t reads = 0;
  int64_t hits = 0;
  int64_t read_bytes = 0;
  int64_t hit_bytes = 0;
};

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_BREAKDOWN_H_
