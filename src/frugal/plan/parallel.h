// One training (or inference) step of a model split over TP x PP x DP GPUs,
// with ZeRO sharding, activation checkpointing and gradient accumulation:
// time per stage, the pipeline schedule, every communication, memory per
// GPU and MFU. Inputs are one GPU's step graph for one micro-batch (after
// tensor parallelism: tensor_parallel.h) and its per-op times (PredictOps).
//
// Model (docs/predict.md, "Parallel training plans"):
//  - Pipeline: the model's blocks (layers.h) are cut into PP contiguous
//    stages balancing forward + backward time; ops before the first block go
//    to stage 0, ops after the last to the last stage. 1F1B schedule over n =
//    microbatches x grad_accum micro-batches: step = sum_s c_s + (n - 1) max_s
//    c_s, c_s = a stage's forward + backward + recompute + blocking TP
//    all-reduces + its point-to-point sends, one micro-batch. Stage s holds
//    the activations of min(PP - s, n) micro-batches.
//  - TP all-reduces block: each forward all-reduce (tensor_parallel.h) is
//    paid once in forward and once in backward (and again in the recompute
//    of a fully checkpointed block), as a ring over the TP group.
//  - DP: the gradients of a stage are ring all-reduced over DP replicas once
//    per optimizer step, overlapped with the last micro-batch's backward
//    (with PP = 1 exactly as `predict` buckets them: iteration.h).
//  - ZeRO 1 / 2 / 3 divide optimizer state / + gradients / + parameters by
//    DP. Stages 1 and 2 move the all-reduce's bytes (reduce-scatter +
//    all-gather); stage 3 (FSDP) all-gathers the parameters before each
//    micro-batch's forward and backward and reduce-scatters the gradients
//    after each backward, each overlapped with that pass but for the first
//    unit's gather and reduce-scatter, which nothing hides.
//  - Checkpointing: full keeps only each block's input and recomputes the
//    block's forward in backward; selective (Megatron) drops and recomputes
//    the attention-score ops (outputs [.., S, S]).
// Stateless; thread-safe.
#ifndef FRUGAL_PLAN_PARALLEL_H_
#define FRUGAL_PLAN_PARALLEL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/graph/op_graph.h"
#include "frugal/graph/training.h"
#include "frugal/hw/catalog.h"
#include "frugal/perf/iteration.h"
#include "frugal/perf/op_time_model.h"
#include "frugal/plan/layers.h"
#include "frugal/plan/tensor_parallel.h"

