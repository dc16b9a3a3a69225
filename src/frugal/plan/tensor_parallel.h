// Megatron-style tensor parallelism: the forward graph one GPU of a group of
// T runs. Each tensor is either replicated on the T GPUs or split along one
// dimension. Rules, applied in execution order:
//  - a linear whose input is replicated is column-parallel (its output
//    features split T ways: Q / K / V, fc1, gate / up); one whose input is
//    split along its features is row-parallel (each GPU holds 1/T of the
//    reduction dimension) and its output is all-reduced over the group;
//  - the token embedding and an LM head are vocab-parallel (the table's
//    rows split, padded up to a multiple of T as Megatron pads the vocab);
//    the embedding's output is all-reduced;
//  - every other op on a split tensor runs on its slice: reshapes, transposes,
//    elementwise ops, attention's bmm and softmax keep the split dimension
//    (heads), and replicated operands broadcast against it are sliced too;
//  - a linear with fewer than 64·T outputs (routers, classifiers) stays
//    replicated.
// So a transformer layer has two all-reduces in the forward pass (after the
// attention output projection and after the MLP's down projection) and, by
// symmetry, two in the backward pass. An op that would have to reduce over a
// split dimension (a norm or softmax across it) is Unimplemented.
// Stateless; thread-safe.
#ifndef FRUGAL_PLAN_TENSOR_PARALLEL_H_
#define FRUGAL_PLAN_TENSOR_PARALLEL_H_

#include <cstdint>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/graph/op_graph.h"

namespace frugal {

// The op attribute (attrs.floats) holding the bytes all-reduced after it.
inline constexpr const char* kTpAllReduceBytesAttr = "tp_all_reduce_bytes";

struct TensorParallelGraph {
  OpGraph graph;  // one GPU's forward graph: same ops and edges, split shapes
  struct AllReduce {
    int op = -1;        // the op whose output is all-reduced (forward pass)
    int64_t bytes = 0;  // of that output, at its dtype
  };
  std::vector<AllReduce> all_reduces;  // in op order
  int column_parallel = 0;
  int row_parallel = 0;
  int vocab_parallel = 0;
  int replicated_linears = 0;
};

// REQUIRES: forward is a validated forward graph. `tp` >= 1; tp == 1 returns
// the graph unchanged. InvalidArgument when tp does not divide a split
// dimension (naming the tensor, the dimension and its size), for profiled
// graphs (no shapes to split) and for a model with no linear layer to split.
Result<TensorParallelGraph> ShardTensorParallel(const OpGraph& forward, int tp);

}  // namespace frugal

#endif  // FRUGAL_PLAN_TENSOR_PARALLEL_H_
