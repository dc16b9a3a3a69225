#include "frugal/plan/parallel.h"

#include <gtest/gtest.h>

#include "frugal/graph/op_cost.h"
#include "frugal/perf/test_catalog.h"
#include "frugal/plan/plan_test_util.h"

namespace frugal {
namespace {

// One GPU's step of the tiny Llama for a plan, priced with the roofline.
struct Priced {
  OpGraph step;
  std::vector<OpTimePrediction> times;
  StepMemory memory;
  PlanInputs in;
};

Priced Price(int tp, int layers = 8, int64_t micro = 2, int64_t seq = 128) {
  Priced p;
  OpGraph fwd = testing::ImportConfig(testing::TinyLlama(layers), micro, seq);
  double flops = 0;
  for (const Op& op : fwd.ops) flops += op.flops;
  Result<TensorParallelGraph> split = ShardTensorParallel(fwd, tp);
  EXPECT_TRUE(split.ok()) << split.status().ToString();
  Result<OpGraph> step = BuildTrainingGraph(split->graph);
  EXPECT_TRUE(step.ok());
  p.step = *step;
  auto model = NewRooflineModel();
  Result<std::vector<OpTimePrediction>> t =
      PredictOps(*model, p.step, testing::CatalogGpu("A100-SXM4-80GB"));
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  p.times = *t;
  p.memory = EstimateStepMemory(p.step);
  p.in.tp_all_reduces = split->all_reduces;
  p.in.micro_batch = micro;
  p.in.seq_len = seq;
  p.in.model_forward_flops = flops;
  return p;
}

PlanOptions Options(int per_node = 8) {
  PlanOptions o;
  o.links = LinksFor(testing::CatalogGpu("A100-SXM4-80GB"), nullptr, 1);
  o.gpus_per_instance = per_node;
  o.peak_tflops = 312;
  return o;
}

Result<PlanPrediction> PriceWith(Priced& p, const ParallelPlan& plan, PlanOptions o = Options()) {
  p.in.step = &p.step;
  p.in.op_times = &p.times;
  p.in.memory = &p.memory;
  return PricePlan(p.in, testing::CatalogGpu("A100-SXM4-80GB"), plan, o);
}

// What `predict` without a plan computes: DDP over `gpus` GPUs.
Result<IterationPrediction> PredictsIteration(const Priced& p, int gpus) {
  IterationOptions io;
  io.gpus = gpus;
  io.links = Options().links;
  return IterationFromOpTimes(p.step, p.times, p.memory.total_bytes,
                              testing::CatalogGpu("A100-SXM4-80GB"), io);
}

TEST(PricePlan, OneGpuIsPredictsIteration) {
  Priced p = Price(1);
  Result<PlanPrediction> r = PriceWith(p, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  Result<IterationPrediction> it = PredictsIteration(p, 1);
  ASSERT_TRUE(it.ok());
  EXPECT_NEAR(r->step_ms, it->iteration_ms, 1e-9);
  EXPECT_EQ(r->memory.total(), p.memory.total_bytes);
  EXPECT_GT(r->mfu, 0);
  EXPECT_LT(r->mfu, 1);
  EXPECT_DOUBLE_EQ(r->samples_per_step, 2);
}

TEST(PricePlan, DataParallelAllReducesAndMatchesPredictsBuckets) {
  Priced p = Price(1);
  ParallelPlan plan;
  plan.dp = 8;
  Result<PlanPrediction> r = PriceWith(p, plan);
  ASSERT_TRUE(r.ok());
  Result<IterationPrediction> it = PredictsIteration(p, 8);
  ASSERT_TRUE(it.ok());
  EXPECT_NEAR(r->step_ms, it->iteration_ms, 1e-9);
  EXPECT_GT(r->dp_comm_total_ms, 0);
  EXPECT_DOUBLE_EQ(r->samples_per_step, 16);
}

TEST(PricePlan, PipelineBubbleShrinksWithMoreMicroBatches) {
  Priced p = Price(1);
  ParallelPlan plan;
  plan.pp = 4;
  plan.microbatches = 1;
  Result<PlanPrediction> one = PriceWith(p, plan);
  plan.microbatches = 16;
  Result<PlanPrediction> many = PriceWith(p, plan);
  ASSERT_TRUE(one.ok() && many.ok()) << one.status().ToString();
  ASSERT_EQ(one->stages.size(), 4u);
  // One micro-batch: the stages run one after another.
  EXPECT_NEAR(one->bubble_ms / one->step_ms, 0.75, 0.1);
  EXPECT_LT(many->bubble_ms / many->step_ms, 0.2);
  // 8 layers in 4 stages of 2.
  EXPECT_EQ(one->stages[1].first_block, 2);
  EXPECT_EQ(one->stages[1].last_block, 3);
  EXPECT_GT(one->stages[0].p2p_ms, 0);
  EXPECT_EQ(one->stages[3].p2p_ms, 0);
  // 1F1B: the first stage holds 4 micro-batches' activations, the last 1.
  EXPECT_GT(many->stages[0].memory.activations, 1.5 * many->stages[2].memory.activations);
}

TEST(PricePlan, ZeroShardsStateAcrossDataParallelRanks) {
  Priced p = Price(1);
  ParallelPlan plan;
  plan.dp = 4;
  Result<PlanPrediction> z0 = PriceWith(p, plan);
  plan.zero = 1;
  Result<PlanPrediction> z1 = PriceWith(p, plan);
  plan.zero = 2;
  Result<PlanPrediction> z2 = PriceWith(p, plan);
  plan.zero = 3;
  Result<PlanPrediction> z3 = PriceWith(p, plan);
  ASSERT_TRUE(z0.ok() && z1.ok() && z2.ok() && z3.ok());
  EXPECT_EQ(z1->memory.optimizer, (z0->memory.optimizer + 3) / 4);
  EXPECT_EQ(z1->memory.grads, z0->memory.grads);
  EXPECT_EQ(z2->memory.grads, (z0->memory.grads + 3) / 4);
  EXPECT_EQ(z3->memory.params, (z0->memory.params + 3) / 4);
  EXPECT_GT(z3->dp_comm_total_ms, z0->dp_comm_total_ms);  // 3 passes of the bytes, not 2
  plan.zero = 4;
  EXPECT_FALSE(PriceWith(p, plan).ok());
}

TEST(PricePlan, CheckpointingTradesRecomputeForActivations) {
  Priced p = Price(1);
  ParallelPlan plan;
  Result<PlanPrediction> none = PriceWith(p, plan);
  plan.checkpointing = Checkpointing::kSelective;
  Result<PlanPrediction> sel = PriceWith(p, plan);
  plan.checkpointing = Checkpointing::kFull;
  Result<PlanPrediction> full = PriceWith(p, plan);
  ASSERT_TRUE(none.ok() && sel.ok() && full.ok());
  EXPECT_LT(full->memory.activations, sel->memory.activations);
  EXPECT_LT(sel->memory.activations, none->memory.activations);
  EXPECT_GT(full->stages[0].recompute_ms, sel->stages[0].recompute_ms);
  EXPECT_GT(sel->stages[0].recompute_ms, 0);
  EXPECT_GT(full->step_ms, none->step_ms);
  // Full recomputation repeats every block's forward pass.
  EXPECT_LT(full->stages[0].recompute_ms, full->stages[0].forward_ms);
  EXPECT_GT(full->stages[0].recompute_ms, 0.8 * full->stages[0].forward_ms);
}

TEST(PricePlan, TensorParallelHalvesWorkAndAddsBlockingAllReduces) {
  Priced one = Price(1);
  Priced two = Price(2);
  ParallelPlan plan;
  plan.tp = 2;
  Result<PlanPrediction> r1 = PriceWith(one, {});
  Result<PlanPrediction> r2 = PriceWith(two, plan);
  ASSERT_TRUE(r1.ok() && r2.ok()) << r2.status().ToString();
  EXPECT_GT(r2->tp_comm_ms, 0);
  EXPECT_LT(r2->memory.params, 0.55 * r1->memory.params);
  // (Launch-bound at this size: less time, far from half.)
  EXPECT_LT(r2->stages[0].forward_ms, r1->stages[0].forward_ms);
  // MFU counts the whole model's FLOPs over both GPUs.
  EXPECT_GT(r2->mfu, 0);
  EXPECT_LT(r2->mfu, r1->mfu * 1.05);
}

TEST(PricePlan, RefusesPlansTheModelCannotTake) {
  Priced p = Price(1, 2);
  ParallelPlan plan;
  plan.pp = 3;  // 2 layers
  Result<PlanPrediction> r = PriceWith(p, plan);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("3 pipeline stages need at least 3 layers"),
            std::string::npos);
  plan = {};
  plan.tp = 8;
  EXPECT_FALSE(PriceWith(p, plan, Options(4)).ok());
  plan = {};
  plan.microbatches = 0;
  EXPECT_FALSE(PriceWith(p, plan).ok());
}

TEST(Checkpointing, NamesRoundTrip) {
  for (Checkpointing c : {Checkpointing::kNone, Checkpointing::kSelective, Checkpointing::kFull}) {
    Checkpointing back;
    ASSERT_TRUE(ParseCheckpointing(CheckpointingName(c), &back));
    EXPECT_EQ(back, c);
  }
  Checkpointing c;
  EXPECT_FALSE(ParseCheckpointing("some", &c));
  ParallelPlan p;
  p.tp = 2;
  p.dp = 8;
  p.zero = 1;
  p.microbatches = 4;
  EXPECT_EQ(DescribePlan(p), "TP 2 x PP 1 x DP 8, ZeRO-1, no checkpointing, 4 micro-batches");
}

}  // namespace
}  // namespace frugal
