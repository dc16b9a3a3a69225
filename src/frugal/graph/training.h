// Training-graph derivation and training-step memory.
//
// BuildTrainingGraph turns a forward graph into the graph of one training
// step: the forward ops, a backward op per forward op whose output needs a
// gradient (Conv / MatMul / bmm get a data-gradient and a weight-gradient
// op, each with the forward FLOPs; other kinds their own backward cost), and
// one optimizer update per op that owns parameters. Only ops downstream of a
// parameter get gradients (as in autograd: no gradient for the input
// images). Edges: the forward edges; forward op -> its backward ops (saved
// tensors); backward -> backward along reversed forward edges (gradients);
// weight-gradient -> optimizer update (parameter gradients).
// Stateless; thread-safe.
#ifndef FRUGAL_GRAPH_TRAINING_H_
#define FRUGAL_GRAPH_TRAINING_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/graph/op_graph.h"

namespace frugal {

enum class Optimizer {
  kSgd,          // p -= lr * g; no state
  kSgdMomentum,  // one momentum buffer per parameter
  kAdam,         // two moments per parameter
  kNone,         // no update: forward and backward only (what timing
                 // model(x) plus loss.backward() measures; gradient
                 // accumulation micro-steps)
};
const char* OptimizerName(Optimizer o);
bool ParseOptimizer(std::string_view name, Optimizer* out);  // sgd, momentum, adam, none

struct TrainingOptions {
  Optimizer optimizer = Optimizer::kAdam;  // Default: Adam
};

// REQUIRES: forward is a validated forward-only graph. FailedPrecondition
// when it already has backward ops (profiled training graphs).
Result<OpGraph> BuildTrainingGraph(const OpGraph& forward,
                                   const TrainingOptions& options = {});

// The graph of one inference step (evaluation mode) of a forward graph:
// every dropout, and every op an importer marked training-only (attr
// "training_only" = 1: Switch's router jitter), is the identity there, so it
// is marked a view (attr "view" = 1) with no FLOPs and no bytes; the
// structure is unchanged.
OpGraph InferenceGraph(OpGraph forward);

// Memory of a graph, in bytes, for the batch size it was built with.
struct MemoryBreakdown {
  int64_t param_bytes = 0;
  int64_t buffer_bytes = 0;           // non-trainable state (BN statistics)
  int64_t grad_bytes = 0;             // one gradient per parameter
  int64_t optimizer_state_bytes = 0;  // momentum / Adam moments
  int64_t activation_bytes = 0;       // tensors saved for backward (deduplicated)
  int64_t inference_peak_activation_bytes = 0;  // live tensors, forward only
  int64_t training_bytes = 0;   // params + buffers + grads + state + activations
  int64_t inference_bytes = 0;  // params + buffers + inference peak
};

// For a forward graph. For a profiled graph (ops with measured memory) the
// training and inference totals are the sum of the measured sizes.
MemoryBreakdown EstimateMemory(const OpGraph& forward,
                               const TrainingOptions& options = {});

// The one memory model of a step, shared by `predict` (its total) and
// `place` (its per-op split), so both report the same bytes for the same
// graph, batch and mode.
struct StepMemory {
  bool training = false;  // step.IsTraining()
  MemoryBreakdown breakdown;
  int64_t total_bytes = 0;        // training_bytes or inference_bytes
  std::vector<int64_t> op_bytes;  // per op of the step; sums to total_bytes
};

// `step` is a training graph (BuildTrainingGraph, or one read from a file:
// the optimizer state is what its update ops hold) or a forward graph priced
// for inference. Per op: a forward op holds its parameters, buffers (first
// user) and, in training, the tensors it saves for backward (first saver);
// a parameter's gradient sits on the owner's weight-gradient op (else the
// owner); optimizer state on the update op. Inference activations are the
// liveness peak, split among the producers of the tensors live at the peak.
// Profiled graphs: each op's measured size (0 when not measured).
// Equal to EstimateMemory(forward, options).training_bytes for
// BuildTrainingGraph(forward, options), and to its inference_bytes for the
// forward graph.
StepMemory EstimateStepMemory(const OpGraph& step);

}  // namespace frugal

#endif  // FRUGAL_GRAPH_TRAINING_H_
