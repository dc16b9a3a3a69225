#include "frugal/plan/decode.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "frugal/graph/importer.h"
#include "frugal/perf/test_catalog.h"
#include "frugal/plan/plan_test_util.h"

namespace frugal {
namespace {

// Builds step graphs of an HF config given as text, as the CLI does.
DecodeGraphFn FromConfig(std::string config) {
  return [config](int64_t batch, int64_t seq, int64_t past) {
    ImportOptions o;
    o.batch = batch;
    o.seq_len = seq;
    o.kv_cache_len = past;
    return ImportGraphFromContents("config.json", config, o, "hf");
  };
}

DecodeGraphFn FromFile(const std::string& name) {
  return [name](int64_t batch, int64_t seq, int64_t past) {
    ImportOptions o;
    o.batch = batch;
    o.seq_len = seq;
    o.kv_cache_len = past;
    return ImportGraph(std::string(FRUGAL_SOURCE_ROOT) + "/models/hf/" + name + ".json", o, "hf");
  };
}

DecodeOptions Opts(int64_t batch, int64_t p, int64_t g) {
  DecodeOptions o;
  o.batch = batch;
  o.prompt_len = p;
  o.generate_len = g;
  return o;
}

class DecodeTest : public ::testing::Test {
 protected:
  std::unique_ptr<OpTimeModel> roofline_ = NewRooflineModel();
  const GpuSpec& a100_ = testing::CatalogGpu("A100-SXM4-80GB");

