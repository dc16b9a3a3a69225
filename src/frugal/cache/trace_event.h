// Trace events of a file-level I/O trace: create, write, read, rename,
// delete, with time, path, sizes and optional pipeline / stage / worker tags.
// Plain values; thread-compatible.
#ifndef FRUGAL_CACHE_TRACE_EVENT_H_
#define FRUGAL_CACHE_TRACE_EVENT_H_

#include <cstdint>
#include <string>

namespace frugal::cache {

enum class EventKind : uint8_t { kCreate, kWrite, kRead, kRename, kDelete };

inline constexpr const char* kEventKindNames[] = {"create", "write", "read",
                                                  "rename", "delete"};
const char* EventKindName(EventKind kind);
// Sets *kind and returns true for "create", "write", "read", "rename", "delete".
bool ParseEventKind(const std::string& name, EventKind* kind);

// One event. Readers fill `path` (and `new_path` for rename) when the format
// has paths; oracleGeneral traces have object ids only (`path` is empty and
// `object_id` holds the id).
struct TraceEvent {
  int64_t time_us = 0;
  EventKind kind = EventKind::kRead;
  std::string path;
  std::string new_path;   // rename target
  uint64_t object_id = 0; // oracleGeneral object id
  int64_t offset = 0;     // read / write: first byte
  int64_t length = 0;     // read / write: bytes
  int64_t size = 0;       // file size after the event; 0 = unknown
  int32_t pipeline = -1;  // -1 = untagged
  int32_t stage = -1;
  int32_t worker = -1;
  int64_t next_access_vtime = -1;  // oracleGeneral: -1 = never again
};

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_TRACE_EVENT_H_
