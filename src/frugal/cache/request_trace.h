// A trace loaded for simulation: one compact Request per read, write,
// rename or delete, with dense object ids (a path keeps its id across a
// rename; a re-created path gets a new id) and, per request, the index of
// the object's next read (what the offline policies need). Loading streams
// the reader once and checks it: times must not go backwards; offsets,
// lengths and sizes must not be negative (errors with the record number);
// reads, renames and deletes of unknown files are skipped and counted.
// Immutable after loading; safe to share between simulation threads.
#ifndef FRUGAL_CACHE_REQUEST_TRACE_H_
#define FRUGAL_CACHE_REQUEST_TRACE_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/cache/trace_reader.h"

namespace frugal::cache {

enum class RequestKind : uint8_t { kRead, kWrite, kRename, kDelete };

inline constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

struct Request {
  int64_t time_us = 0;
  int64_t bytes = 0;     // read: bytes read; write: bytes written
  int64_t obj_size = 0;  // object size after this request
  int64_t next_read = kNever;  // index of the object's next read; kNever = none
  uint32_t obj = 0;
  uint16_t group = 0;  // index into RequestTrace::groups (who issued it)
  RequestKind kind = RequestKind::kRead;
};

// A (pipeline, stage) pair of the events' tags; the throughput model times
// each group. Untagged traces have one group (-1, -1).
struct StageGroup {
  int32_t pipeline = -1;
  int32_t stage = -1;
  bool operator==(const StageGroup&) const = default;
};

// Static facts about an object, for the learned policies' features.
struct ObjectInfo {
  std::string path;          // as first seen; empty for oracleGeneral traces
  std::string renamed_path;  // after the last rename, else empty
  int64_t first_time_us = 0;
  int32_t pipeline = -1;
  int32_t stage = -1;
  int32_t worker = -1;
  bool created = false;      // true when the trace holds its create / first write
};

struct SkipCounts {
  int64_t unknown_reads = 0;    // reads of deleted or never-seen, sizeless files
  int64_t unknown_deletes = 0;  // deletes of unknown files
  int64_t unknown_renames = 0;  // renames of unknown files
  int64_t total() const { return unknown_reads + unknown_deletes + unknown_renames; }
};

struct RequestTrace {
  std::string source;
  std::vector<Request> requests;
  std::vector<ObjectInfo> objects;
  std::vector<StageGroup> groups;
  int64_t footprint_bytes = 0;  // sum over objects of their largest size
  int64_t reads = 0;
  int64_t read_bytes = 0;
  int64_t written_bytes = 0;
  int64_t records = 0;
  SkipCounts skipped;
  bool has_paths = false;
};

// Streams `reader` to its end into a RequestTrace.
Result<RequestTrace> LoadRequestTrace(TraceReader& reader);
// OpenTrace + LoadRequestTrace.
Result<RequestTrace> LoadRequestTrace(const std::string& path,
                                      const std::string& format = "auto");
// Builds a trace from in-memory events (tests); `source` names it in errors.
Result<RequestTrace> LoadRequestTrace(const std::vector<TraceEvent>& events,
                                      const std::string& source = "events");

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_REQUEST_TRACE_H_
