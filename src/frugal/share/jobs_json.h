// JOBS.json: a sharing workload as a file (format in docs/share.md).
// ParseJobsJson validates every field; errors are one line naming the file
// and the JSON path (and the line of a syntax error). Stateless; thread-safe.
#ifndef FRUGAL_SHARE_JOBS_JSON_H_
#define FRUGAL_SHARE_JOBS_JSON_H_

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "frugal/base/status.h"
#include "frugal/share/workload.h"

namespace frugal::share {

inline constexpr const char* kJobsFormat = "frugal-share-jobs";

// `path` names the file in messages and anchors relative paths (model files,
// arrival traces) to its folder.
Result<Workload> ParseJobsJson(std::string_view text, const std::string& path);
Result<Workload> ReadJobsJson(const std::string& path);

nlohmann::json JobsToJson(const Workload& w);

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_JOBS_JSON_H_
