// Kernel fusion as torch.compile (TorchInductor) performs it, for pricing a
// compiled model: GEMMs and convolutions stay library calls, while the
// elementwise, normalisation, reduction, dropout, lookup and copy ops
// between them run as generated kernels that each read their inputs once
// and write only the tensors that leave the kernel.
//
// Grouping rule. An op's level is the largest number of non-fusable ops
// (GEMMs, convolutions, optimizer updates, unknown ops) on any path from a
// graph input to it. Two fusable ops of the same phase joined by an edge
// and at the same level share a kernel (transitively); forward and backward
// are compiled apart, as AOTAutograd does. Ops of one level have no path between them
// through a non-fusable op, so a kernel never waits on a GEMM that needs its
// own output: the fused graph stays acyclic. A residual skip connection
// spans a GEMM, so its two ends land in different kernels and the tensor
// goes through memory, as it does in compiled code.
//
// Pricing. A kernel of two or more ops moves `bytes` (external inputs read
// once, outputs consumed outside the kernel or by nobody written once) and
// is memory-bound: it costs what the op-time model predicts for an `add`
// moving the same bytes (3 elements of 4 bytes per output element). The time
// goes on the kernel's first op; the others cost 0 and say where they went.
//
// Attention. Inductor rewrites softmax(Q·Kᵀ scaled, masked) · V into one
// scaled_dot_product_attention call (its fuse_attention patterns: BERT's
// scale + additive mask, GPT-2's causal `where`, dropout or not). A forward
// kernel that holds a softmax, reads one batched matmul's output (the
// scores) and feeds only one other batched matmul (the context) is that
// pattern: its ops run inside the attention kernel, with the scores kept on
// chip, and cost 0; the two batched matmuls keep their GEMM time (the
// kernel's work). The backward is priced as eager attention.
// Stateless; thread-safe.
#ifndef FRUGAL_PERF_FUSION_H_
#define FRUGAL_PERF_FUSION_H_

#include <cstdint>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/graph/op_graph.h"
#include "frugal/hw/catalog.h"
#include "frugal/perf/op_time_model.h"

namespace frugal {

// True for views and shape ops: no kernel runs, they cost nothing.
bool LaunchesNoKernel(const Op& op);

// True for the kinds a compiler fuses (see above).
bool IsFusable(const Op& op);

struct FusedKernel {
  std::vector<int> ops;  // graph op indices, ascending; two or more
  int64_t bytes = 0;     // external reads + writes
  int64_t cols = 1;      // last dim of the largest tensor it touches
  // Runs inside a fused attention kernel between these batched matmuls
  // (-1 when not attention); then `ops` may hold a single op.
  int scores = -1;
  int context = -1;
};

// Every kernel of two or more ops and every attention kernel, ordered by
// first op.
// REQUIRES: graph is valid (acyclic).
std::vector<FusedKernel> FusedKernels(const OpGraph& graph);

// Rewrites `ops` (PredictOps of `graph` on `gpu`) for the fused program.
Status ApplyFusion(const OpTimeModel& model, const OpGraph& graph,
                   const GpuSpec& gpu, std::vector<OpTimePrediction>* ops);

}  // namespace frugal

#endif  // FRUGAL_PERF_FUSION_H_
