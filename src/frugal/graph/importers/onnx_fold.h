// Folding of an ONNX graph's shape computations: known integer (and small
// float) tensor values are propagated from Constants, initializers and the
// Shape of tensors whose dims inference has resolved, through the ops
// onnx_values.h evaluates; every node input whose value becomes known is then
// rewired to an initializer holding it, so that ONNX's shape inference can
// resolve the Reshape / Expand / Pad / Slice / Resize that read it. The
// importer alternates inference and folding until nothing changes.
// Stateless; thread-safe.
#ifndef FRUGAL_GRAPH_IMPORTERS_ONNX_FOLD_H_
#define FRUGAL_GRAPH_IMPORTERS_ONNX_FOLD_H_

#include <set>
#include <string>
#include <unordered_map>

#include "frugal/graph/importers/onnx_values.h"
#include "onnx/onnx_pb.h"

namespace frugal::importers {

using OnnxTypeMap = std::unordered_map<std::string, const onnx::TypeProto*>;
using ValueMap = std::unordered_map<std::string, TensorValue>;

// Known values of `graph`'s tensors given the inferred `types`, evaluated in
// node order (`opset`: the default domain's version).
ValueMap PropagateValues(const onnx::GraphProto& graph, int opset,
                         const OnnxTypeMap& types);

// Rewires node inputs produced by nodes whose values are in `values` to new
// initializers holding them (named in `folded`). Returns how many inputs
// were rewired; 0 means a fixed point.
int WriteBackValues(const ValueMap& values, onnx::GraphProto* graph,
                    std::set<std::string>* folded);

// Removes the nodes no graph output depends on, returns how many: once
// WriteBackValues has rewired the consumers of folded values (trace-time
// shape arithmetic: Shape -> Gather -> Unsqueeze -> Concat -> Reshape's
// target), the nodes that computed them are dead code PyTorch never runs
// on the GPU; kept, they would be ops with no edges to the model. A graph
// that declares no outputs is left as it is.
int RemoveDeadNodes(onnx::GraphProto* graph);

}  // namespace frugal::importers

#endif  // FRUGAL_GRAPH_IMPORTERS_ONNX_FOLD_H_
