#include "frugal/share/batch_latency.h"

#include <gtest/gtest.h>

#include "frugal/share/test_util.h"

namespace frugal::share {
namespace {
using testing::Gpu;
using testing::Roofline;

TEST(CostCache, LatencyGrowsWithBatchAndIsCached) {
  CostCache c(Roofline());
  const GpuSpec& gpu = Gpu("A100-SXM4-80GB");
  auto one = c.Inference("resnet50", 1, 0, gpu);
  auto eight = c.Inference("resnet50", 8, 0, gpu);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  ASSERT_TRUE(eight.ok());
  EXPECT_GT(one->total_ms(), 0);
  EXPECT_GT(eight->total_ms(), one->total_ms());
  EXPECT_LT(eight->total_ms(), 8 * one->total_ms());  // batching pays
  EXPECT_GT(eight->mem_bytes, one->mem_bytes);
  EXPECT_GT(one->compute_ms, 0);
  EXPECT_GT(one->memory_ms, 0);
  EXPECT_EQ(c.priced(), 2);
  ASSERT_TRUE(c.Inference("resnet50", 8, 0, gpu).ok());
  EXPECT_EQ(c.priced(), 2);
}

TEST(CostCache, TrainingCostsMoreThanInference) {
  CostCache c(Roofline());
  const GpuSpec& gpu = Gpu("A100-SXM4-80GB");
  auto inf = c.Inference("mobilenet_v2", 16, 0, gpu);
  auto train = c.Training("mobilenet_v2", 16, 0, gpu);
  ASSERT_TRUE(inf.ok());
  ASSERT_TRUE(train.ok());
  EXPECT_GT(train->total_ms(), 2 * inf->total_ms());
  EXPECT_GT(train->mem_bytes, inf->mem_bytes);
}

TEST(CostCache, UnknownModelListsTheBundledOnes) {
  CostCache c(Roofline());
  auto r = c.Inference("no_such_model", 1, 0, Gpu("T4"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("resnet50"), std::string::npos);
  EXPECT_FALSE(c.Inference("missing/file.onnx", 1, 0, Gpu("T4")).ok());
  EXPECT_NE(c.Inference("/dev/zero", 1, 0, Gpu("T4")).status().message().find("is not a regular file"),
            std::string::npos);
}

TEST(CostCache, ASeqOnlyAnHfConfigTakesIsAnError) {
  CostCache c(Roofline());
  auto r = c.Inference("resnet50", 1, 128, Gpu("T4"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("seq 128 cannot apply"), std::string::npos) << r.status().message();
  EXPECT_TRUE(c.Inference("bert", 1, 64, Gpu("T4")).ok());
}

TEST(ModelFamily, LeadingLetters) {
  EXPECT_EQ(ModelFamily("resnet50"), "resnet");
  EXPECT_EQ(ModelFamily("models/hf/gpt2_med.json"), "gpt");
}

}  // namespace
}  // namespace frugal::share
