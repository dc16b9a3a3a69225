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

// Bytes `op` moves for tensor `t`: t.Bytes(), except that a float32
// parameter of an op whose math is reduced (attrs.strings["math"] "fp16" /
// "bf16", set by plan/precision.h under autocast) is read as the 2-byte
// copy autocast makes of it.
int64_t TensorBytesMoved(const Op& op, const TensorInfo& t);

// Sum of param_count over ops.
int64_t TotalParameters(const OpGraph& graph);

// The elements a normalisation's or loss's per-element FLOP count applies
// to: the input's, or for NegativeLogLikelihoodLoss (input [N, C, d...]) the
// rows N * d..., one picked class each.
double CountedInputElements(const Op& op);

// The bias adds included in a compute op's forward FLOPs (0 for other
// kinds), so that backward rules can price the product alone.
double BiasAddFlops(const Op& op);

// Dims of an LSTM / GRU / RNN op (ONNX inputs X, W [dirs, gates*H, in],
// R [dirs, gates*H, H], then optional B [dirs, 2*gates*H], sequence_lens,
// initial_h, initial_c, P [dirs, 3*H]; attributes layout, hidden_size).
struct RnnShape {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0;
  int64_t gates = 0;  // LSTM 4, GRU 3, RNN 1
  int64_t dirs = 0;   // 2 when bidirectional
  bool bias = false;
  bool peepholes = false;
  // Elementwise FLOPs per hidden unit and time step, forward and backward.
  double cell_flops = 0, cell_backward_flops = 0;

  // Steps times batch times directions: how often the cell runs.
  double Cells() const {
    return static_cast<double>(seq) * static_cast<double>(batch) *
           static_cast<double>(dirs);
  }
};
// InvalidArgument (naming the op) when the shapes are not an RNN's.
Result<RnnShape> RnnShapeOf(const Op& op);

// Time steps an op must run one after another: a recurrent op's forward and
// the backward op that carries its recurrence (attribute
// kSequentialStepsAttr, set by the backward builder) run a step's kernels
// once per step, each waiting for the last. 0 for every other op.
inline constexpr char kSequentialStepsAttr[] = "sequential_steps";
int64_t SequentialSteps(const Op& op);

}  // namespace frugal

#endif  // FRUGAL_GRAPH_OP_COST_H_
