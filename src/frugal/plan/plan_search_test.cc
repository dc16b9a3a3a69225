#include "frugal/plan/plan_search.h"

#include <gtest/gtest.h>

#include "frugal/perf/test_catalog.h"
#include "frugal/plan/plan_test_util.h"

namespace frugal {
namespace {

// A tiny Llama's training step at micro-batch 2, sequence 128, fp32.
StepSource TinySource(double extra_bytes = 0) {
  return [extra_bytes](size_t, int tp) -> Result<std::shared_ptr<const CandidateStep>> {
    OpGraph fwd = testing::ImportConfig(testing::TinyLlama(8), 2, 128);
    auto c = std::make_shared<CandidateStep>();
    for (const Op& op : fwd.ops) c->model_forward_flops += op.flops;
    FRUGAL_ASSIGN_OR_RETURN(TensorParallelGraph split, ShardTensorParallel(fwd, tp));
    FRUGAL_ASSIGN_OR_RETURN(c->step, BuildTrainingGraph(split.graph));
    c->memory = EstimateStepMemory(c->step);
    c->memory.op_bytes[0] += static_cast<int64_t>(extra_bytes);
    c->all_reduces = split.all_reduces;
    c->micro_batch = 2;
    c->seq_len = 128;
    return std::shared_ptr<const CandidateStep>(std::move(c));
  };
}

PlanSearchOptions Fp32Options() {
  PlanSearchOptions o;
  o.advise.providers = {Provider::kAws};
  o.advise.max_instances = 2;
  o.precisions.push_back({"fp32", [](const GpuSpec& g) -> Result<double> {
                            if (!g.fp32_tflops) return InvalidArgument("no fp32 peak");
                            return *g.fp32_tflops;
                          }});
  return o;
}

TEST(SearchPlans, RecommendsTheCheapestFittingPlan) {
  auto model = NewRooflineModel();
  PlanSearchJob job;
  job.samples = 1e6;
  size_t calls = 0;
  PlanSearchOptions o = Fp32Options();
  o.progress = [&](size_t done, size_t total) {
    ++calls;
    EXPECT_LE(done, total);
  };
  Result<PlanAdvice> a = SearchPlans(*model, TinySource(), testing::TheCatalog(), job, o);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_GE(a->advice.recommended, 0) << a->advice.reason;
  EXPECT_GT(calls, 0u);
  EXPECT_GT(a->plans_priced, a->advice.configs.size());
  for (const ConfigResult& c : a->advice.configs) {
    EXPECT_TRUE(c.fits);
    EXPECT_FALSE(c.plan.empty());
    EXPECT_EQ(c.precision, "fp32");
    EXPECT_NEAR(c.gpu_hours, c.hours * c.gpus, 1e-9);
    EXPECT_GT(c.mfu, 0);
    EXPECT_LT(c.mfu, 1);
  }
  const ConfigResult& r = a->advice.configs[a->advice.recommended];
  for (const ConfigResult& c : a->advice.configs) EXPECT_GE(*c.cost_usd, *r.cost_usd - 1e-9);
  // Same inputs, same advice.
  Result<PlanAdvice> again = SearchPlans(*model, TinySource(), testing::TheCatalog(), job, o);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->advice.configs[again->advice.recommended].plan, r.plan);
}

TEST(SearchPlans, AGlobalBatchSetsTheMicroBatchCount) {
  auto model = NewRooflineModel();
  PlanSearchJob job;
  job.samples = 1e5;
  job.global_batch = 64;  // micro-batch 2: 32 micro-batches over the DP replicas
  Result<PlanAdvice> a = SearchPlans(*model, TinySource(), testing::TheCatalog(), job,
                                     Fp32Options());
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_FALSE(a->advice.configs.empty());
  for (const ConfigResult& c : a->advice.configs) {
    // 1e5 / 64 steps: every plan takes the same number of optimizer steps.
    const double steps = std::ceil(1e5 / 64);
    EXPECT_NEAR(c.hours, steps * c.iteration_ms / 3.6e6, 1e-9) << c.plan;
  }
}

TEST(SearchPlans, NamesTheClosestPlanWhenNothingFits) {
  auto model = NewRooflineModel();
  PlanSearchJob job;
  job.samples = 1e6;
  Result<PlanAdvice> a = SearchPlans(*model, TinySource(1e13), testing::TheCatalog(), job,
                                     Fp32Options());
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->advice.recommended, -1);
  ASSERT_TRUE(a->closest.has_value());
  EXPECT_NE(a->advice.reason.find("no plan fits: the closest is"), std::string::npos)
      << a->advice.reason;
}

TEST(SearchPlans, RefusesABadJob) {
  auto model = NewRooflineModel();
  PlanSearchJob job;
  EXPECT_FALSE(SearchPlans(*model, TinySource(), testing::TheCatalog(), job, Fp32Options()).ok());
  job.samples = 10;
  job.global_batch = 0;
  EXPECT_FALSE(SearchPlans(*model, TinySource(), testing::TheCatalog(), job, Fp32Options()).ok());
  job.global_batch.reset();
  EXPECT_FALSE(SearchPlans(*model, TinySource(), testing::TheCatalog(), job, {}).ok());
}

}  // namespace
}  // namespace frugal
