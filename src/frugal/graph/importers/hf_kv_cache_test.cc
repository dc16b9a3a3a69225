// One step of cached generation (ImportOptions::kv_cache_len): the cache
// tensors and their growth, attention spanning the cached keys, grouped-query
// cache widths, and the models and formats that refuse a cache.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frugal/graph/importer.h"
#include "frugal/graph/importers/hf_test_util.h"
#include "frugal/graph/op_cost.h"
#include "frugal/graph/test_graphs.h"
#include "frugal/graph/training.h"

namespace frugal {
namespace {

using testing::FindOp;
using Shape = std::vector<int64_t>;

Result<OpGraph> Step(const std::string& name, int64_t batch, int64_t seq, int64_t past) {
  ImportOptions o;
  o.batch = batch;
  o.seq_len = seq;
  o.kv_cache_len = past;
  return ImportGraph(testing::HfConfigPath(name), o, "hf");
}

// The cache ops ("kv_cache" = 1) and what they hold.
struct Cache {
  int ops = 0;
  int64_t past_bytes = 0;   // the [B, kv, L, d] tensors read
  int64_t total_bytes = 0;  // the [B, kv, L + S, d] tensors written
};

Cache CacheOf(const OpGraph& g) {
  Cache c;
  for (const Op& op : g.ops) {
    if (op.attrs.GetInt("kv_cache", 0) != 1) continue;
    ++c.ops;
    EXPECT_EQ(op.inputs[0].role, TensorRole::kBuffer) << op.name;
    c.past_bytes += op.inputs[0].Bytes();
    c.total_bytes += op.outputs[0].Bytes();
  }
  return c;
}

double AttentionFlops(const OpGraph& g) {
  double f = 0;
  for (const Op& op : g.ops) {
    if (op.name.ends_with(".scores") || op.name.ends_with(".context")) f += op.flops;
  }
  return f;
}

TEST(HfKvCache, NoCacheLeavesTheGraphAsBefore) {
  Result<OpGraph> g = Step("llama2_7b", 1, 64, 0);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(CacheOf(*g).ops, 0);
  EXPECT_EQ(FindOp(*g, "layers.0.self_attn.scores")->outputs[0].shape, (Shape{1, 32, 64, 64}));
}

TEST(HfKvCache, LlamaDecodeStepShapes) {
  Result<OpGraph> g = Step("llama2_7b", 2, 1, 100);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const Op* cat = FindOp(*g, "layers.0.self_attn.key_cache");
  ASSERT_NE(cat, nullptr);
  EXPECT_EQ(cat->kind, OpKind::kConcat);
  EXPECT_EQ(cat->inputs[0].shape, (Shape{2, 32, 100, 128}));
  EXPECT_EQ(cat->inputs[1].shape, (Shape{2, 32, 1, 128}));
  EXPECT_EQ(cat->outputs[0].shape, (Shape{2, 32, 101, 128}));
  // torch.cat reads the cache and the new rows and writes the grown cache.
  EXPECT_EQ(cat->bytes_read, (2 * 32 * 101 * 128) * 4);
  EXPECT_EQ(cat->bytes_written, (2 * 32 * 101 * 128) * 4);
  EXPECT_EQ(FindOp(*g, "layers.0.self_attn.scores")->outputs[0].shape, (Shape{2, 32, 1, 101}));
  EXPECT_EQ(FindOp(*g, "layers.0.self_attn.softmax")->outputs[0].shape, (Shape{2, 32, 1, 101}));
  EXPECT_EQ(FindOp(*g, "layers.0.self_attn.context")->outputs[0].shape, (Shape{2, 32, 1, 128}));
  const Cache c = CacheOf(*g);
  EXPECT_EQ(c.ops, 2 * 32);
  EXPECT_EQ(c.total_bytes, int64_t{2} * 32 * 2 * 101 * 32 * 128 * 4);
  EXPECT_EQ(c.past_bytes, int64_t{2} * 32 * 2 * 100 * 32 * 128 * 4);
  // The weights do not change with the cache.
  Result<OpGraph> plain = Step("llama2_7b", 2, 1, 0);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(TotalParameters(*g), TotalParameters(*plain));
}

TEST(HfKvCache, AttentionFlopsGrowLinearlyInTheCache) {
  for (const char* model : {"gpt2_med", "opt", "llama2_7b", "qwen2_7b"}) {
    double f[3];
    const int64_t past[3] = {100, 300, 500};
    for (int i = 0; i < 3; ++i) {
      Result<OpGraph> g = Step(model, 1, 1, past[i]);
      ASSERT_TRUE(g.ok()) << model << ": " << g.status().ToString();
      f[i] = AttentionFlops(*g);
    }
    EXPECT_GT(f[1], f[0]) << model;
    EXPECT_NEAR(f[2] - f[1], f[1] - f[0], 1e-9 * f[2]) << model;
    // Per layer and head: 2 d (L + 1) for the scores and as much for the context.
  }
  Result<OpGraph> a = Step("llama2_7b", 1, 1, 100), b = Step("llama2_7b", 1, 1, 200);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_DOUBLE_EQ(AttentionFlops(*b) - AttentionFlops(*a), 32.0 * 32 * 2 * (2.0 * 128 * 100));
}

TEST(HfKvCache, GroupedQueryAttentionShrinksTheCache) {
  // Llama-3-8B: 8 KV heads of 128 beside 32 query heads; Llama-2-7B keeps 32.
  Result<OpGraph> l3 = Step("llama3_8b", 1, 1, 1000), l2 = Step("llama2_7b", 1, 1, 1000);
  ASSERT_TRUE(l3.ok() && l2.ok()) << l3.status().ToString();
  const Op* cat = FindOp(*l3, "layers.0.self_attn.value_cache");
  ASSERT_NE(cat, nullptr);
  EXPECT_EQ(cat->outputs[0].shape, (Shape{1, 8, 1001, 128}));
  EXPECT_EQ(CacheOf(*l3).total_bytes, int64_t{2} * 32 * 1001 * 8 * 128 * 4);
  EXPECT_EQ(CacheOf(*l3).total_bytes * 4, CacheOf(*l2).total_bytes);
  // repeat_kv widens the cached keys to the query heads after the cache.
  EXPECT_EQ(FindOp(*l3, "layers.0.self_attn.scores")->outputs[0].shape, (Shape{1, 32, 1, 1001}));
}

TEST(HfKvCache, EveryDecoderFamilyHasACache) {
  struct Case {
    const char* model;
    int layers;
    int64_t kv_width;  // kv_heads * head_dim
  };
  for (const Case& c : {Case{"gpt2_med", 24, 1024}, Case{"gpt3_xl", 24, 3072},
                        Case{"opt", 1, 512}, Case{"mistral_7b", 32, 1024},
                        Case{"qwen2_7b", 28, 512}, Case{"mixtral_8x7b", 32, 1024}}) {
    Result<OpGraph> g = Step(c.model, 3, 2, 50);
    ASSERT_TRUE(g.ok()) << c.model << ": " << g.status().ToString();
    const Cache k = CacheOf(*g);
    EXPECT_EQ(k.ops, 2 * c.layers) << c.model;
    EXPECT_EQ(k.total_bytes, int64_t{2} * c.layers * 3 * 52 * c.kv_width * 4) << c.model;
  }
}

TEST(HfKvCache, SlidingWindowCapsTheKeysNotTheCache) {
  // Mistral: window 4096. A decode step over 5000 cached tokens scores 4096.
  Result<OpGraph> g = Step("mistral_7b", 1, 1, 5000);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(FindOp(*g, "layers.0.self_attn.scores")->outputs[0].shape, (Shape{1, 32, 1, 4096}));
  EXPECT_EQ(FindOp(*g, "layers.0.self_attn.key_cache")->outputs[0].shape,
            (Shape{1, 8, 5001, 128}));
  Result<OpGraph> short_cache = Step("mistral_7b", 1, 1, 100);
  ASSERT_TRUE(short_cache.ok());
  EXPECT_EQ(FindOp(*short_cache, "layers.0.self_attn.scores")->outputs[0].shape,
            (Shape{1, 32, 1, 101}));
}

TEST(HfKvCache, TheCacheCountsInInferenceMemory) {
  Result<OpGraph> small = Step("llama2_7b", 1, 1, 100), big = Step("llama2_7b", 1, 1, 2000);
  ASSERT_TRUE(small.ok() && big.ok());
  const int64_t ms = EstimateStepMemory(InferenceGraph(*small)).total_bytes;
  const int64_t mb = EstimateStepMemory(InferenceGraph(*big)).total_bytes;
  // The persistent cache grows by 1900 tokens of 2 x 32 layers x 4096 floats.
  EXPECT_GE(mb - ms, int64_t{1900} * 2 * 32 * 4096 * 4);
}

TEST(HfKvCache, PositionsBeyondTheModelAreRefused) {
  Result<OpGraph> g = Step("gpt2_med", 1, 1, 1024);  // n_positions 1024
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("1024 cached + 1 new tokens exceed n_positions (1024)"),
            std::string::npos)
      << g.status().message();
  EXPECT_TRUE(Step("gpt2_med", 1, 1, 1023).ok());
  Result<OpGraph> l = Step("llama2_7b", 1, 10, 4090);
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.status().message().find("max_position_embeddings (4096)"), std::string::npos);
  EXPECT_FALSE(Step("llama2_7b", 1, 1, -1).ok());
}

