// Reads a node list: Alibaba's openb_node_list_*.csv, columns sn (or name),
// cpu_milli, memory_mib, gpu, model. Nodes without GPUs have gpu 0 and an
// empty model. Stateless; thread-safe.
#ifndef FRUGAL_SHARE_NODE_TRACE_H_
#define FRUGAL_SHARE_NODE_TRACE_H_

#include <string>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/share/cluster.h"

namespace frugal::share {

struct TraceReadOptions {
  // GPU model names a node or a pod's gpu_spec may use. Default: the
  // Alibaba trace's models; the CLI adds the catalog's GPU names.
  std::vector<std::string> known_models = AlibabaGpuModels();
};

// InvalidArgument "FILE:LINE: problem" for a missing column or field, a
// negative or non-integer number, more than kMaxGpusPerNode GPUs, a GPU
// node without a model, an unknown model, binary data; "FILE: no nodes"
// for an empty list. Models are interned into `models`.
Result<std::vector<NodeSpec>> ReadNodeList(const std::string& path, GpuModelTable* models,
                                           const TraceReadOptions& options = {});

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_NODE_TRACE_H_
