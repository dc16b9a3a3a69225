// The efficiency model's sustained-rate rule: measured rates on trained
// GPUs, a public benchmark figure scaled by the trained GPUs' ratio or the
// fitted peak / power / memory-class rule on others, and throttled
// measurement campaigns left out; GEMM boosters per kernel family.
#include <gtest/gtest.h>

#include <cmath>

#include "frugal/perf/op_time_model.h"
#include "frugal/perf/test_catalog.h"

namespace frugal {
namespace {

using testing::TheCatalog;

using testing::CatalogGpu;

// Large GEMMs at `tflops` (`long_slowdown` times slower from m = 8192 on),
// large adds at `gbps`, and small launches at the floor, for one GPU and one
// campaign (source).
void AddGpu(const char* name, double tflops, double gbps, int32_t source,
            std::vector<TrainRow>* rows, double long_slowdown = 1) {
  const GpuSpec& g = CatalogGpu(name);
  for (int i = 0; i < 40; ++i) {
    OpShape s;
    s.op = PerfOp::kLinear;
    s.m = 2048 + 256 * i;
    s.n = 4096;
    s.k = 1024 + 128 * (i % 7);
    const double flops = 2.0 * s.m * s.n * s.k;
    const double slow = s.m >= 8192 ? long_slowdown : 1;
    rows->push_back(TrainRow{s, &g, 1e3 * slow * flops / (tflops * 1e12), source});
    OpShape a;
    a.op = PerfOp::kAdd;
    a.b = 8192 + 512 * i;
    a.h = 4096;
    const double bytes = 12.0 * a.b * a.h;
    rows->push_back(TrainRow{a, &g, 1e3 * bytes / (gbps * 1e9), source + 100});
  }
}

TrainOptions Fast() {
  TrainOptions t;
  t.rounds = 60;  // XGBoost starts at 0.5: enough rounds to reach the target
  t.max_depth = 3;
  return t;
}

TEST(EfficiencyModel, KeepsMeasuredRatesAndFitsTheRule) {
  std::vector<TrainRow> rows;
  // Efficiency 0.8 of peak unless power-limited at 55 GFLOP/s per W.
  AddGpu("V100-PCIE-32GB", 0.8 * 14.0, 0.9 * 900, 0, &rows);  // HBM2, volta
  AddGpu("T4", 55e-3 * 70, 0.75 * 320, 1, &rows);              // GDDR6, 70 W
  AddGpu("P4", 55e-3 * 75, 0.75 * 192, 2, &rows);              // GDDR5, 75 W
  AddGpu("P100-PCIE-16GB", 0.8 * 9.526, 0.75 * 732, 3, &rows); // HBM2, pascal
  auto m = TrainOpTimeModel("efficiency", rows, Fast());
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const nlohmann::json j = (*m)->ToJson(false);
  EXPECT_NEAR(j["measured"]["T4"]["sustained_fp32_tflops"].get<double>(), 3.85, 1e-6);
  EXPECT_NEAR(j["measured"]["V100-PCIE-32GB"]["sustained_mem_bw_gbps"].get<double>(), 810, 1e-6);
  EXPECT_NEAR(j["rule"]["gamma"].get<double>(), 0.8, 0.011);
  EXPECT_NEAR(j["rule"]["kappa_gflops_per_w"].get<double>(), 55, 1.0);
  EXPECT_NEAR(j["rule"]["beta_by_memory_class"]["hbm-volta+"].get<double>(), 0.9, 1e-6);
  EXPECT_NEAR(j["rule"]["beta_by_memory_class"]["other"].get<double>(), 0.75, 1e-6);
  EXPECT_TRUE(j["throttled_campaigns_left_out"].empty());
  // T4, P4 and P100 have benchmark figures in the catalog (4.30, 4.55, 8.38
  // TFLOP/s; V100-PCIE-32GB has none): measured over benchmarked is 0.895,
  // 0.907 and 0.909, median 0.907.
  EXPECT_NEAR(j["rule"]["benchmarked_ratio"].get<double>(), 4.125 / 4.55, 1e-6);
  EXPECT_EQ(j["rule"]["benchmarked_gpus"].get<int>(), 3);

  // An unseen A100 PCIe (19.5 TFLOP/s, 250 W, HBM2, ampere; benchmarked at
  // 17.56): 0.907 * 17.56 = 15.9 TFLOP/s, and it streams at 0.9 of 1555
  // GB/s; a large GEMM and a large add land near those rates (the trees
  // learned efficiency ~1 of the sustained roofline; both shapes are far
  // above the latency floors the trained GPUs' smallest launches set).
  OpShape gemm;
  gemm.op = PerfOp::kLinear;
  gemm.m = 65536;
  gemm.n = 4096;
  gemm.k = 1536;
  OpShape add;
  add.op = PerfOp::kAdd;
  add.b = 400000;
  add.h = 4096;
  const OpShape shapes[] = {gemm, add};
  auto t = (*m)->PredictMs(shapes, CatalogGpu("A100-PCIE-40GB"));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  const double gemm_tflops = 2.0 * 65536 * 4096 * 1536 / ((*t)[0] * 1e9);
  const double add_gbps = 12.0 * 400000 * 4096 / ((*t)[1] * 1e6);
  EXPECT_NEAR(gemm_tflops, 4.125 / 4.55 * 17.56, 0.05 * 15.9);
  EXPECT_NEAR(add_gbps, 0.9 * 1555, 0.1 * 0.9 * 1555);
  // An unseen V100 PCIe 16 GB has no figure of its own: the V100 SXM2's
  // (14.51 of 15.7 TFLOP/s) scaled to its 14.13 TFLOP/s peak.
  auto v100 = (*m)->PredictMs(shapes, CatalogGpu("V100-PCIE-16GB"));
  ASSERT_TRUE(v100.ok()) << v100.status().ToString();
  EXPECT_NEAR(2.0 * 65536 * 4096 * 1536 / ((*v100)[0] * 1e9),
              4.125 / 4.55 * 14.51 / 15.7 * 14.13, 0.05 * 11.8);

  // A model file from before the benchmark figures has no ratio: the peak /
  // power rule, power-limited at about 55 * 250 = 13.75 TFLOP/s.
  nlohmann::json old = j;
  old["rule"].erase("benchmarked_ratio");
  old["rule"].erase("benchmarked_gpus");
  auto loaded = NewOpTimeModel("efficiency");
  ASSERT_TRUE(loaded.ok());
  ASSERT_TRUE((*loaded)->FromJson(old).ok());
  auto rule_t = (*loaded)->PredictMs(shapes, CatalogGpu("A100-PCIE-40GB"));
  ASSERT_TRUE(rule_t.ok()) << rule_t.status().ToString();
  const double rule_tflops = 2.0 * 65536 * 4096 * 1536 / ((*rule_t)[0] * 1e9);
  EXPECT_NEAR(rule_tflops, 13.75, 0.1 * 13.75);
  EXPECT_GT(gemm_tflops / rule_tflops, 1.08);
}

TEST(EfficiencyModel, LeavesOutThrottledCampaigns) {
  std::vector<TrainRow> rows;
  AddGpu("V100-PCIE-32GB", 11, 800, 0, &rows);
  AddGpu("P4", 4.0, 144, 1, &rows);
  AddGpu("P4", 1.0, 144, 2, &rows);  // the same card, throttled
  auto m = TrainOpTimeModel("efficiency", rows, Fast());
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const nlohmann::json j = (*m)->ToJson(false);
  EXPECT_NEAR(j["measured"]["P4"]["sustained_fp32_tflops"].get<double>(), 4.0, 1e-6);
  ASSERT_EQ(j["throttled_campaigns_left_out"].size(), 1u);
  EXPECT_EQ(j["throttled_campaigns_left_out"][0]["gpu"], "P4");
  EXPECT_NEAR(j["throttled_campaigns_left_out"][0]["gemm_rate_vs_best"].get<double>(), 0.25,
              1e-6);
}

// GEMM shape effects are learned per kernel family (pre-Volta / Volta and
// later) once a family has two trained GPUs: a Pascal-only slowdown of long
// GEMMs does not reach an unseen Volta-or-later GPU, where trees pooled over
// both families pass it on.
TEST(EfficiencyModel, LearnsGemmShapeEffectsPerKernelFamily) {
  std::vector<TrainRow> rows;
  AddGpu("V100-PCIE-32GB", 12, 800, 0, &rows);
  AddGpu("T4", 4, 240, 1, &rows);
  AddGpu("P100-PCIE-16GB", 7, 550, 2, &rows, 2.0);
  AddGpu("P4", 4, 144, 3, &rows, 2.0);
  auto m = TrainOpTimeModel("efficiency", rows, Fast());
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const nlohmann::json j = (*m)->ToJson(false);
  const auto& families = j["boosters_by_kernel_family"];
  ASSERT_TRUE(families.contains("any"));
  EXPECT_TRUE(families["pre-volta"].contains("linear"));
  EXPECT_TRUE(families["volta+"].contains("linear"));
  EXPECT_FALSE(families["volta+"].contains("add"));  // PyTorch's own kernel

  OpShape short_gemm, long_gemm;
  short_gemm.op = long_gemm.op = PerfOp::kLinear;
  short_gemm.n = long_gemm.n = 4096;
  short_gemm.k = long_gemm.k = 1536;
  short_gemm.m = 4096;
  long_gemm.m = 11264;
  const OpShape shapes[] = {short_gemm, long_gemm};
  auto ratio = [&](const nlohmann::json& state, const char* gpu) {
    auto fresh = NewOpTimeModel("efficiency");
    const Status st = (*fresh)->FromJson(state);
    EXPECT_TRUE(st.ok()) << st.ToString();
    auto t = (*fresh)->PredictMs(shapes, CatalogGpu(gpu));
    if (!t.ok()) {
      ADD_FAILURE() << t.status().ToString();
      return 0.0;
    }
    // Time per FLOP of the long GEMM over the short one's.
    return ((*t)[1] / long_gemm.m) / ((*t)[0] / short_gemm.m);
  };
  EXPECT_NEAR(ratio(j, "A100-PCIE-40GB"), 1.0, 0.1);
  EXPECT_NEAR(ratio(j, "P100-PCIE-16GB"), 2.0, 0.2);
  // The Volta-or-later GPU uses its family's boosters: given the Pascal
  // ones in their place, it slows down like Pascal.
  nlohmann::json swapped = j;
  swapped["boosters_by_kernel_family"]["volta+"] = families["pre-volta"];
  EXPECT_NEAR(ratio(swapped, "A100-PCIE-40GB"), 2.0, 0.2);
  // A model file from before the families: its boosters are the pooled ones.
  nlohmann::json pooled = j;
  pooled["boosters_by_kernel_family"].erase("pre-volta");
  pooled["boosters_by_kernel_family"].erase("volta+");
  nlohmann::json old = pooled;
  old["boosters"] = families["any"];
  old.erase("boosters_by_kernel_family");
  EXPECT_NEAR(ratio(old, "P100-PCIE-16GB"), ratio(pooled, "P100-PCIE-16GB"), 1e-9);

  // One GPU per family: pooled boosters only.
  std::vector<TrainRow> two;
  AddGpu("V100-PCIE-32GB", 12, 800, 0, &two);
  AddGpu("P4", 4, 144, 1, &two, 2.0);
  auto m2 = TrainOpTimeModel("efficiency", two, Fast());
  ASSERT_TRUE(m2.ok()) << m2.status().ToString();
  const nlohmann::json j2 = (*m2)->ToJson(false);
  EXPECT_EQ(j2["boosters_by_kernel_family"].size(), 1u);
  nlohmann::json unknown = j2;
  unknown["boosters_by_kernel_family"]["hopper"] = unknown["boosters_by_kernel_family"]["any"];
  auto fresh = NewOpTimeModel("efficiency");
  EXPECT_FALSE((*fresh)->FromJson(unknown).ok());
  unknown["boosters_by_kernel_family"].erase("any");
  unknown["boosters_by_kernel_family"].erase("hopper");
  EXPECT_FALSE((*fresh)->FromJson(unknown).ok());
}

// Large batched GEMMs at `tflops`, for one GPU and campaign.
void AddBmm(const char* name, double tflops, int32_t source, std::vector<TrainRow>* rows) {
  const GpuSpec& g = CatalogGpu(name);
  for (int i = 0; i < 40; ++i) {
    OpShape s;
    s.op = PerfOp::kBmm;
    s.b = 16 + 4 * (i % 5);
    s.m = 512 + 64 * i;
    s.n = 1024;
    s.k = 512 + 64 * (i % 7);
    const double flops = 2.0 * s.b * s.m * s.n * s.k;
    rows->push_back(TrainRow{s, &g, 1e3 * flops / (tflops * 1e12), source});
  }
}

// linear and bmm are priced against their own rates: a trained GPU's own,
// an unseen GPU's GEMM rate times the trained GPUs' median ratio of the op
// type's rate to their GEMM rate.
TEST(EfficiencyModel, PricesEachGemmOpTypeAtItsOwnRate) {
  std::vector<TrainRow> rows;
  AddGpu("V100-PCIE-32GB", 12, 800, 0, &rows);
  AddBmm("V100-PCIE-32GB", 9, 200, &rows);  // bmm at 0.75 of linear
  AddGpu("T4", 4, 240, 1, &rows);
  AddBmm("T4", 1.8, 201, &rows);  // under half its linear: throttled, left out
  AddGpu("P100-PCIE-16GB", 6, 550, 2, &rows);
  AddBmm("P100-PCIE-16GB", 7.5, 202, &rows);  // faster than its linear
  auto m = TrainOpTimeModel("efficiency", rows, Fast());
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const nlohmann::json j = (*m)->ToJson(false);
  const auto& v100 = j["measured"]["V100-PCIE-32GB"];
  EXPECT_NEAR(v100["sustained_fp32_tflops"].get<double>(), 12, 1e-6);
  EXPECT_NEAR(v100["sustained_fp32_tflops_by_op"]["bmm"].get<double>(), 9, 1e-6);
  EXPECT_FALSE(j["measured"]["T4"]["sustained_fp32_tflops_by_op"].contains("bmm"));
  EXPECT_NEAR(j["measured"]["P100-PCIE-16GB"]["sustained_fp32_tflops"].get<double>(), 7.5, 1e-6);
  // bmm over GEMM rate: V100 0.75, P100 1; linear: V100 1, T4 1, P100 0.8.
  EXPECT_NEAR(j["rule"]["gemm_op_ratio"]["bmm"].get<double>(), 0.875, 1e-6);
  EXPECT_NEAR(j["rule"]["gemm_op_ratio"]["linear"].get<double>(), 1.0, 1e-6);

  // On the V100 itself a large bmm lands near its own 9 TFLOP/s; on an
  // unseen A100 near 0.875 of the linear's rate.
  OpShape bmm, gemm;
  bmm.op = PerfOp::kBmm;
  bmm.b = 24;
  bmm.m = 2048;
  bmm.n = 1024;
  bmm.k = 768;
  gemm.op = PerfOp::kLinear;
  gemm.m = 8192;
  gemm.n = 4096;
  gemm.k = 1536;
  const OpShape shapes[] = {bmm, gemm};
  const double bmm_flops = 2.0 * 24 * 2048 * 1024 * 768, gemm_flops = 2.0 * 8192 * 4096 * 1536;
  auto v = (*m)->PredictMs(shapes, CatalogGpu("V100-PCIE-32GB"));
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_NEAR(bmm_flops / ((*v)[0] * 1e9), 9, 0.1 * 9);
  auto a = (*m)->PredictMs(shapes, CatalogGpu("A100-PCIE-40GB"));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const double bmm_rate = bmm_flops / (*a)[0], gemm_rate = gemm_flops / (*a)[1];
  EXPECT_NEAR(bmm_rate / gemm_rate, 0.875, 0.1);

  auto fresh = NewOpTimeModel("efficiency");
  nlohmann::json bad = j;
  bad["rule"]["gemm_op_ratio"]["conv"] = 0.9;  // not a GEMM op type with its own rate
  EXPECT_FALSE((*fresh)->FromJson(bad).ok());
  bad = j;
  bad["rule"]["gemm_op_ratio"]["bmm"] = 1.5;
  EXPECT_FALSE((*fresh)->FromJson(bad).ok());
  bad = j;
  bad["measured"]["T4"]["sustained_fp32_tflops_by_op"]["linear"] = -1;
  EXPECT_FALSE((*fresh)->FromJson(bad).ok());
  // A model file from before the per-op rates prices bmm at the GEMM rate.
  nlohmann::json old = j;
  old["rule"].erase("gemm_op_ratio");
  for (auto& [name, g] : old["measured"].items()) g.erase("sustained_fp32_tflops_by_op");
  ASSERT_TRUE((*fresh)->FromJson(old).ok());
  auto o = (*fresh)->PredictMs(shapes, CatalogGpu("V100-PCIE-32GB"));
  ASSERT_TRUE(o.ok());
  EXPECT_LT((*o)[0], (*v)[0]);
}

TEST(EfficiencyModel, RejectsAMalformedRule) {
  std::vector<TrainRow> rows;
  AddGpu("V100-PCIE-32GB", 11, 800, 0, &rows);
  auto m = TrainOpTimeModel("efficiency", rows, Fast());
  ASSERT_TRUE(m.ok());
  nlohmann::json j = (*m)->ToJson(false);
  auto fresh = NewOpTimeModel("efficiency");
  ASSERT_TRUE(fresh.ok());
  j["rule"]["gamma"] = -1;
  EXPECT_FALSE((*fresh)->FromJson(j).ok());
  j["rule"]["gamma"] = 0.8;
  j["rule"]["benchmarked_ratio"] = -0.5;
  EXPECT_FALSE((*fresh)->FromJson(j).ok());
  j.erase("rule");
  EXPECT_FALSE((*fresh)->FromJson(j).ok());
}

}  // namespace
}  // namespace frugal