TEST(HfKvCache, EncodersAndEncoderDecodersRefuseACache) {
  for (const char* model : {"bert", "vit_base_patch16_224"}) {
    Result<OpGraph> g = Step(model, 1, 0, 10);
    ASSERT_FALSE(g.ok()) << model;
    EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(g.status().message().find("encoder-only"), std::string::npos)
        << g.status().message();
    EXPECT_NE(g.status().message().find(model), std::string::npos);
  }
  for (const char* model : {"t5_small", "switchxl4"}) {
    Result<OpGraph> g = Step(model, 1, 8, 10);
    ASSERT_FALSE(g.ok()) << model;
    EXPECT_NE(g.status().message().find("encoder-decoder"), std::string::npos)
        << g.status().message();
  }
}

TEST(HfKvCache, OtherFormatsRefuseACache) {
  const std::string path = ::testing::TempDir() + "kv_graph.json";
  // A frugal graph JSON cannot grow a cache: refused before it is read.
  ASSERT_TRUE(WriteStringToFile(path, "{}").ok());
  ImportOptions o;
  o.kv_cache_len = 4;
  Result<OpGraph> g = ImportGraph(path, o, "frugal");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("HF decoder configs only"), std::string::npos)
      << g.status().message();
}

}  // namespace
}  // namespace frugal
