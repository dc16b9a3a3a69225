// Op profiler: measures the latency of single operators on a local device
// and writes the same CSV schema as the shared op timings, so new GPUs (or
// CPUs) can be added to the training data of the op-time models.
//
// A ProfileBackend runs real kernels for an OpShape: warm-up launches, then
// `repetitions` timed launches; the median is reported. Backends live in one
// registry table (ProfileBackends()): `cpu` is always built; `cuda` (cuBLAS,
// cuDNN and small CUDA kernels) only when the CUDA toolkit is found at build
// time (FRUGAL_WITH_CUDA). A backend object owns its device buffers; it is
// not thread-safe, use one per thread.
#ifndef FRUGAL_PERF_PROFILER_PROFILER_H_
#define FRUGAL_PERF_PROFILER_PROFILER_H_

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "frugal/base/registry.h"
#include "frugal/base/stats.h"  // Median, used by the backends
#include "frugal/base/status.h"
#include "frugal/perf/dataset.h"

namespace frugal {

struct ProfileOptions {
  int warmup = 2;       // untimed launches before measuring. REQUIRES: >= 0
  int repetitions = 7;  // timed launches; the median is kept. REQUIRES: >= 1
  // Largest tensor (bytes) a shape may allocate; bigger shapes are skipped
  // with a note rather than exhausting memory. Default: 1 GiB.
  double max_tensor_bytes = 1024.0 * 1024 * 1024;
  // Called after each shape with (done, total); may be empty.
  std::function<void(size_t, size_t)> progress;
};

class ProfileBackend {
 public:
  virtual ~ProfileBackend() = default;
  // The Device column: "cpu:<model name>" or the CUDA device name.
  virtual std::string DeviceName() const = 0;
  // Median latency in ms of `shape`. InvalidArgument for an invalid shape;
  // Unimplemented for an op the backend cannot run.
  virtual Result<double> MeasureMs(const OpShape& shape,
                                   const ProfileOptions& options) = 0;
};

using ProfileBackendFactory = Result<std::unique_ptr<ProfileBackend>> (*)();
std::span<const RegistryRow<ProfileBackendFactory>> ProfileBackends();

struct ProfileResult {
  std::vector<OpSample> samples;   // measured, in input order
  std::vector<std::string> skipped;  // "conv b=...: too large (3.1 GiB)"
};

// Measures every shape with `backend`.
Result<ProfileResult> ProfileShapes(ProfileBackend& backend,
                                    const std::vector<OpShape>& shapes,
                                    const ProfileOptions& options);

// A default sweep of shapes for `op`, small enough for a CPU: powers of two
// around common layer sizes. Deterministic.
std::vector<OpShape> DefaultSweep(PerfOp op);

// Writes samples as timing CSVs that LoadTimingCsv reads back: one file per
// op type, `<dir>/<op>/<device>.csv` with OPName, Latency, Device and the
// op's shape columns. Returns the paths written.
Result<std::vector<std::string>> WriteTimingCsvs(const std::vector<OpSample>& samples,
                                                 const std::string& dir);

}  // namespace frugal

#endif  // FRUGAL_PERF_PROFILER_PROFILER_H_