namespace frugal {

enum class Checkpointing { kNone, kSelective, kFull };
const char* CheckpointingName(Checkpointing c);                  // none, selective, full
bool ParseCheckpointing(std::string_view name, Checkpointing* out);

struct ParallelPlan {
  int tp = 1;  // tensor-parallel GPUs (inside one instance)
  int pp = 1;  // pipeline stages
  int dp = 1;  // data-parallel replicas
  int microbatches = 1;  // micro-batches per optimizer step (pipeline)
  int grad_accum = 1;    // steps of `microbatches` micro-batches per update
  int zero = 0;          // ZeRO stage 0..3 (3 = FSDP)
  Checkpointing checkpointing = Checkpointing::kNone;
  int gpus() const { return tp * pp * dp; }
};

// "TP 2 x PP 4 x DP 8, ZeRO-1, selective checkpointing, 8 micro-batches".
std::string DescribePlan(const ParallelPlan& plan);

struct PlanInputs {
  const OpGraph* step = nullptr;  // one GPU's step graph, one micro-batch
  const std::vector<OpTimePrediction>* op_times = nullptr;  // of *step
  const StepMemory* memory = nullptr;  // EstimateStepMemory(*step)
  std::vector<TensorParallelGraph::AllReduce> tp_all_reduces;  // forward
  int64_t micro_batch = 1;  // samples per micro-batch. REQUIRES: >= 1
  int64_t seq_len = 0;      // tokens per sample (0: not a sequence model)
  // FLOPs of one micro-batch's forward pass of the whole (unsplit) model.
  double model_forward_flops = 0;
  // MapBlocks(*step) and step->TopologicalOrder(), when the caller prices
  // the same step on many GPUs; computed here when null.
  const BlockMap* blocks = nullptr;
  const std::vector<int>* order = nullptr;
};

struct PlanOptions {
  CommLinks links;          // intra-instance and network links (LinksFor)
  int gpus_per_instance = 0;  // 0: every GPU in one instance
  double peak_tflops = 0;   // per GPU, at the plan's precision (for MFU)
  double reserved_bytes = 1.0 * 1024 * 1024 * 1024;  // CUDA context + allocator
};

struct GpuMemory {
  int64_t params = 0;
  int64_t grads = 0;
  int64_t optimizer = 0;
  int64_t activations = 0;
  int64_t workspace = 0;  // ZeRO-3 gather buffers, DDP buckets
  int64_t total() const { return params + grads + optimizer + activations + workspace; }
};

struct StageCost {
  int first_block = 0, last_block = -1;  // blocks of the stage (inclusive)
  int ops = 0;
  double forward_ms = 0, backward_ms = 0, recompute_ms = 0, tp_comm_ms = 0;
  double p2p_ms = 0;        // sends per micro-batch (forward + backward)
  double optimizer_ms = 0;  // per update, after ZeRO sharding
  double dp_comm_ms = 0;    // gradient all-reduce (or ZeRO-3 traffic) per update
  GpuMemory memory;
  double MicroBatchMs() const {
    return forward_ms + backward_ms + recompute_ms + tp_comm_ms + p2p_ms;
  }
};

struct PlanPrediction {
  ParallelPlan plan;
  bool training = true;
  std::vector<StageCost> stages;
  double step_ms = 0;        // one optimizer step (one forward for inference)
  double compute_ms = 0;     // n x the slowest stage's micro-batch time
  double bubble_ms = 0;      // pipeline fill and drain
  double tp_comm_ms = 0;     // blocking, per step, slowest stage
  double dp_comm_ms = 0;     // exposed, per step
  double dp_comm_total_ms = 0;
  double optimizer_ms = 0;
  GpuMemory memory;          // of the stage with the most
  double gpu_memory_bytes = 0;
  double reserved_bytes = 0;
  bool fits = false;
  double samples_per_step = 0;
  double samples_per_s = 0;
  double tokens_per_s = 0;   // 0 without a sequence length
  double mfu = 0;            // model FLOPs / (step time x GPUs x peak)
  std::string links;
};

// A step reduced to what plans need, per segment: segment 0 holds the ops
// before the first block, 1..B the blocks, B+1 the ops after the last. One
// profile prices any plan in O(B^2 x PP) (the advisor prices thousands).
struct StepProfile {
  struct Segment {
    int ops = 0;
    double forward_ms = 0, backward_ms = 0, optimizer_ms = 0;
    double score_forward_ms = 0;  // attention-score ops (selective recompute)
    double params = 0, activations = 0, optimizer_bytes = 0;  // bytes
    double score_activations = 0;
    double input_bytes = 0;  // activations entering the block (full checkpointing keeps)
    double tp_all_reduce_bytes = 0;
    int tp_all_reduces = 0;
  };
  std::string name;
  bool training = true;
  int num_blocks = 0;
  std::vector<Segment> segments;  // num_blocks + 2
  // cut_bytes[k]: forward activation bytes from segments <= k to > k.
  std::vector<double> cut_bytes;
  // For PP = 1: when each weight gradient is ready (ms into the step, on one
  // stream in topological order) and its bytes; the end of the backward pass.
  std::vector<std::pair<double, double>> grad_ready;
  double backward_end_ms = 0;
  double total_params = 0;
  int64_t micro_batch = 1;
  int64_t seq_len = 0;
  double model_forward_flops = 0;
};

Result<StepProfile> ProfileStep(const PlanInputs& in);

// InvalidArgument for a plan the model cannot take (PP beyond its blocks,
// degrees < 1, ZeRO outside 0..3, TP larger than an instance).
Result<PlanPrediction> PricePlan(const StepProfile& profile, const GpuSpec& gpu,
                                 const ParallelPlan& plan, const PlanOptions& options);
// ProfileStep, then PricePlan.
Result<PlanPrediction> PricePlan(const PlanInputs& in, const GpuSpec& gpu,
                                 const ParallelPlan& plan, const PlanOptions& options);

}  // namespace frugal

#endif  // FRUGAL_PLAN_PARALLEL_H_
