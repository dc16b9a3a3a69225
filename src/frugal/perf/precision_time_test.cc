#include "frugal/perf/precision_time.h"

#include <gtest/gtest.h>

#include "frugal/graph/test_graphs.h"
#include "frugal/perf/features.h"
#include "frugal/perf/test_catalog.h"

namespace frugal {
namespace {

using testing::Act;
using testing::MakeOp;
using testing::Param;

TEST(PrecisionTime, ScalesByTheRooflineRatio) {
  // Compute-bound: 15 GFLOP at 15 TFLOP/s is 1 ms; on 120 TFLOP/s tensor
  // cores 0.125 ms.
  EXPECT_DOUBLE_EQ(ScaleOpTimeMs(2.0, 15e9, 1e6, 0.5e6, 15e12, 120e12, 900e9), 2.0 / 8);
  // Memory-bound: half the bytes, half the time.
  EXPECT_DOUBLE_EQ(ScaleOpTimeMs(1.0, 1e6, 9e8, 4.5e8, 15e12, 15e12, 900e9), 0.5);
  // Becomes memory-bound on tensor cores: the bytes bound it.
  EXPECT_DOUBLE_EQ(ScaleOpTimeMs(1.0, 15e9, 4.5e8, 4.5e8, 15e12, 150e12, 900e9), 0.5);
}

TEST(PrecisionTime, NeverBelowTheLaunchFloor) {
  EXPECT_DOUBLE_EQ(ScaleOpTimeMs(0.006, 15e9, 1, 1, 15e12, 150e12, 900e9), kLaunchOverheadMs);
  // An op already faster than the floor keeps its time.
  EXPECT_DOUBLE_EQ(ScaleOpTimeMs(0.003, 15e9, 1, 1, 15e12, 150e12, 900e9), 0.003);
}

OpGraph HalfGemm(DType act, const char* math) {
  OpGraph g;
  TensorInfo x = Act("x", {512, 1024}), y = Act("y", {512, 1024});
  x.dtype = y.dtype = act;
  Op mm = MakeOp("fc", OpKind::kMatMul, {x, Param("w", {1024, 1024})}, {y});
  if (math[0] != '\0') mm.attrs.strings["math"] = math;
  mm.flops = 2.0 * 512 * 1024 * 1024;
  TensorInfo r = Act("r", {512, 1024});
  r.dtype = act;
  Op relu = MakeOp("relu", OpKind::kRelu, {y}, {r});
  g.AddOp(mm);
  g.AddOp(relu);
  g.AddEdge(0, 1, y.Bytes(), "y");
  return g;
}

std::vector<OpTimePrediction> Fp32Times() {
  std::vector<OpTimePrediction> t(2);
  t[0] = {1.0, false, "linear"};
  t[1] = {0.2, false, "relu"};
  return t;
}

TEST(PrecisionTime, HalfGemmOnTensorCores) {
  const GpuSpec& v100 = testing::CatalogGpu("V100-SXM2-16GB");
  const OpGraph g = HalfGemm(DType::kFloat16, "fp16");
  std::vector<OpTimePrediction> t = Fp32Times();
  ASSERT_TRUE(ApplyPrecisionTimes(g, v100, &t).ok());
  const GpuFeatures f = *GpuFeaturesOf(v100);
  const double flops = g.ops[0].flops;
  const double b32 = 4.0 * (3 * 512 * 1024 + 1024 * 1024), b16 = b32 / 2;
  EXPECT_DOUBLE_EQ(t[0].time_ms,
                   ScaleOpTimeMs(1.0, flops, b32, b16, f.peak_flops,
                                 *v100.fp16_tensor_tflops * 1e12, f.mem_bw_bps));
  EXPECT_LT(t[0].time_ms, 0.5);
  EXPECT_NE(t[0].basis.find("fp16 tensor cores"), std::string::npos) << t[0].basis;
  // relu: bytes halved.
  EXPECT_NEAR(t[1].time_ms, 0.1, 1e-9);
  EXPECT_NE(t[1].basis.find("reduced-precision bytes"), std::string::npos);
}

TEST(PrecisionTime, Fp32GraphsAreUnchanged) {
  const GpuSpec& v100 = testing::CatalogGpu("V100-SXM2-16GB");
  std::vector<OpTimePrediction> t = Fp32Times();
  ASSERT_TRUE(ApplyPrecisionTimes(HalfGemm(DType::kFloat32, ""), v100, &t).ok());
  EXPECT_EQ(t[0].time_ms, 1.0);
  EXPECT_EQ(t[0].basis, "linear");
  // TF32 on a GPU without TF32 tensor cores: compute at the FP32 rate.
  ASSERT_TRUE(ApplyPrecisionTimes(HalfGemm(DType::kFloat32, "tf32"), v100, &t).ok());
  EXPECT_DOUBLE_EQ(t[0].time_ms, 1.0);
  const GpuSpec& a100 = testing::CatalogGpu("A100-SXM4-80GB");
  std::vector<OpTimePrediction> a = Fp32Times();
  ASSERT_TRUE(ApplyPrecisionTimes(HalfGemm(DType::kFloat32, "tf32"), a100, &a).ok());
  EXPECT_LT(a[0].time_ms, 0.5);
  EXPECT_EQ(a[1].time_ms, 0.2);  // relu untouched
}

TEST(PrecisionTime, Fp16WithoutTensorCoresGainsOnlyBytes) {
  const GpuSpec& p100 = testing::CatalogGpu("P100-PCIE-16GB");
  ASSERT_FALSE(p100.fp16_tensor_tflops.has_value());
  std::vector<OpTimePrediction> t = Fp32Times();
  ASSERT_TRUE(ApplyPrecisionTimes(HalfGemm(DType::kFloat16, "fp16"), p100, &t).ok());
  // 1 GFLOP on ~9 TFLOPS is compute-bound: the FP32 rate keeps it.
  EXPECT_DOUBLE_EQ(t[0].time_ms, 1.0);
  EXPECT_NE(t[0].basis.find("without tensor cores"), std::string::npos) << t[0].basis;
}

TEST(PrecisionTime, HalfActivationsImplyHalfMath) {
  Op op = HalfGemm(DType::kBFloat16, "").ops[0];
  EXPECT_EQ(ReducedMathOf(op), "bf16");
  op.attrs.strings["math"] = "tf32";
  EXPECT_EQ(ReducedMathOf(op), "tf32");
  EXPECT_EQ(ReducedMathOf(HalfGemm(DType::kFloat16, "fp16").ops[1]), "");
}

}  // namespace
}  // namespace frugal
