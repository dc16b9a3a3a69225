// smartcache's trained-model files (`frugal cache train`, `--model`): its
// four GBDT models (read again, cost, reuse, lifetime) as XGBoost JSON,
// the path-pattern and extension ids they were trained with, and the
// per-pattern label statistics. A policy made with PolicyOptions::model_path
// starts with these (no LRU warm-up) and refits on its own trace's labels
// once a quarter of a training window of them arrived. Stateless; thread-safe.
#ifndef FRUGAL_CACHE_SMARTCACHE_MODEL_H_
#define FRUGAL_CACHE_SMARTCACHE_MODEL_H_

#include <string>

#include <nlohmann/json.hpp>

#include "frugal/base/status.h"
#include "frugal/cache/policy.h"

namespace frugal::cache {

// Runs smartcache's online learner over `trace` at options.capacity_bytes
// (seed, and a model_path to continue from, as given) and returns the
// model file's JSON. REQUIRES: options.capacity_bytes > 0 (else
// InvalidArgument); options.trace is ignored.
Result<nlohmann::json> TrainSmartCacheModel(const RequestTrace& trace, const PolicyOptions& options);

// Reads and checks a model file as MakePolicy does: InvalidArgument or
// NotFound, one line naming the file, when it is missing, not JSON, not a
// smartcache model, another version or feature count, or holds a model
// XGBoost would not read safely.
Status CheckSmartCacheModel(const std::string& path);

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_SMARTCACHE_MODEL_H_
