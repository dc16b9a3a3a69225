// For tests: a hand-written job's file events, 1 ms apart, loaded as a
// request trace.
#ifndef FRUGAL_CACHE_JOB_TEST_TRACE_H_
#define FRUGAL_CACHE_JOB_TEST_TRACE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "frugal/cache/request_trace.h"
#include "frugal/cache/trace_event.h"

namespace frugal::cache {

struct JobTrace {
  std::vector<TraceEvent> ev;
  void Add(EventKind kind, const std::string& path, int64_t offset, int64_t length, int64_t size) {
    TraceEvent e;
    e.time_us = static_cast<int64_t>(ev.size()) * 1000;
    e.kind = kind;
    e.path = path;
    e.offset = offset;
    e.length = length;
    e.size = size;
    ev.push_back(e);
  }
  RequestTrace Load() const { return std::move(LoadRequestTrace(ev)).value(); }
};

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_JOB_TEST_TRACE_H_
