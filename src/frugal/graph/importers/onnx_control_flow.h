// Control flow in ONNX graphs, reduced for costing: an If whose condition is
// a known value is replaced by the nodes of the branch it takes, and a Loop
// with a known trip count (and a condition that stays true) is unrolled, each
// iteration a renamed copy of the body. What cannot be reduced is left in
// place for the importer to reject by name. Stateless; thread-safe.
#ifndef FRUGAL_GRAPH_IMPORTERS_ONNX_CONTROL_FLOW_H_
#define FRUGAL_GRAPH_IMPORTERS_ONNX_CONTROL_FLOW_H_

#include <string>

#include "frugal/base/status.h"
#include "frugal/graph/importers/onnx_fold.h"
#include "onnx/onnx_pb.h"

namespace frugal::importers {

// Unrolled graphs larger than this many nodes are an error.
inline constexpr int64_t kMaxUnrolledNodes = 100000;

// Reduces every If and Loop of `graph` that `values` make reducible.
// Returns true when the graph changed; InvalidArgument (prefixed with
// `path`) when an unrolled Loop would exceed kMaxUnrolledNodes.
Result<bool> ReduceControlFlow(const ValueMap& values, int opset,
                               const std::string& path,
                               onnx::GraphProto* graph);

}  // namespace frugal::importers

#endif  // FRUGAL_GRAPH_IMPORTERS_ONNX_CONTROL_FLOW_H_
