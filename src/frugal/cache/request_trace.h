// A trace loaded for simulation: one compact Request per read, write,
// rename or delete, with dense object ids (a path keeps its id across a
// rename; a re-created path gets a new id) and, per request, the index of
// the object's next read (what the offline policies need). Loading streams
// the reader once and checks it: times must not go backwards; offsets,
// lengths and sizes must not be negative (errors with the record number);
// reads, renames and deletes of unknown files are skipped and counted.
// Memory: a Request (40 bytes) per request; an ObjectInfo per object only
// when the trace has paths (a pathless oracleGeneral trace stores just the
// object count); loading holds a flat id index (12 bytes a slot) and a
// per-object size and next-read table besides. StreamedTrace (below) keeps
// no requests at all, for one online policy on a large oracleGeneral file.
// Immutable after loading; safe to share between simulation threads.
#ifndef FRUGAL_CACHE_REQUEST_TRACE_H_
#define FRUGAL_CACHE_REQUEST_TRACE_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/cache/packed_ids.h"
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

// The objects of a trace: their number, and an ObjectInfo each where the
// trace has paths. A pathless trace stores none, and every object reads as
// a default ObjectInfo (no path, tags -1, not created). Vector-like.
class ObjectTable {
 public:
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // True when an ObjectInfo is stored per object.
  bool has_info() const { return !info_.empty(); }
  const ObjectInfo& operator[](size_t i) const { return i < info_.size() ? info_[i] : kNoInfo; }
  // Stores a default ObjectInfo for every object so far (a pathless table
  // becomes a stored one), then returns object i's.
  ObjectInfo& operator[](size_t i) {
    Materialize();
    return info_[i];
  }
  // Adds an object with `info` (stores infos from here on).
  void push_back(ObjectInfo info) {
    Materialize();
    info_.push_back(std::move(info));
    ++count_;
  }
  // Adds an object with no info of its own.
  void AddPathless() {
    if (!info_.empty()) info_.emplace_back();
    ++count_;
  }
  void reserve(size_t n) {
    if (!info_.empty()) info_.reserve(n);
  }

 private:
  static const ObjectInfo kNoInfo;
  void Materialize() {
    if (info_.size() < count_) info_.resize(count_);
  }
  size_t count_ = 0;
  std::vector<ObjectInfo> info_;  // empty, or one per object
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
  ObjectTable objects;
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

class OracleGeneralFile;

// Whether LoadRequestTrace has ample memory for the oracleGeneral file at
// `path`: its estimate (about 44 bytes a request) at most half of what the
// process may use (a compressed file is counted up to that limit); true
// when the file cannot be opened (loading then says why).
bool OracleGeneralLoadFits(const std::string& path);

// An oracleGeneral file indexed in one pass (the same checks and errors as
// LoadRequestTrace) without keeping its requests: trace() has the counts,
// footprint, groups and objects of the loaded trace but no requests; each
// record's dense object id is kept (4 bytes a request), and Replay reads
// the file again block by block, handing out the same Requests as the
// loaded trace except next_read (always kNever: for online policies only).
// Memory: 4 bytes a request + the index while indexing (12 bytes a slot,
// freed after it), against ~60 bytes a request for LoadRequestTrace.
// Replay is const but not thread-safe (one file position per call).
class StreamedTrace {
 public:
  static Result<StreamedTrace> Open(const std::string& path);
  StreamedTrace(StreamedTrace&&) noexcept;
  StreamedTrace& operator=(StreamedTrace&&) noexcept;
  ~StreamedTrace();

  const RequestTrace& trace() const { return trace_; }
  int64_t requests() const { return static_cast<int64_t>(objs_.size()); }
  // Calls fn(block, index of block[0]) over consecutive blocks of requests,
  // in trace order. InvalidArgument when the file shrank since Open (a file
  // rewritten in between is not detected).
  Status Replay(const std::function<void(std::span<const Request>, int64_t)>& fn) const;

 private:
  StreamedTrace();
  RequestTrace trace_;
  std::unique_ptr<OracleGeneralFile> file_;
  PackedIds objs_;  // dense object id per record
};

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_REQUEST_TRACE_H_
