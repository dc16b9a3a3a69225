// Flags of a parallel training plan (predict, advise): --tp, --pp, --dp,
// --microbatches, --grad-accum, --zero / --fsdp, --checkpointing, their
// checks, and the batch bookkeeping they imply. A flag that cannot apply
// (ZeRO without data parallelism, checkpointing for inference) is an error.
#ifndef FRUGAL_TOOLS_FRUGAL_PLAN_ARGS_H_
#define FRUGAL_TOOLS_FRUGAL_PLAN_ARGS_H_

#include <string>

#include <CLI/CLI.hpp>

#include "frugal/base/status.h"
#include "frugal/plan/parallel.h"

namespace frugal::cli {

struct PlanFlags {
  int tp = 1;
  int pp = 1;
  int dp = 0;  // 0: the GPUs left after TP x PP
  int microbatches = 1;
  int grad_accum = 1;
  int zero = 0;
  bool fsdp = false;
  std::string checkpointing = "none";
};

void AddPlanFlags(CLI::App* cmd, PlanFlags* f);

// The plan for `gpus` GPUs in all (0: not given, then TP x PP x DP, DP
// defaulting to 1) and a step of `batch` samples per data-parallel replica
// (0: the graph's own). InvalidArgument naming the flag for plans that do
// not go together.
Result<ParallelPlan> ResolvePlan(const PlanFlags& f, int gpus, bool training, int64_t batch);

}  // namespace frugal::cli

#endif  // FRUGAL_TOOLS_FRUGAL_PLAN_ARGS_H_
