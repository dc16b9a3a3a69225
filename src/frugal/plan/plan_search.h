// The advisor's search over parallel training plans: for every catalog
// instance type and count, every precision the user allows, TP (inside an
// instance) x PP x DP splits, micro-batch counts, ZeRO stages and
// activation checkpointing, it prices the plan (parallel.h) and keeps, per
// instance type, count and precision, the fastest plan that fits. Then, as
// the plain advisor (perf/advisor.h), it marks the Pareto frontier of
// (hours, cost) and recommends the cheapest plan meeting a deadline or the
// fastest within a budget.
//
// Search space, documented in docs/predict.md: TP in {1, 2, 4, 8} up to
// the instance's GPUs; PP a power of two up to the model's blocks; DP the
// GPUs left. With a global batch the micro-batch count follows from it
// (global / (micro-batch x DP), an integer or the split is skipped);
// without one, PP = 1 runs one micro-batch and PP > 1 runs 4 x PP. For
// each split, ZeRO stages in order and, for each, the lightest
// checkpointing that fits. Each (GPU, precision, TP) step is built and its
// ops predicted once; a plan is then priced from the step profile.
// Thread-compatible. The callbacks are called from the calling thread; op
// times are predicted on `threads` threads (the model must allow it).
#ifndef FRUGAL_PLAN_PLAN_SEARCH_H_
#define FRUGAL_PLAN_PLAN_SEARCH_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/graph/op_graph.h"
#include "frugal/graph/training.h"
#include "frugal/hw/catalog.h"
#include "frugal/perf/advisor.h"
#include "frugal/perf/op_time_model.h"
#include "frugal/plan/parallel.h"

namespace frugal {

// One GPU's training step for one precision and TP degree, one micro-batch.
struct CandidateStep {
  OpGraph step;
  StepMemory memory;
  std::vector<TensorParallelGraph::AllReduce> all_reduces;
  double model_forward_flops = 0;
  int64_t micro_batch = 1;
  int64_t seq_len = 0;
};

// Builds the step for (precision index, TP); an error (TP not dividing the
// heads) leaves that TP out with the reason in the notes.
using StepSource =
    std::function<Result<std::shared_ptr<const CandidateStep>>(size_t precision, int tp)>;

struct PrecisionChoice {
  std::string name;  // "amp-bf16"
  // OK with the GPU's peak for MFU, or why the GPU cannot run it.
  std::function<Result<double>(const GpuSpec&)> peak_tflops;
};

struct PlanSearchJob {
  double samples = 0;  // sequences (or images) to train on, all epochs
  std::optional<int64_t> global_batch;  // samples per optimizer step
};

struct PlanSearchOptions {
  AdviseOptions advise;  // providers, instance counts, deadline, budget
  std::vector<std::string> instance_types;  // only these catalog types; empty: all
  std::vector<PrecisionChoice> precisions;  // REQUIRES: non-empty
  std::vector<int> tp = {1, 2, 4, 8};
  std::vector<int> zero = {0, 1, 2, 3};
  std::vector<Checkpointing> checkpointing = {Checkpointing::kNone, Checkpointing::kSelective,
                                              Checkpointing::kFull};
  int threads = 0;  // predicting op times per GPU type; 0: every core
  // Called after each instance type with (done, total).
  std::function<void(size_t, size_t)> progress;
};

struct PlanAdvice {
  Advice advice;  // configs carry plan, precision, gpu_hours, mfu
  size_t plans_priced = 0;
  // When no plan fits anywhere: the plan needing the least memory over its
  // GPU's, and how much it needs.
  std::optional<ConfigResult> closest;
};

// InvalidArgument for a bad job; FailedPrecondition when nothing can be
// priced. A search where no plan fits returns advice with recommended -1,
// the reason saying so and `closest` set.
Result<PlanAdvice> SearchPlans(const OpTimeModel& model, const StepSource& source,
                               const Catalog& catalog, const PlanSearchJob& job,
                               const PlanSearchOptions& options);

}  // namespace frugal

#endif  // FRUGAL_PLAN_PLAN_SEARCH_H_
