// Per-kind backward rules used by training-graph derivation and memory
// estimation: which tensors an op saves for its backward pass, and the
// backward ops (with FLOPs and bytes) that compute its gradients. Formulas in
// docs/graph.md. Stateless; thread-safe.
#ifndef FRUGAL_GRAPH_BACKWARD_H_
#define FRUGAL_GRAPH_BACKWARD_H_

#include <vector>

#include "frugal/graph/op_graph.h"

namespace frugal {

// Whether a gradient can flow through `op`'s outputs: false for shape and
// constant ops, for ops whose outputs are all integer or boolean (argmax,
// comparisons, indices) and for piecewise-constant ops (floor, ceil, round,
// sign), whose gradient is zero.
bool HasGradient(const Op& op);

// Tensors autograd keeps alive from the forward pass until `op`'s backward
// runs (activations only: parameters are counted separately). Names are
// stable so that a tensor saved by two ops is counted once.
std::vector<TensorInfo> SavedForBackward(const Op& op);

// The backward ops of forward op `op`. `grad_inputs[i]` says whether
// activation input i needs a gradient; `fan_out` is how many gradients
// arrive for its output (more than one costs accumulation adds). Compute
// kinds give one data-gradient op per input needing one and a
// weight-gradient op when the op has parameters; other kinds give one op.
// Returns no op when nothing needs a gradient.
std::vector<Op> MakeBackwardOps(const Op& op, const std::vector<bool>& grad_inputs,
                                int fan_out);

}  // namespace frugal

#endif  // FRUGAL_GRAPH_BACKWARD_H_