namespace frugal {
namespace {

// XGBoost trusts a model's tree arrays; a file whose trees loop or whose
// counts disagree is refused before XGBoost sees it.
TEST(TreeModelFiles, MalformedTreesAreRefused) {
  std::vector<TrainRow> rows;
  AddGpu("V100-PCIE-32GB", 11, 800, 0, &rows);
  auto m = TrainOpTimeModel("efficiency", rows, Fast());
  ASSERT_TRUE(m.ok());
  const nlohmann::json good = (*m)->ToJson(false);
  auto load = [](const nlohmann::json& j) {
    auto fresh = NewOpTimeModel("efficiency");
    return (*fresh)->FromJson(j);
  };
  ASSERT_TRUE(load(good).ok());
  auto tree = [](nlohmann::json& j) -> nlohmann::json& {
    return j["boosters_by_kernel_family"]["any"]["linear"]["learner"]["gradient_booster"]["model"]["trees"][0];
  };
  nlohmann::json loop = good;
  tree(loop)["left_children"][0] = 0;  // the root its own child
  Status st = load(loop);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("not a later node"), std::string::npos) << st.message();
  nlohmann::json count = good;
  count["boosters_by_kernel_family"]["any"]["linear"]["learner"]["gradient_booster"]["model"]["gbtree_model_param"]
       ["num_trees"] = "0";
  EXPECT_FALSE(load(count).ok());
  nlohmann::json id = good;
  tree(id)["id"] = 5;
  EXPECT_FALSE(load(id).ok());
  nlohmann::json feature = good;
  tree(feature)["split_indices"][0] = 100000;
  EXPECT_FALSE(load(feature).ok());
}

}  // namespace
}  // namespace frugal
