// FLOPs of an einsum from its equation and operand shapes (ONNX Einsum and
// numpy semantics: letters a-z / A-Z label dims, one "..." per term stands for
// the broadcast leading dims, an omitted "->" means the output is the
// ellipsis dims followed by the letters used once, in alphabetical order).
// Operands are contracted left to right as two-operand products; see
// docs/graph.md for the count. Stateless; thread-safe.
#ifndef FRUGAL_GRAPH_EINSUM_H_
#define FRUGAL_GRAPH_EINSUM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "frugal/base/status.h"

namespace frugal {

// FLOPs of evaluating `equation` on operands of the given shapes. A
// two-operand step costs the product of the sizes of every label in either
// operand, times 2 when a label is summed out in that step (multiply-add),
// times 1 otherwise (multiply only). A one-operand einsum costs one add per
// element when it sums a label out and nothing when it only permutes or takes
// a diagonal. InvalidArgument on a malformed equation or shapes that do not
// match it.
Result<double> EinsumFlops(const std::string& equation,
                           const std::vector<std::vector<int64_t>>& shapes);

// The output shape of `equation` on operands of the given shapes (ONNX's
// shape inference knows only the rank). Same errors as EinsumFlops.
Result<std::vector<int64_t>> EinsumOutputShape(
    const std::string& equation, const std::vector<std::vector<int64_t>>& shapes);

}  // namespace frugal

#endif  // FRUGAL_GRAPH_EINSUM_H_
