// Colocation a framework needs to run a placement of a model graph
// (`frugal place --granularity`):
//  - kOp: the graph's own colocation classes only (dnn-partitioning
//    colorClass); every other op may go anywhere, as a graph executor that
//    runs op by op allows.
//  - kModule: what PyTorch's autograd and module.to() impose. A module that
//    owns parameters is placed whole; a backward op and an optimizer update
//    run where their forward op ran; an op without parameters (a view, an
//    activation, a residual add) runs where its last-made input was produced
//    (PyTorch runs an op on its inputs' device; a residual add follows its
//    branch, not the residual stream); ops that read one parameter
//    (tied embeddings) share a GPU.
//  - kLayer: kModule, and every op of one repeated block ("h.3",
//    "layer1.0") on one GPU, as accelerate's no_split_module_classes.
// Stateless; thread-safe.
#ifndef FRUGAL_PLACE_COLOCATION_H_
#define FRUGAL_PLACE_COLOCATION_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/graph/modules.h"
#include "frugal/graph/op_graph.h"

namespace frugal::place {

enum class Granularity { kOp, kModule, kLayer };

const char* GranularityName(Granularity g);
// InvalidArgument naming the accepted values.
Result<Granularity> ParseGranularity(std::string_view name);

// The default for a graph: kModule for HF configs and ONNX models (whose
// names carry module paths), else kOp.
Granularity DefaultGranularity(const OpGraph& graph);

struct Colocation {
  std::vector<int64_t> color;         // per op; -1 = free; equal = one GPU
  ModuleMap modules;                  // the graph's modules (modules.h)
  int groups = 0;                     // distinct colors
};

// Colors for `graph` at granularity `g`. kModule / kLayer on a graph whose
// names are not module paths is an InvalidArgument saying so.
// REQUIRES: graph validated.
Result<Colocation> Colocate(const OpGraph& graph, Granularity g);

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_COLOCATION_H_
