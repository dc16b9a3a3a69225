// Reads a pod list: Alibaba's openb_pod_list_*.csv. Required columns: name,
// cpu_milli, memory_mib, num_gpu, gpu_milli; optional: gpu_spec (models
// joined by '|', empty for any), qos, pod_phase, creation_time,
// deletion_time, scheduled_time (seconds; empty when unknown).
// Stateless; thread-safe.
#ifndef FRUGAL_SHARE_POD_TRACE_H_
#define FRUGAL_SHARE_POD_TRACE_H_

#include <string>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/share/cluster.h"
#include "frugal/share/node_trace.h"

namespace frugal::share {

// InvalidArgument "FILE:LINE: problem" for a missing column or field, a
// non-integer or negative number or time, gpu_milli outside 0..1000,
// num_gpu above kMaxGpusPerNode, gpu_milli 0 on a GPU pod (or > 0 on a
// CPU pod), a shared GPU (gpu_milli < 1000) asked of several GPUs, a
// deletion before the creation, an unknown model in gpu_spec, an unknown
// QoS; "FILE: no pods" for an empty list. gpu_spec models are interned.
Result<std::vector<PodSpec>> ReadPodTrace(const std::string& path, GpuModelTable* models,
                                          const TraceReadOptions& options = {});

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_POD_TRACE_H_
