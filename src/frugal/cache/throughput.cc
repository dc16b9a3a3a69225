#include "frugal/cache/throughput.h"

#include <algorithm>

namespace frugal::cache {

double PipelineSeconds(const std::vector<GroupIo>& groups, const ThroughputOptions& o) {
  const double remote = o.remote_gbps * 1e9, cache = o.cache_gbps * 1e9,
               compute = o.compute_gbps * 1e9;
  double total = 0;
  for (const GroupIo& g : groups) {
    const double read = static_cast<double>(g.hit_bytes + g.miss_bytes);
    const double io = static_cast<double>(g.hit_bytes) / cache +
                      static_cast<double>(g.miss_bytes) / remote +
                      static_cast<double>(g.written_bytes) / remote +
                      static_cast<double>(g.admitted_bytes) / cache;
    total += o.overlap ? std::max(read / compute, io) : read / compute + io;
  }
  return total;
}

double PipelineSpeedup(const std::vector<GroupIo>& groups, const ThroughputOptions& o) {
  std::vector<GroupIo> none = groups;
  for (GroupIo& g : none) {
    g.miss_bytes += g.hit_bytes;
    g.hit_bytes = 0;
    g.admitted_bytes = 0;
  }
  const double with = PipelineSeconds(groups, o);
  const double without = PipelineSeconds(none, o);
  return with > 0 ? without / with : 1.0;
}

}  // namespace frugal::cache
