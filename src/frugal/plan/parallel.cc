#include "frugal/plan/parallel.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "frugal/base/enum_names.h"
#include "frugal/plan/layers.h"

namespace frugal {
namespace {

constexpr const char* kCheckpointingNames[] = {"none", "selective", "full"};

constexpr int64_t kDdpBucketBytes = 25 * 1024 * 1024;

// Attention-score ops: outputs [..., S, S'] whose rows are the sequence —
// what Megatron's selective recomputation drops (QK^T, scale, mask,
// softmax, dropout).
bool IsScoreOp(const Op& op, int64_t seq) {
  if (op.phase != Phase::kForward || seq <= 1 || op.outputs.empty()) return false;
  const auto& s = op.outputs[0].shape;
  return s.size() >= 3 && s[s.size() - 2] == seq && s.back() >= seq &&
         op.kind != OpKind::kMatMul && op.kind != OpKind::kConv;
}

// Contiguous blocks into `parts` stages minimising the largest stage cost.
std::vector<int> BalanceStages(const std::vector<double>& cost, int parts) {
  const int n = static_cast<int>(cost.size());
  std::vector<double> prefix(n + 1, 0);
  for (int i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + cost[i];
  const double inf = std::numeric_limits<double>::infinity();
  // best[k][j]: k stages over blocks [0, j); cut[k][j]: start of the last.
  std::vector<std::vector<double>> best(parts + 1, std::vector<double>(n + 1, inf));
  std::vector<std::vector<int>> cut(parts + 1, std::vector<int>(n + 1, 0));
  best[0][0] = 0;
  for (int k = 1; k <= parts; ++k) {
    for (int j = k; j <= n; ++j) {
      for (int i = k - 1; i < j; ++i) {
        const double v = std::max(best[k - 1][i], prefix[j] - prefix[i]);
        if (v < best[k][j]) {
          best[k][j] = v;
          cut[k][j] = i;
        }
      }
    }
  }
  std::vector<int> stage(n, 0);
  for (int k = parts, j = n; k >= 1; --k) {
    const int i = cut[k][j];
    for (int b = i; b < j; ++b) stage[b] = k - 1;
    j = i;
  }
  return stage;
}

CommLinks IntraOnly(const CommLinks& l, double gbps) {
  CommLinks r = l;
  r.intra_gbps = gbps;
  r.inter_gbps = 0;
  return r;
}

int64_t Shard(int64_t bytes, int ways) { return (bytes + ways - 1) / ways; }

}  // namespace

const char* CheckpointingName(Checkpointing c) { return EnumName(kCheckpointingNames, c); }
bool ParseCheckpointing(std::string_view name, Checkpointing* out) {
  return ParseEnumName(name, kCheckpointingNames, out);
}

std::string DescribePlan(const ParallelPlan& p) {
  std::string s = fmt::format("TP {} x PP {} x DP {}", p.tp, p.pp, p.dp);
  if (p.zero > 0) s += fmt::format(", ZeRO-{}", p.zero);
  s += p.checkpointing == Checkpointing::kNone
           ? ", no checkpointing"
           : fmt::format(", {} checkpointing", CheckpointingName(p.checkpointing));
  if (p.microbatches > 1) s += fmt::format(", {} micro-batches", p.microbatches);
  if (p.grad_accum > 1) s += fmt::format(", {} accumulation steps", p.grad_accum);
  return s;
}

Result<StepProfile> ProfileStep(const PlanInputs& in) {
  if (in.step == nullptr || in.op_times == nullptr || in.memory == nullptr) {
    return Internal("plan inputs missing");
  }
  const OpGraph& g = *in.step;
  const auto& times = *in.op_times;
  if (times.size() != g.ops.size() || in.memory->op_bytes.size() != g.ops.size()) {
    return Internal("op times or memory do not match the graph");
  }
  if (in.micro_batch < 1) return InvalidArgument("micro-batch must be >= 1");
  BlockMap own_blocks;
  if (in.blocks == nullptr) {
    FRUGAL_ASSIGN_OR_RETURN(own_blocks, MapBlocks(g));
  }
  const BlockMap& blocks = in.blocks != nullptr ? *in.blocks : own_blocks;
  if (blocks.block_of_op.size() != g.ops.size()) return Internal("block map does not match");
  StepProfile pr;
  pr.name = g.name;
  pr.training = g.IsTraining();
  pr.num_blocks = blocks.num_blocks();
  pr.micro_batch = in.micro_batch;
  pr.seq_len = in.seq_len;
  pr.model_forward_flops = in.model_forward_flops;
  const int nb = pr.num_blocks;
  pr.segments.assign(nb + 2, {});
  auto seg_of = [&](int op) {
    const int b = blocks.block_of_op[op];
    return b == kBeforeBlocks ? 0 : b == kAfterBlocks ? nb + 1 : b + 1;
  };
  // Which forward ops have a weight-gradient op (their gradients sit there).
  std::vector<bool> has_wgrad(g.ops.size(), false);
  for (const Op& op : g.ops) {
    if (op.grad == GradRole::kWeight && op.forward_op >= 0) has_wgrad[op.forward_op] = true;
  }
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    StepProfile::Segment& sg = pr.segments[seg_of(static_cast<int>(i))];
    ++sg.ops;
    const double t = times[i].time_ms;
    const double bytes = static_cast<double>(in.memory->op_bytes[i]);
    switch (op.phase) {
      case Phase::kForward: {
        const double p = static_cast<double>(op.param_bytes);
        const double a = std::max(0.0, bytes - p - (pr.training && !has_wgrad[i] ? p : 0));
        sg.forward_ms += t;
        sg.params += p;
        sg.activations += a;
        pr.total_params += p;
        if (IsScoreOp(op, g.seq_len)) {
          sg.score_forward_ms += t;
          sg.score_activations += a;
        }
        break;
      }
      case Phase::kBackward: sg.backward_ms += t; break;
      case Phase::kOptimizer:
        sg.optimizer_ms += t;
        sg.optimizer_bytes += bytes;
        break;
    }
  }
  for (const auto& ar : in.tp_all_reduces) {
    if (ar.op < 0 || ar.op >= g.num_ops()) return Internal("all-reduce op out of range");
    StepProfile::Segment& sg = pr.segments[seg_of(ar.op)];
    sg.tp_all_reduce_bytes += static_cast<double>(ar.bytes);
    ++sg.tp_all_reduces;
  }
  // Block inputs and the bytes crossing each cut between segments.
  std::vector<double> diff(nb + 3, 0);
  std::set<std::pair<int, std::string>> seen;
  for (const Edge& e : g.edges) {
    if (g.ops[e.src].phase != Phase::kForward || g.ops[e.dst].phase != Phase::kForward) continue;
    const int a = seg_of(e.src), b = seg_of(e.dst);
    if (a == b) continue;
    const double bytes = static_cast<double>(e.bytes);
    if (a < b) {
      diff[a] += bytes;
      diff[b] -= bytes;
    }
    if (b >= 1 && b <= nb &&
        seen.emplace(b, e.tensor.empty() ? std::to_string(e.src) : e.tensor).second) {
      pr.segments[b].input_bytes += bytes;
    }
  }
  pr.cut_bytes.assign(nb + 2, 0);
  double run = 0;
  for (int k = 0; k <= nb + 1; ++k) {
    run += diff[k];
    pr.cut_bytes[k] = run;
  }
  // Gradient readiness on one stream, as IterationFromOpTimes walks it.
  std::vector<int> own_order;
  if (in.order == nullptr) {
    FRUGAL_ASSIGN_OR_RETURN(own_order, g.TopologicalOrder());
  }
  const std::vector<int>& order = in.order != nullptr ? *in.order : own_order;
  double clock = 0;
  for (int i : order) {
    const Op& op = g.ops[i];
    if (op.phase == Phase::kOptimizer) continue;
    clock += times[i].time_ms;
    if (op.phase != Phase::kBackward) continue;
    pr.backward_end_ms = clock;
    if (op.grad != GradRole::kWeight) continue;
    double bytes = 0;
    for (const auto& out : op.outputs) bytes += static_cast<double>(out.Bytes());
    pr.grad_ready.emplace_back(clock, bytes);
  }
  if (pr.training && pr.grad_ready.empty()) {
    // Profiled graphs: every parameter's gradient is reduced at the end.
    pr.grad_ready.emplace_back(pr.backward_end_ms, pr.total_params);
  }
  return pr;
}

Result<PlanPrediction> PricePlan(const PlanInputs& in, const GpuSpec& gpu,
                                 const ParallelPlan& plan, const PlanOptions& options) {
  FRUGAL_ASSIGN_OR_RETURN(StepProfile pr, ProfileStep(in));
  return PricePlan(pr, gpu, plan, options);
}

Result<PlanPrediction> PricePlan(const StepProfile& pr, const GpuSpec& gpu,
                                 const ParallelPlan& plan, const PlanOptions& options) {
  if (plan.tp < 1 || plan.pp < 1 || plan.dp < 1 || plan.microbatches < 1 ||
      plan.grad_accum < 1) {
    return InvalidArgument("parallel degrees and micro-batch counts must be >= 1");
  }
  if (plan.zero < 0 || plan.zero > 3) return InvalidArgument("ZeRO stage must be 0..3");
  const int per_node = options.gpus_per_instance > 0 ? options.gpus_per_instance : plan.gpus();
  if (plan.tp > per_node) {
    return InvalidArgument(fmt::format(
        "tensor parallelism over {} GPUs needs them in one instance of {} GPUs", plan.tp,
        per_node));
  }
  const bool training = pr.training;
  const int nb = pr.num_blocks;
  if (plan.pp > 1 && plan.pp > nb) {
    return InvalidArgument(fmt::format("{} pipeline stages need at least {} layers; '{}' has {}",
                                       plan.pp, plan.pp, pr.name, nb));
  }
  const auto& seg = pr.segments;
  // Checkpointing that recomputes nothing is an error, not a plan priced
  // as if it had: full checkpoints the blocks whose kept inputs are smaller
  // than what they save (a block as large as its input saves nothing);
  // selective needs attention scores.
  auto saves = [&](int k) { return seg[k].input_bytes < seg[k].activations; };
  if (training && plan.checkpointing == Checkpointing::kFull && nb == 0) {
    return InvalidArgument(fmt::format(
        "full checkpointing recomputes repeated blocks (layers); '{}' has none", pr.name));
  }
  if (training && plan.checkpointing == Checkpointing::kSelective) {
    bool any = false;
    for (int k = 1; k <= nb; ++k) any = any || seg[k].score_activations > 0;
    if (!any) {
      return InvalidArgument(fmt::format(
          "selective checkpointing recomputes attention scores; '{}' has none in its blocks",
          pr.name));
    }
  }
  // Stages: contiguous blocks; segment 0 joins the first, B+1 the last.
  std::vector<double> block_cost(std::max(nb, 1), 0);
  for (int b = 0; b < nb; ++b) block_cost[b] = seg[b + 1].forward_ms + seg[b + 1].backward_ms;
  const std::vector<int> stage_of_block = BalanceStages(block_cost, plan.pp);
  std::vector<int> first_seg(plan.pp, 0), last_seg(plan.pp, nb + 1);
  for (int s = 0; s < plan.pp; ++s) {
    int lo = nb + 1, hi = 0;
    for (int b = 0; b < nb; ++b) {
      if (stage_of_block[b] == s) {
        lo = std::min(lo, b + 1);
        hi = std::max(hi, b + 1);
      }
    }
    first_seg[s] = s == 0 ? 0 : lo;
    last_seg[s] = s == plan.pp - 1 ? nb + 1 : hi;
  }

  PlanPrediction r;
  r.plan = plan;
  r.training = training;
  r.stages.assign(plan.pp, StageCost{});
  r.links = options.links.description;

  // Links: TP innermost inside an instance, then DP, then PP.
  const CommLinks tp_links = IntraOnly(options.links, options.links.intra_gbps);
  const int dp_in_node = std::max(1, std::min(plan.dp, per_node / plan.tp));
  const bool dp_spans = plan.dp > dp_in_node && options.links.inter_gbps > 0;
  const int rings_per_node = std::max(1, per_node / dp_in_node);
  const CommLinks dp_links = IntraOnly(
      options.links, dp_spans ? std::min(options.links.intra_gbps,
                                         options.links.inter_gbps / rings_per_node)
                              : options.links.intra_gbps);
  const bool pp_spans = plan.tp * plan.dp >= per_node && plan.pp > 1 &&
                        options.links.inter_gbps > 0 && plan.gpus() > per_node;
  const double p2p_gbps = pp_spans ? options.links.inter_gbps / std::min(per_node, plan.tp * plan.dp)
                                   : options.links.intra_gbps;
  const double tp_factor = plan.tp > 1 ? 2.0 * (plan.tp - 1) / plan.tp : 0;

  const int n = plan.microbatches * plan.grad_accum;
  const bool full = training && plan.checkpointing == Checkpointing::kFull;
  const bool selective = training && plan.checkpointing == Checkpointing::kSelective;
  double max_c = 0, sum_c = 0;
  bool full_saves = false;  // on some stage, full checkpointing holds less
  std::vector<double> params(plan.pp, 0);
  for (int s = 0; s < plan.pp; ++s) {
    StageCost& st = r.stages[s];
    st.first_block = first_seg[s] == 0 ? 0 : first_seg[s] - 1;
    st.last_block = std::min(last_seg[s], nb) - 1;
    double act = 0, opt = 0, peak_block = 0, act_kept_all = 0;
    int64_t largest_block_params = 0;
    for (int k = first_seg[s]; k <= last_seg[s]; ++k) {
      const StepProfile::Segment& sg = seg[k];
      const bool block = k >= 1 && k <= nb;
      st.ops += sg.ops;
      st.forward_ms += sg.forward_ms;
      st.backward_ms += sg.backward_ms;
      st.optimizer_ms += sg.optimizer_ms;
      params[s] += sg.params;
      opt += sg.optimizer_bytes;
      act += sg.activations;
      act_kept_all += sg.activations;
      if (block) {
        largest_block_params = std::max(largest_block_params, static_cast<int64_t>(sg.params));
        if (full && saves(k)) {
          st.recompute_ms += sg.forward_ms;
          act += sg.input_bytes - sg.activations;
          peak_block = std::max(peak_block, sg.activations);
        } else if (selective) {
          st.recompute_ms += sg.score_forward_ms;
          act -= sg.score_activations;
          peak_block = std::max(peak_block, sg.score_activations);
        }
      }
      if (sg.tp_all_reduces > 0 && plan.tp > 1) {
        const double ring = 1e3 * tp_factor * sg.tp_all_reduce_bytes / (tp_links.intra_gbps * 1e9) +
                            1e-3 * sg.tp_all_reduces * 2.0 * (plan.tp - 1) *
                                tp_links.step_latency_us;
        st.tp_comm_ms += ring * ((training ? 2 : 1) + (full && block && saves(k) ? 1 : 0));
      }
    }
    if (s + 1 < plan.pp) {
      // Each TP rank sends its 1/TP slice (Megatron's scatter-gather).
      const double bytes = pr.cut_bytes[last_seg[s]] / plan.tp;
      const double one = 1e3 * bytes / (p2p_gbps * 1e9) + 1e-3 * options.links.step_latency_us;
      st.p2p_ms = (training ? 2 : 1) * one;
    }
    // 1F1B: stage s holds min(PP - s, n) micro-batches' activations.
    const int in_flight = training ? std::min(plan.pp - s, n) : 1;
    st.memory.activations = static_cast<int64_t>(std::max(0.0, act) * in_flight + peak_block);
    full_saves = full_saves || std::max(0.0, act) * in_flight + peak_block < act_kept_all * in_flight;
    const int64_t p = static_cast<int64_t>(params[s]);
    st.memory.params = plan.zero >= 3 ? Shard(p, plan.dp) : p;
    st.memory.grads = !training ? 0 : plan.zero >= 2 ? Shard(p, plan.dp) : p;
    st.memory.optimizer =
        plan.zero >= 1 ? Shard(static_cast<int64_t>(opt), plan.dp) : static_cast<int64_t>(opt);
    if (training && plan.dp > 1) {
      // ZeRO-3: the gathered block and the prefetched next; else DDP buckets.
      st.memory.workspace = plan.zero >= 3 ? 2 * largest_block_params
                                           : 2 * std::min<int64_t>(kDdpBucketBytes, p);
    }
    if (plan.zero >= 1) st.optimizer_ms /= plan.dp;
    if (!training) st.backward_ms = st.optimizer_ms = 0;
    const double c = st.MicroBatchMs();
    max_c = std::max(max_c, c);
    sum_c += c;
  }
  if (full && !full_saves) {
    // One checkpointed block recomputes as much as it dropped, plus its kept input.
    return InvalidArgument(fmt::format(
        "full checkpointing saves no memory on '{}': its blocks keep inputs about as large as what "
        "recomputing them drops",
        pr.name));
  }
  const double pipeline_ms = sum_c + (n - 1) * max_c;
  r.compute_ms = n * max_c;
  r.bubble_ms = pipeline_ms - r.compute_ms;
  for (const StageCost& st : r.stages) {
    r.tp_comm_ms = std::max(r.tp_comm_ms, st.tp_comm_ms * n);
    r.optimizer_ms = std::max(r.optimizer_ms, st.optimizer_ms);
  }

  // Data-parallel gradient traffic.
  if (training && plan.dp > 1) {
    for (int s = 0; s < plan.pp; ++s) {
      StageCost& st = r.stages[s];
      double exposed = 0;
      if (plan.zero >= 3) {
        // The first unit's all-gather has no compute before it to hide
        // behind, and its reduce-scatter (its gradients come last) none
        // after it: both are exposed in every micro-batch; the rest overlaps.
        // A unit is at least a DDP bucket's worth (FSDP's wrap policies do
        // not shard per tiny layer), so this tail is never below DDP's.
        const double gather = RingAllReduceMs(params[s], plan.dp, dp_links) / 2;
        const double unit = std::max(pr.segments[first_seg[s]].params,
                                     std::min(params[s], static_cast<double>(kDdpBucketBytes)));
        const double edge = RingAllReduceMs(unit, plan.dp, dp_links);
        exposed = n * (edge + std::max(0.0, gather - st.forward_ms) +
                       std::max(0.0, 2 * gather - st.backward_ms - st.recompute_ms));
        st.dp_comm_ms = n * 3 * gather;
      } else if (plan.pp == 1) {
        // DDP buckets in backward order, on one communication stream, during
        // the last micro-batch's backward pass (iteration.h).
        double free_ms = 0, bucket = 0, total = 0;
        auto flush = [&](double ready) {
          if (bucket <= 0) return;
          const double t = RingAllReduceMs(bucket, plan.dp, dp_links);
          free_ms = std::max(free_ms, ready) + t;
          total += t;
          bucket = 0;
        };
        for (const auto& [ready, bytes] : pr.grad_ready) {
          bucket += bytes;
          if (bucket >= static_cast<double>(kDdpBucketBytes)) flush(ready);
        }
        flush(pr.backward_end_ms);
        st.dp_comm_ms = total;
        exposed = std::max(0.0, free_ms - pr.backward_end_ms);
      } else {
        st.dp_comm_ms = RingAllReduceMs(params[s], plan.dp, dp_links);
        exposed = std::max(0.0, st.dp_comm_ms - st.backward_ms);
      }
      r.dp_comm_total_ms = std::max(r.dp_comm_total_ms, st.dp_comm_ms);
      r.dp_comm_ms = std::max(r.dp_comm_ms, exposed);
    }
  }
  r.step_ms = pipeline_ms + r.dp_comm_ms + r.optimizer_ms;

  // Memory: the fullest stage.
  for (const StageCost& st : r.stages) {
    if (st.memory.total() > r.memory.total()) r.memory = st.memory;
  }
  r.gpu_memory_bytes = gpu.mem_gib * 1024.0 * 1024 * 1024;
  r.reserved_bytes = options.reserved_bytes;
  r.fits = static_cast<double>(r.memory.total()) + options.reserved_bytes <= r.gpu_memory_bytes;

  r.samples_per_step = static_cast<double>(pr.micro_batch) * n * plan.dp;
  if (r.step_ms > 0) {
    r.samples_per_s = r.samples_per_step / (r.step_ms / 1e3);
    r.tokens_per_s = pr.seq_len > 0 ? r.samples_per_s * static_cast<double>(pr.seq_len) : 0;
    if (options.peak_tflops > 0) {
      const double flops = (training ? 3.0 : 1.0) * pr.model_forward_flops * n * plan.dp;
      r.mfu = flops / (r.step_ms / 1e3 * plan.gpus() * options.peak_tflops * 1e12);
    }
  }
  return r;
}

}  // namespace frugal
