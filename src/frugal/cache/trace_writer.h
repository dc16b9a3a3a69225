// Streaming writers of the frugal trace formats (binary .frt and CSV), used
// by the generator and by tests; layouts in docs/cache.md. One thread at a
// time.
#ifndef FRUGAL_CACHE_TRACE_WRITER_H_
#define FRUGAL_CACHE_TRACE_WRITER_H_

#include <memory>
#include <string>

#include "frugal/base/status.h"
#include "frugal/cache/trace_event.h"

namespace frugal::cache {

class TraceWriter {
 public:
  virtual ~TraceWriter() = default;
  virtual Status Write(const TraceEvent& ev) = 0;
  // Flushes and closes; reports write errors. REQUIRES: called once.
  virtual Status Close() = 0;
};

// format: "frugal" or "csv"; "auto" picks by extension (.csv → csv).
Result<std::unique_ptr<TraceWriter>> CreateTraceWriter(const std::string& path,
                                                       const std::string& format = "auto");

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_TRACE_WRITER_H_
