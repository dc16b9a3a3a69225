// Repairs and checks an ONNX graph needs before ONNX's own shape inference
// runs on it: the inference functions of the ONNX release frugal links trust
// some inputs that a damaged or hand-written file can get wrong, and then
// read out of bounds instead of failing. Each guard turns one such case into
// an error naming the node, or fills in what inference would have derived in
// a form it checks. Stateless; thread-safe.
#ifndef FRUGAL_GRAPH_IMPORTERS_ONNX_GUARDS_H_
#define FRUGAL_GRAPH_IMPORTERS_ONNX_GUARDS_H_

#include <string>

#include "frugal/base/status.h"
#include "onnx/onnx_pb.h"

namespace frugal::importers {

// All guards, on `graph` and the If / Loop / Scan bodies inside it, for the
// default domain at `opset`; `path` prefixes errors:
//  - every node input names a tensor of the graph (a node output,
//    initializer or graph input) or of an enclosing one (inference
//    dereferences a missing type);
//  - every attribute the op's schema requires is present, and every
//    attribute the schema names has the schema's type (inference reads a
//    required attribute without checking it is there);
//  - strides, dilations, kernel_shape and blocksize are >= 1 (inference
//    divides by them);
//  - Conv, ConvTranspose, ConvInteger and QLinearConv: a weight of rank
//    below 3 is an error; ops without a kernel_shape attribute get one from
//    their weight's static shape (initializer, Constant or declared type), so
//    that inference compares its rank with the input's instead of indexing
//    past it; a weight whose shape is not declared is an error where
//    inference would need it (no kernel_shape, or ConvTranspose).
Status GuardShapeInference(onnx::GraphProto* graph, int opset, const std::string& path);

}  // namespace frugal::importers

#endif  // FRUGAL_GRAPH_IMPORTERS_ONNX_GUARDS_H_
