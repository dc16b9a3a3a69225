// Micro-batched training steps (`frugal place --microbatches M`): the step of
// one micro-batch (batch / M) repeated M times, as GPipe / PipeDream run it.
// Forward and backward ops get one replica per micro-batch (names "op
// [mb r]"), each replica's edges copied; optimizer updates stay once, fed by
// every replica's gradient. A replica sits with its original (a module's
// parameters live on one GPU), so replicas share the original's colocation
// class. Memory: what an op holds once for all micro-batches (parameters,
// buffers, gradients: `shared_mem_bytes`) is counted on replica 0 only; the
// rest (saved activations) on every replica, as GPipe keeps them (1F1B's
// lower peak is not modelled: memory is resident for the whole step).
// Stateless; thread-safe.
#ifndef FRUGAL_PLACE_MICROBATCH_H_
#define FRUGAL_PLACE_MICROBATCH_H_

#include <cstdint>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/graph/op_graph.h"
#include "frugal/place/problem.h"

namespace frugal::place {

// Per op of `step`, the bytes of its memory share held once for all
// micro-batches: a forward op's parameters and buffers, a weight-gradient
// op's gradient, an optimizer op's state. `op_bytes`: its memory share.
std::vector<int64_t> SharedMemoryBytes(const OpGraph& step, const std::vector<int64_t>& op_bytes);

// REQUIRES: one finalized with op_phase; 1 <= m <= kMaxMicrobatches;
// shared_mem_bytes.size() == one.num_ops().
inline constexpr int kMaxMicrobatches = 1024;
// `source` (optional) receives, per op of the result, the op of `one` it
// copies.
Result<PlacementProblem> ReplicateMicrobatches(const PlacementProblem& one, int m,
                                               const std::vector<int64_t>& shared_mem_bytes,
                                               std::vector<int>* source = nullptr);

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_MICROBATCH_H_
