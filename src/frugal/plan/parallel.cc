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

Result<PlanPrediction> PricePlan(const PlanInputs& in, const GpuSpec& gpu,
                                 const ParallelPlan& plan, const PlanOptions& options) {
  if (in.step == nullptr || in.op_times == nullptr || in.memory == nullptr) {
    return Internal("plan inputs missing");
  }
  const OpGraph& g = *in.step;
  const auto& times = *in.op_times;
  if (times.size() != g.ops.size() || in.memory->op_bytes.size() != g.ops.size()) {
    return Internal("op times or memory do not match the graph");
  }
  if (plan.tp < 1 || plan.pp < 1 || plan.dp < 1 || plan.microbatches < 1 ||
      plan.grad_accum < 1 || in.micro_batch < 1) {
    return InvalidArgument("parallel degrees and micro-batch counts must be >= 1");
  }
  if (plan.zero < 0 || plan.zero > 3) return InvalidArgument("ZeRO stage must be 0..3");
  const int per_node = options.gpus_per_instance > 0 ? options.gpus_per_instance : plan.gpus();
  if (plan.tp > per_node) {
    return InvalidArgument(fmt::format(
        "tensor parallelism over {} GPUs needs them in one instance of {} GPUs", plan.tp,
        per_node));
  }
  const bool training = g.IsTraining();
  FRUGAL_ASSIGN_OR_RETURN(BlockMap blocks, MapBlocks(g));
  const int nb = blocks.num_blocks();
  if (plan.pp > 1 && plan.pp > nb) {
    return InvalidArgument(fmt::format("{} pipeline stages need at least {} layers; '{}' has {}",
                                       plan.pp, plan.pp, g.name, nb));
  }

  // Stage of every op.
  std::vector<double> block_cost(std::max(nb, 1), 0);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const int b = blocks.block_of_op[i];
    if (b >= 0 && g.ops[i].phase != Phase::kOptimizer) block_cost[b] += times[i].time_ms;
  }
  std::vector<int> stage_of_block = BalanceStages(block_cost, plan.pp);
  auto stage_of = [&](int op) {
    const int b = blocks.block_of_op[op];
    if (b == kBeforeBlocks || nb == 0) return 0;
    if (b == kAfterBlocks) return plan.pp - 1;
    return stage_of_block[b];
  };

  PlanPrediction r;
  r.plan = plan;
  r.training = training;
  r.stages.assign(plan.pp, StageCost{});
  for (int s = 0; s < plan.pp; ++s) {
    r.stages[s].first_block = nb;
    r.stages[s].last_block = -1;
  }
  for (int b = 0; b < nb; ++b) {
    StageCost& st = r.stages[stage_of_block[b]];
    st.first_block = std::min(st.first_block, b);
    st.last_block = std::max(st.last_block, b);
  }

  // Which forward ops have a weight-gradient op (their gradients sit there).
  std::vector<bool> has_wgrad(g.ops.size(), false);
  for (const Op& op : g.ops) {
    if (op.grad == GradRole::kWeight && op.forward_op >= 0) has_wgrad[op.forward_op] = true;
  }

  const int64_t seq = g.seq_len;
  std::vector<int64_t> params(plan.pp, 0), act(plan.pp, 0), opt(plan.pp, 0);
  std::vector<double> block_act(std::max(nb, 1), 0), block_score_act(std::max(nb, 1), 0);
  std::vector<double> block_fwd(std::max(nb, 1), 0), block_score_fwd(std::max(nb, 1), 0);
  std::vector<int64_t> block_params(std::max(nb, 1), 0);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    const int s = stage_of(static_cast<int>(i));
    StageCost& st = r.stages[s];
    ++st.ops;
    const double t = times[i].time_ms;
    const int64_t bytes = in.memory->op_bytes[i];
    const int b = blocks.block_of_op[i];
    switch (op.phase) {
      case Phase::kForward: {
        st.forward_ms += t;
        params[s] += op.param_bytes;
        int64_t a = bytes - op.param_bytes - (training && !has_wgrad[i] ? op.param_bytes : 0);
        a = std::max<int64_t>(a, 0);
        act[s] += a;
        if (b >= 0) {
          block_act[b] += static_cast<double>(a);
          block_fwd[b] += t;
          block_params[b] += op.param_bytes;
          if (IsScoreOp(op, seq)) {
            block_score_act[b] += static_cast<double>(a);
            block_score_fwd[b] += t;
          }
        }
        break;
      }
      case Phase::kBackward: st.backward_ms += t; break;
      case Phase::kOptimizer:
        st.optimizer_ms += t;
        opt[s] += bytes;
        break;
    }
  }

  // Inputs of each block from outside it: what full checkpointing keeps.
  std::vector<double> block_input(std::max(nb, 1), 0);
  {
    std::set<std::pair<int, std::string>> seen;
    for (const Edge& e : g.edges) {
      const int bd = blocks.block_of_op[e.dst];
      if (bd < 0 || g.ops[e.dst].phase != Phase::kForward ||
          g.ops[e.src].phase != Phase::kForward || blocks.block_of_op[e.src] == bd) {
        continue;
      }
      if (seen.emplace(bd, e.tensor.empty() ? std::to_string(e.src) : e.tensor).second) {
        block_input[bd] += static_cast<double>(e.bytes);
      }
    }
  }

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
  r.links = options.links.description;

  // Blocking TP all-reduces.
  for (const auto& ar : in.tp_all_reduces) {
    if (ar.op < 0 || ar.op >= g.num_ops()) return Internal("all-reduce op out of range");
    const double t = RingAllReduceMs(static_cast<double>(ar.bytes), plan.tp, tp_links);
    const bool in_block = blocks.block_of_op[ar.op] >= 0;
    double times_paid = training ? 2 : 1;
    if (training && in_block && plan.checkpointing == Checkpointing::kFull) times_paid += 1;
    r.stages[stage_of(ar.op)].tp_comm_ms += t * times_paid;
  }

  // Point-to-point activations between consecutive stages (each TP rank
  // sends its 1/TP slice, Megatron's scatter-gather).
  for (const Edge& e : g.edges) {
    if (plan.pp == 1 || g.ops[e.src].phase != Phase::kForward ||
        g.ops[e.dst].phase != Phase::kForward) {
      continue;
    }
    const int a = stage_of(e.src), b = stage_of(e.dst);
    if (a == b) continue;
    const double bytes = static_cast<double>(e.bytes) / plan.tp;
    const double one = 1e3 * bytes / (p2p_gbps * 1e9) + 1e-3 * options.links.step_latency_us;
    r.stages[std::min(a, b)].p2p_ms += (training ? 2 : 1) * one;
  }

  const int n = plan.microbatches * plan.grad_accum;
  double max_c = 0, sum_c = 0;
  for (int s = 0; s < plan.pp; ++s) {
    StageCost& st = r.stages[s];
    for (int b = std::max(st.first_block, 0); b <= st.last_block; ++b) {
      if (!training) break;
      if (plan.checkpointing == Checkpointing::kFull) st.recompute_ms += block_fwd[b];
      if (plan.checkpointing == Checkpointing::kSelective) st.recompute_ms += block_score_fwd[b];
    }
    // Activations held: checkpointing keeps less, recomputes one block at a time.
    double a = static_cast<double>(act[s]);
    double peak_block = 0;
    for (int b = std::max(st.first_block, 0); b <= st.last_block && training; ++b) {
      if (plan.checkpointing == Checkpointing::kFull) {
        a += block_input[b] - block_act[b];
        peak_block = std::max(peak_block, block_act[b]);
      } else if (plan.checkpointing == Checkpointing::kSelective) {
        a -= block_score_act[b];
        peak_block = std::max(peak_block, block_score_act[b]);
      }
    }
    const int in_flight = training ? std::min(plan.pp - s, n) : 1;
    st.memory.activations = static_cast<int64_t>(std::max(0.0, a) * in_flight + peak_block);
    st.memory.params = plan.zero >= 3 ? Shard(params[s], plan.dp) : params[s];
    st.memory.grads = !training ? 0 : plan.zero >= 2 ? Shard(params[s], plan.dp) : params[s];
    st.memory.optimizer = plan.zero >= 1 ? Shard(opt[s], plan.dp) : opt[s];
    if (training && plan.dp > 1) {
      if (plan.zero >= 3) {
        int64_t largest = 0;
        for (int b = std::max(st.first_block, 0); b <= st.last_block; ++b) {
          largest = std::max(largest, block_params[b]);
        }
        st.memory.workspace = 2 * largest;  // the gathered block and the prefetched next
      } else {
        st.memory.workspace = 2 * std::min<int64_t>(kDdpBucketBytes, params[s]);
      }
    }
    if (plan.zero >= 1) st.optimizer_ms /= plan.dp;
    if (!training) st.backward_ms = st.optimizer_ms = 0;
    const double c = st.MicroBatchMs();
    max_c = std::max(max_c, c);
    sum_c += c;
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
      const double p = static_cast<double>(params[s]);
      double exposed = 0;
      if (plan.zero >= 3) {
        const double gather = RingAllReduceMs(p, plan.dp, dp_links) / 2;
        exposed = n * (std::max(0.0, gather - st.forward_ms) +
                       std::max(0.0, 2 * gather - st.backward_ms - st.recompute_ms));
        st.dp_comm_ms = n * 3 * gather;
      } else if (plan.pp == 1) {
        IterationOptions io;
        io.gpus = plan.dp;
        io.links = dp_links;
        FRUGAL_ASSIGN_OR_RETURN(IterationPrediction it,
                                IterationFromOpTimes(g, times, 0, gpu, io));
        st.dp_comm_ms = it.comm_total_ms;
        exposed = it.comm_ms;
      } else {
        st.dp_comm_ms = RingAllReduceMs(p, plan.dp, dp_links);
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

  r.samples_per_step = static_cast<double>(in.micro_batch) * n * plan.dp;
  if (r.step_ms > 0) {
    r.samples_per_s = r.samples_per_step / (r.step_ms / 1e3);
    r.tokens_per_s = in.seq_len > 0 ? r.samples_per_s * static_cast<double>(in.seq_len) : 0;
    if (options.peak_tflops > 0) {
      const double flops = (training ? 3.0 : 1.0) * in.model_forward_flops * n * plan.dp;
      r.mfu = flops / (r.step_ms / 1e3 * plan.gpus() * options.peak_tflops * 1e12);
    }
  }
  return r;
}

}  // namespace frugal