  DecodePrediction Predict(const DecodeGraphFn& f, const DecodeOptions& o) {
    Result<DecodePrediction> r = PredictDecode(f, *roofline_, a100_, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : DecodePrediction();
  }
};

TEST(InterpolatedSum, ExactForAffineSteps) {
  // t(L) = 2 + 0.5 L over L = 10 .. 30, sampled at 10, 17, 30.
  auto t = [](int64_t l) { return 2 + 0.5 * static_cast<double>(l); };
  double exact = 0;
  for (int64_t l = 10; l <= 30; ++l) exact += t(l);
  EXPECT_DOUBLE_EQ(InterpolatedSum({{10, t(10)}, {17, t(17)}, {30, t(30)}}), exact);
  EXPECT_DOUBLE_EQ(InterpolatedSum({{5, 3.0}}), 3.0);
}

TEST_F(DecodeTest, DecodeStepsGrowWithTheCache) {
  const DecodePrediction r = Predict(FromConfig(testing::TinyLlama()), Opts(4, 64, 300));
  EXPECT_EQ(r.decode_steps, 299);
  ASSERT_EQ(r.samples.size(), 9u);
  EXPECT_EQ(r.samples.front().cache_len, 64);
  EXPECT_EQ(r.samples.back().cache_len, 64 + 298);
  for (size_t i = 1; i < r.samples.size(); ++i) {
    EXPECT_GE(r.samples[i].ms, r.samples[i - 1].ms) << r.samples[i].cache_len;
  }
  EXPECT_GT(r.decode_last_ms, r.decode_first_ms);
  EXPECT_GT(r.decode_mean_ms, r.decode_first_ms);
  EXPECT_LT(r.decode_mean_ms, r.decode_last_ms);
  EXPECT_DOUBLE_EQ(r.total_ms, r.prefill_ms + r.decode_total_ms);
  EXPECT_DOUBLE_EQ(r.ttft_ms, r.prefill_ms);
  EXPECT_DOUBLE_EQ(r.tokens_per_s, 4 * 300 / r.total_ms * 1000);
}

TEST_F(DecodeTest, SampledDecodeMatchesEveryStepPriced) {
  DecodeOptions every = Opts(2, 32, 120);
  every.cache_samples = 200;
  every.search_max_batch = false;
  DecodeOptions sampled = every;
  sampled.cache_samples = 5;
  const DecodePrediction a = Predict(FromConfig(testing::TinyLlama()), every);
  const DecodePrediction b = Predict(FromConfig(testing::TinyLlama()), sampled);
  EXPECT_EQ(a.samples.size(), 119u);
  EXPECT_EQ(b.samples.size(), 5u);
  EXPECT_NEAR(b.decode_total_ms, a.decode_total_ms, 0.01 * a.decode_total_ms);
  EXPECT_EQ(a.max_batch, -1);
}

TEST_F(DecodeTest, BatchRaisesTimeAndThroughput) {
  const DecodePrediction one = Predict(FromFile("llama2_7b"), Opts(1, 128, 32));
  const DecodePrediction eight = Predict(FromFile("llama2_7b"), Opts(8, 128, 32));
  EXPECT_GT(eight.total_ms, one.total_ms);
  EXPECT_GT(eight.prefill_ms, one.prefill_ms);
  // Decoding is weight-bound at small batch: 8 sequences cost far less
  // than 8 times one.
  EXPECT_LT(eight.decode_mean_ms, 2 * one.decode_mean_ms);
  EXPECT_GT(eight.decode_tokens_per_s, 4 * one.decode_tokens_per_s);
  EXPECT_GT(eight.tokens_per_s, one.tokens_per_s);
  EXPECT_EQ(eight.kv_cache_bytes, 8 * one.kv_cache_bytes);
  EXPECT_EQ(eight.weights_bytes, one.weights_bytes);
  EXPECT_GT(eight.peak_memory_bytes, one.peak_memory_bytes);
}

TEST_F(DecodeTest, KvCacheBytesFollowTheLayout) {
  // 2 (K and V) x layers x batch x (P + G) x kv_heads x head_dim x 4 bytes.
  const DecodePrediction mha = Predict(FromConfig(testing::TinyLlama(4, 8)), Opts(3, 50, 20));
  const DecodePrediction gqa = Predict(FromConfig(testing::TinyLlama(4, 4)), Opts(3, 50, 20));
  EXPECT_EQ(mha.kv_cache_bytes, int64_t{2} * 4 * 3 * 70 * 8 * 32 * 4);
  EXPECT_EQ(gqa.kv_cache_bytes * 2, mha.kv_cache_bytes);
  EXPECT_EQ(mha.kv_cache_bytes_per_token, int64_t{2} * 4 * 8 * 32 * 4);
  // Fewer KV heads: smaller K / V projections too, so fewer weights.
  EXPECT_LT(gqa.weights_bytes, mha.weights_bytes);
  EXPECT_LT(gqa.peak_memory_bytes, mha.peak_memory_bytes);
  // Llama-2-7B in fp32: 2 x 32 layers x 4096 x 4 bytes = 1 MiB per token,
  // so 4 GiB for its 4096 positions.
  const DecodePrediction l2 = Predict(FromFile("llama2_7b"), Opts(1, 2048, 2048));
  EXPECT_EQ(l2.kv_cache_bytes_per_token, 1024 * 1024);
  EXPECT_EQ(l2.kv_cache_bytes, int64_t{4096} * 1024 * 1024);
}

TEST_F(DecodeTest, LargestBatchIsExact) {
  GpuSpec small = a100_;
  small.mem_gib = 2.0;  // 1 GiB usable after the reserve
  const DecodeGraphFn f = FromConfig(testing::TinyLlama(4, 8, 256));
  Result<DecodePrediction> r = PredictDecode(f, *roofline_, small, Opts(1, 256, 256));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_GT(r->max_batch, 1);
  EXPECT_FALSE(r->max_batch_capped);
  const double usable = 1.0 * 1024 * 1024 * 1024;
  Result<int64_t> at = DecodeMemoryBytes(f, r->max_batch, 256, 256);
  Result<int64_t> above = DecodeMemoryBytes(f, r->max_batch + 1, 256, 256);
  ASSERT_TRUE(at.ok() && above.ok());
  EXPECT_LE(static_cast<double>(*at), usable);
  EXPECT_GT(static_cast<double>(*above), usable);
  EXPECT_TRUE(r->fits);
  // A batch beyond the largest does not fit.
  Result<DecodePrediction> too_many =
      PredictDecode(f, *roofline_, small, Opts(r->max_batch + 1, 256, 256));
  ASSERT_TRUE(too_many.ok());
  EXPECT_FALSE(too_many->fits);
  EXPECT_EQ(too_many->max_batch, r->max_batch);
}

TEST_F(DecodeTest, NothingFitsGivesZero) {
  GpuSpec tiny = a100_;
  tiny.mem_gib = 1.0;  // all of it reserved
  Result<DecodePrediction> r =
      PredictDecode(FromConfig(testing::TinyLlama()), *roofline_, tiny, Opts(1, 16, 16));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->fits);
  EXPECT_EQ(r->max_batch, 0);
}

// Physics: at batch 1 a decode step reads every weight once, so on A100 a
// 7B fp32 model (27 GB) needs at least weights / bandwidth per token. The
// roofline stays within 2x of that bound (launches and the small ops make
// the rest). The bundled efficiency model must respect the bound; it
// prices M = 1 GEMVs and tiny broadcast ops well above it (docs/predict.md,
// "LLM inference"), so only a loose ceiling is asserted for it.
TEST_F(DecodeTest, SevenBillionDecodeIsBoundByReadingTheWeights) {
  struct Case {
    std::unique_ptr<OpTimeModel> model;
    double ceiling;  // times the bound
  };
  std::vector<Case> cases;
  cases.push_back({NewRooflineModel(), 2.0});
  Result<std::unique_ptr<OpTimeModel>> bundled = OpenOpTimeModel("");
  ASSERT_TRUE(bundled.ok()) << bundled.status().ToString();
  cases.push_back({std::move(bundled).value(), 6.0});
  for (const Case& c : cases) {
    DecodeOptions o = Opts(1, 128, 128);
    o.search_max_batch = false;
    Result<DecodePrediction> r = PredictDecode(FromFile("llama2_7b"), *c.model, a100_, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const double bound_ms =
        static_cast<double>(r->weights_bytes) / (a100_.mem_bw_gbps * 1e9) * 1e3;
    EXPECT_GT(r->weights_bytes, int64_t{26'000'000'000});
    EXPECT_GE(r->decode_mean_ms, bound_ms) << c.model->name();
    EXPECT_LE(r->decode_mean_ms, c.ceiling * bound_ms) << c.model->name();
  }
}

TEST_F(DecodeTest, BadInputIsRefused) {
  const DecodeGraphFn f = FromConfig(testing::TinyLlama());  // 512 positions
  auto message = [&](const DecodeOptions& o) {
    Result<DecodePrediction> r = PredictDecode(f, *roofline_, a100_, o);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_NE(message(Opts(1, 0, 5)).find("--prompt"), std::string::npos);
  EXPECT_NE(message(Opts(1, 5, 0)).find("--generate"), std::string::npos);
  EXPECT_NE(message(Opts(0, 5, 5)).find("--batch"), std::string::npos);
  const std::string too_long = message(Opts(1, 500, 13));
  EXPECT_NE(too_long.find("--prompt 500 + --generate 13 = 513 tokens"), std::string::npos)
      << too_long;
  EXPECT_NE(too_long.find("max_position_embeddings (512)"), std::string::npos) << too_long;
  EXPECT_TRUE(PredictDecode(f, *roofline_, a100_, Opts(1, 500, 12)).ok());
  const std::string prompt = message(Opts(1, 600, 1));
  EXPECT_NE(prompt.find("--prompt 600"), std::string::npos) << prompt;
  // An encoder has no cache to decode with.
  Result<DecodePrediction> bert = PredictDecode(FromFile("bert"), *roofline_, a100_, Opts(1, 8, 8));
  ASSERT_FALSE(bert.ok());
  EXPECT_NE(bert.status().message().find("encoder-only"), std::string::npos);
}

TEST_F(DecodeTest, OneGeneratedTokenIsThePrefillAlone) {
  const DecodePrediction r = Predict(FromConfig(testing::TinyLlama()), Opts(2, 40, 1));
  EXPECT_EQ(r.decode_steps, 0);
  EXPECT_EQ(r.decode_total_ms, 0);
  EXPECT_DOUBLE_EQ(r.total_ms, r.prefill_ms);
  EXPECT_GT(r.decode_first_ms, 0);  // the next step's price, for reference
  EXPECT_EQ(r.kv_cache_bytes, int64_t{2} * 4 * 2 * 41 * 8 * 32 * 4);
}

TEST_F(DecodeTest, Deterministic) {
  const DecodePrediction a = Predict(FromConfig(testing::TinyLlama()), Opts(3, 30, 40));
  const DecodePrediction b = Predict(FromConfig(testing::TinyLlama()), Opts(3, 30, 40));
  EXPECT_EQ(a.total_ms, b.total_ms);
  EXPECT_EQ(a.max_batch, b.max_batch);
  EXPECT_EQ(a.peak_memory_bytes, b.peak_memory_bytes);
}

}  // namespace
}  // namespace frugal
