// Pipeline throughput model. Each (pipeline, stage) group of a trace runs
// its compute and its I/O overlapped: time = max(compute, I/O); with
// `overlap` off they run one after the other, compute + I/O, as in a job
// whose tasks read a file and then process it. compute = bytes read /
// compute bandwidth; I/O = bytes read from the cache tier / cache bandwidth
// + bytes read remotely / remote bandwidth + bytes written / remote
// bandwidth (writes go through to remote storage) + bytes admitted to the
// cache / cache bandwidth. The pipeline time is the sum over groups; the
// speed-up of a policy is the time with no cache over the time with it.
// Stateless; thread-safe.
#ifndef FRUGAL_CACHE_THROUGHPUT_H_
#define FRUGAL_CACHE_THROUGHPUT_H_

#include <cstdint>
#include <vector>

namespace frugal::cache {

struct ThroughputOptions {
  // Default: 1 GB/s, an object store's aggregate bandwidth to one job.
  double remote_gbps = 1.0;
  // Default: 8 GB/s, a few local NVMe SSDs.
  double cache_gbps = 8.0;
  // Default: 4 GB/s of input processed by the workers' CPUs.
  double compute_gbps = 4.0;
  // Compute and I/O of a group overlap (time = max of the two); false:
  // they add up.
  bool overlap = true;
};

// I/O of one group under one policy, in bytes.
struct GroupIo {
  int64_t hit_bytes = 0;       // read from the cache tier
  int64_t miss_bytes = 0;      // read from remote storage
  int64_t written_bytes = 0;   // written by the pipeline
  int64_t admitted_bytes = 0;  // written into the cache tier
};

// Seconds for all groups.
double PipelineSeconds(const std::vector<GroupIo>& groups, const ThroughputOptions& o);

// PipelineSeconds with every read remote and nothing admitted, divided by
// PipelineSeconds(groups); 1 when the trace has no I/O.
double PipelineSpeedup(const std::vector<GroupIo>& groups, const ThroughputOptions& o);

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_THROUGHPUT_H_
