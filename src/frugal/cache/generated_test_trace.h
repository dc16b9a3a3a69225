// For tests: a small generated pipeline trace, loaded (the generator's
// preset at a tiny scale). Deterministic; each call generates anew, so
// callers keep theirs in a function-local static.
#ifndef FRUGAL_CACHE_GENERATED_TEST_TRACE_H_
#define FRUGAL_CACHE_GENERATED_TEST_TRACE_H_

#include <string>
#include <utility>

#include "frugal/cache/generator.h"
#include "frugal/cache/request_trace.h"

namespace frugal::cache {

inline RequestTrace GeneratedTestTrace(const std::string& preset, int pipelines, int days,
                                       double scale) {
  GeneratorOptions o;
  o.preset = preset;
  o.pipelines = pipelines;
  o.days = days;
  o.scale = scale;
  return std::move(LoadRequestTrace(*GenerateTrace(o), preset)).value();
}

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_GENERATED_TEST_TRACE_H_
