// Factories of the profiler backends, registered in profiler.cc. Internal.
#ifndef FRUGAL_PERF_PROFILER_BACKENDS_H_
#define FRUGAL_PERF_PROFILER_BACKENDS_H_

#include <memory>

#include "frugal/perf/profiler/profiler.h"

namespace frugal {

Result<std::unique_ptr<ProfileBackend>> NewCpuBackend();
// Unimplemented ("built without CUDA") unless FRUGAL_WITH_CUDA; otherwise
// FailedPrecondition when no CUDA device is present.
Result<std::unique_ptr<ProfileBackend>> NewCudaBackend();

}  // namespace frugal

#endif  // FRUGAL_PERF_PROFILER_BACKENDS_H_
