// Exact FLOP and byte counts of forward ops from their kind, attributes and
// tensor shapes (formulas in docs/graph.md). A multiply-add counts as 2
// FLOPs. Bytes read are all inputs including weights; bytes written are all
// outputs. Stateless; thread-safe.
#ifndef FRUGAL_GRAPH_OP_COST_H_
#define FRUGAL_GRAPH_OP_COST_H_

#include "frugal/base/status.h"
#include "frugal/graph/op_graph.h"

namespace frugal {

// Fills op.flops, bytes_read, bytes_written, param_count and param_bytes.
// InvalidArgument when the shapes contradict the kind (a conv without a
// weight, a matmul with a scalar).
Status ComputeForwardCost(Op& op);

// Computes every forward op's cost, then gives each parameter tensor shared
// by several ops (tied embeddings) to the first op in topological order, so
// that parameters are counted once. Leaves profiled ops untouched.
Status FinalizeForwardCosts(OpGraph& graph);

// Sum of param_count over ops.
int64_t TotalParameters(const OpGraph& graph);

}  // namespace frugal

#endif  // FRUGAL_GRAPH_OP_COST_H_
