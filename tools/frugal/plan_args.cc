#include "plan_args.h"

#include <fmt/format.h>

#include "cli_util.h"

namespace frugal::cli {

void AddPlanFlags(CLI::App* cmd, PlanFlags* f) {
  cmd->add_option("--tp", f->tp, "Tensor-parallel GPUs (Megatron-style, inside one instance)")
      ->capture_default_str()
      ->check(IntIn(1, 1024));
  cmd->add_option("--pp", f->pp, "Pipeline stages (1F1B schedule)")
      ->capture_default_str()
      ->check(IntIn(1, 1024));
  cmd->add_option("--dp", f->dp, "Data-parallel replicas (default: the GPUs left after TP x PP)")
      ->check(IntIn(1, 65536));
  cmd->add_option("--microbatches", f->microbatches,
                  "Micro-batches the batch is split into (pipeline; gradient accumulation "
                  "without one)")
      ->capture_default_str()
      ->check(IntIn(1, 65536));
  cmd->add_option("--grad-accum", f->grad_accum,
                  "Forward/backward passes of --batch per optimizer step")
      ->capture_default_str()
      ->check(IntIn(1, 65536));
  auto* zero = cmd->add_option("--zero", f->zero, "ZeRO stage: 0, 1, 2 or 3")
                   ->capture_default_str()
                   ->check(IntIn(0, 3));
  cmd->add_flag("--fsdp", f->fsdp, "Fully sharded data parallel (the same as --zero 3)")
      ->excludes(zero);
  cmd->add_option("--checkpointing", f->checkpointing,
                  "Activation checkpointing: none, selective (attention scores) or full")
      ->capture_default_str();
}

Result<ParallelPlan> ResolvePlan(const PlanFlags& f, int gpus, bool training, int64_t batch) {
  ParallelPlan p;
  p.tp = f.tp;
  p.pp = f.pp;
  p.microbatches = f.microbatches;
  p.grad_accum = f.grad_accum;
  p.zero = f.fsdp ? 3 : f.zero;
  if (!ParseCheckpointing(f.checkpointing, &p.checkpointing)) {
    return InvalidArgument(fmt::format(
        "--checkpointing: unknown value '{}' (expected none, selective, full)", f.checkpointing));
  }
  const int tp_pp = p.tp * p.pp;
  if (f.dp > 0) {
    p.dp = f.dp;
    if (gpus > 0 && gpus != tp_pp * p.dp) {
      return InvalidArgument(fmt::format("--gpus {} is not --tp {} x --pp {} x --dp {} = {}",
                                         gpus, p.tp, p.pp, p.dp, tp_pp * p.dp));
    }
  } else if (gpus > 0) {
    if (gpus % tp_pp != 0) {
      return InvalidArgument(fmt::format("--tp {} x --pp {} = {} does not divide the {} GPUs",
                                         p.tp, p.pp, tp_pp, gpus));
    }
    p.dp = gpus / tp_pp;
  }
  if (batch > 0 && batch % p.microbatches != 0) {
    return InvalidArgument(fmt::format("--microbatches {} does not divide --batch {}",
                                       p.microbatches, batch));
  }
  if (!training) {
    if (p.checkpointing != Checkpointing::kNone) {
      return InvalidArgument("--checkpointing applies to training (it recomputes activations "
                             "in the backward pass)");
    }
    if (p.grad_accum > 1) return InvalidArgument("--grad-accum applies to training");
    if (p.zero > 0) return InvalidArgument("--zero / --fsdp apply to training");
  }
  if (p.zero > 0 && p.dp < 2) {
    return InvalidArgument(fmt::format(
        "--{} shards state across data-parallel replicas; with --dp {} there is none to "
        "shard across", f.fsdp ? "fsdp" : fmt::format("zero {}", p.zero), p.dp));
  }
  return p;
}

}  // namespace frugal::cli
