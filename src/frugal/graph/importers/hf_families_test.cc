// The architectures added after GPT-2 / BERT / OPT / LLaMA / Switch: real
// Hugging Face configs (models/hf, see SOURCES.md) against the parameter
// counts transformers reports, and the costs each family's twist implies.
#include <gtest/gtest.h>

#include <string>

#include "frugal/graph/importer.h"
#include "frugal/graph/importers/hf_test_util.h"
#include "frugal/graph/importers/importers.h"
#include "frugal/graph/op_cost.h"
#include "frugal/graph/test_graphs.h"

namespace frugal {
namespace {

using testing::FindOp;
using testing::ImportHfConfig;
using testing::TotalFlops;

// Published totals (transformers' num_parameters()) must match within 1%;
// our graphs match exactly.
void ExpectParameters(const OpGraph& g, int64_t published) {
  const int64_t got = TotalParameters(g);
  EXPECT_NEAR(static_cast<double>(got), static_cast<double>(published), 0.01 * published);
  EXPECT_EQ(got, published);
}

TEST(HfFamilies, Llama3EightBillion) {
  Result<OpGraph> g = ImportHfConfig("llama3_8b", 1, 128);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectParameters(*g, 8'030'261'248);
  // Grouped-query attention: 8 KV heads of 128.
  EXPECT_EQ(FindOp(*g, "layers.0.self_attn.k_proj")->outputs[0].shape,
            (std::vector<int64_t>{1, 128, 1024}));
}

TEST(HfFamilies, MistralSlidingWindowBoundsAttention) {
  Result<OpGraph> g = ImportHfConfig("mistral_7b", 1, 8192);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectParameters(*g, 7'241'732'096);
  // With S = 8192 > window 4096 each query scores 4096 keys.
  const Op* scores = FindOp(*g, "layers.0.self_attn.scores");
  ASSERT_NE(scores, nullptr);
  EXPECT_EQ(scores->outputs[0].shape, (std::vector<int64_t>{1, 32, 8192, 4096}));
  EXPECT_DOUBLE_EQ(scores->flops, 2.0 * 32 * 8192 * 4096 * 128);
  const Op* ctx = FindOp(*g, "layers.0.self_attn.context");
  EXPECT_DOUBLE_EQ(ctx->flops, 2.0 * 32 * 8192 * 4096 * 128);
  EXPECT_EQ(ctx->outputs[0].shape, (std::vector<int64_t>{1, 32, 8192, 128}));
  // Below the window, attention is the full causal S x S.
  Result<OpGraph> short_seq = ImportHfConfig("mistral_7b", 1, 1024);
  ASSERT_TRUE(short_seq.ok());
  EXPECT_EQ(FindOp(*short_seq, "layers.0.self_attn.scores")->outputs[0].shape,
            (std::vector<int64_t>{1, 32, 1024, 1024}));
  // Doubling S past the window doubles attention FLOPs, not quadruples.
  Result<OpGraph> longer = ImportHfConfig("mistral_7b", 1, 16384);
  ASSERT_TRUE(longer.ok());
  EXPECT_DOUBLE_EQ(FindOp(*longer, "layers.0.self_attn.scores")->flops, 2 * scores->flops);
}

TEST(HfFamilies, Qwen2HasQkvBiasButNoOutputBias) {
  Result<OpGraph> g = ImportHfConfig("qwen2_7b", 1, 256);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectParameters(*g, 7'615'616'512);
  for (const char* proj : {"q_proj", "k_proj", "v_proj"}) {
    const Op* op = FindOp(*g, std::string("layers.3.self_attn.") + proj);
    ASSERT_NE(op, nullptr) << proj;
    ASSERT_EQ(op->inputs.size(), 3u) << proj;
    EXPECT_EQ(op->inputs[2].name, std::string("layers.3.self_attn.") + proj + ".bias");
  }
  EXPECT_EQ(FindOp(*g, "layers.3.self_attn.o_proj")->inputs.size(), 2u);
}

TEST(HfFamilies, Qwen2SlidingWindowOnlyAboveMaxWindowLayers) {
  const char* text =
      R"({"model_type": "qwen2", "hidden_size": 64, "num_hidden_layers": 4,
      "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 96,
      "vocab_size": 100, "max_position_embeddings": 128, "use_sliding_window": true,
      "sliding_window": 16, "max_window_layers": 2})";
  ImportOptions o;
  o.seq_len = 64;
  Result<OpGraph> g = testing::ImportHfText("qwen2_window.json", text, o);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(FindOp(*g, "layers.1.self_attn.scores")->outputs[0].shape.back(), 64);
  EXPECT_EQ(FindOp(*g, "layers.2.self_attn.scores")->outputs[0].shape.back(), 16);
  EXPECT_EQ(FindOp(*g, "layers.3.self_attn.scores")->outputs[0].shape.back(), 16);
}

TEST(HfFamilies, MixtralCountsAllExpertsButEachTokenRunsTopK) {
  Result<OpGraph> g = ImportHfConfig("mixtral_8x7b", 2, 64);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectParameters(*g, 46'702'792'704);
  const int64_t h = 4096, inter = 14336, tokens = 2 * 64, top_k = 2, experts = 8;
  int64_t rows = 0;
  double expert_flops = 0;
  for (int e = 0; e < experts; ++e) {
    const std::string p = "layers.5.block_sparse_moe.experts." + std::to_string(e) + ".";
    const Op* w1 = FindOp(*g, p + "w1");
    ASSERT_NE(w1, nullptr) << p;
    rows += w1->inputs[0].shape[0];
    for (const char* w : {"w1", "w2", "w3"}) expert_flops += FindOp(*g, p + w)->flops;
  }
  EXPECT_EQ(rows, tokens * top_k);
  // k = 2 expert MLPs per token: twice a dense SwiGLU MLP's 3 matmuls.
  EXPECT_DOUBLE_EQ(expert_flops, top_k * 3 * 2.0 * tokens * h * inter);
  const Op* gate = FindOp(*g, "layers.5.block_sparse_moe.gate");
  ASSERT_NE(gate, nullptr);
  EXPECT_EQ(gate->outputs[0].shape, (std::vector<int64_t>{2, 64, experts}));
  EXPECT_EQ(FindOp(*g, "layers.5.block_sparse_moe.topk")->outputs[0].shape,
            (std::vector<int64_t>{2, 64, top_k}));
  EXPECT_EQ(FindOp(*g, "layers.5.mlp.gate_proj"), nullptr);
}

TEST(HfFamilies, MixtralRejectsMoreActiveThanLocalExperts) {
  Result<OpGraph> g = testing::ImportHfText("mixtral_bad.json",
                                 R"({"model_type": "mixtral", "hidden_size": 64,
      "num_hidden_layers": 1, "num_attention_heads": 4, "intermediate_size": 96,
      "vocab_size": 100, "num_local_experts": 2, "num_experts_per_tok": 3})");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(g.status().message().find("num_experts_per_tok (3) exceeds"), std::string::npos)
      << g.status().message();
}

// expert_capacity defaults to transformers' 64 and must be positive.
TEST(HfFamilies, SwitchExpertCapacityDefaultsTo64) {
  const std::string dims = R"("model_type": "switch_transformers", "d_model": 32,
      "d_ff": 64, "d_kv": 8, "num_heads": 4, "vocab_size": 100, "num_layers": 2,
      "num_experts": 2, "encoder_sparse_step": 1, "decoder_sparse_step": 1)";
  auto rows = [](const OpGraph& g) -> int64_t {
    const Op* wi = FindOp(g, "encoder.block.1.layer.1.mlp.experts.expert_0.wi");
    return wi ? wi->inputs[0].shape[0] : -1;
  };
  ImportOptions o;
  o.batch = 2;
  o.seq_len = 512;
  Result<OpGraph> g = testing::ImportHfText("switch_default.json", "{" + dims + "}", o);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(rows(*g), 2 * 64);
  g = testing::ImportHfText("switch_cap.json", "{" + dims + R"(, "expert_capacity": 1000})", o);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(rows(*g), 2 * 512 / 2);
  g = testing::ImportHfText("switch_bad.json", "{" + dims + R"(, "expert_capacity": 0})", o);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("expert_capacity"), std::string::npos)
      << g.status().message();
}

TEST(HfFamilies, T5SmallIsTiedWithRelativeBias) {
  Result<OpGraph> g = ImportHfConfig("t5_small", 1, 128);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectParameters(*g, 60'506'624);
  ASSERT_NE(FindOp(*g, "encoder.block.0.layer.1.mlp.wi"), nullptr);
  ASSERT_NE(FindOp(*g, "encoder.block.0.layer.0.SelfAttention.relative_attention_bias"),
            nullptr);
  ASSERT_NE(FindOp(*g, "decoder.block.0.layer.0.SelfAttention.relative_attention_bias"),
            nullptr);
  EXPECT_EQ(FindOp(*g, "decoder.block.1.layer.0.SelfAttention.relative_attention_bias"),
            nullptr);
  EXPECT_EQ(FindOp(*g, "lm_head")->inputs[1].name, "shared.weight");
  EXPECT_EQ(FindOp(*g, "encoder.block.0.layer.1.mlp.act")->type, "relu");
}

TEST(HfFamilies, T5V11IsGatedGeluAndUntied) {
  Result<OpGraph> g = ImportHfConfig("t5_v1_1_base", 1, 128);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectParameters(*g, 247'577'856);
  ASSERT_NE(FindOp(*g, "encoder.block.0.layer.1.mlp.wi_0"), nullptr);
  ASSERT_NE(FindOp(*g, "encoder.block.0.layer.1.mlp.wi_1"), nullptr);
  EXPECT_EQ(FindOp(*g, "encoder.block.0.layer.1.mlp.wi"), nullptr);
  EXPECT_EQ(FindOp(*g, "decoder.block.0.layer.2.mlp.act")->type, "gelu_new");
  EXPECT_EQ(FindOp(*g, "lm_head")->inputs[1].name, "lm_head.weight");
  EXPECT_EQ(FindOp(*g, "lm_head_scale"), nullptr);
}

TEST(HfFamilies, T5RejectsMalformedFeedForwardProj) {
  Result<OpGraph> g = testing::ImportHfText("t5_bad.json",
                                 R"({"model_type": "t5", "d_model": 8, "d_ff": 16,
      "d_kv": 4, "num_heads": 2, "num_layers": 1, "vocab_size": 10,
      "feed_forward_proj": "very-gated-gelu"})");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("feed_forward_proj 'very-gated-gelu'"),
            std::string::npos)
      << g.status().message();
}

TEST(HfFamilies, VitClassifierAndBaseModel) {
  Result<OpGraph> g = ImportHfConfig("vit_base_patch16_224", 4);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectParameters(*g, 86'567'656);  // ViTForImageClassification
  EXPECT_EQ(g->seq_len, 197);        // 14 x 14 patches + the class token
  const Op* patch = FindOp(*g, "embeddings.patch_embeddings.projection");
  ASSERT_NE(patch, nullptr);
  EXPECT_EQ(patch->outputs[0].shape, (std::vector<int64_t>{4, 768, 14, 14}));
  // Conv: 2 * outputs * (3 * 16 * 16) MACs, plus the bias.
  EXPECT_DOUBLE_EQ(patch->flops, 2.0 * 4 * 768 * 196 * 768 + 4 * 768 * 196);
  EXPECT_EQ(FindOp(*g, "classifier")->outputs[0].shape, (std::vector<int64_t>{4, 1000}));
  EXPECT_EQ(FindOp(*g, "encoder.layer.0.attention.attention.scores")->outputs[0].shape,
            (std::vector<int64_t>{4, 12, 197, 197}));
  Result<OpGraph> base = ImportHfConfig("vit_base_patch16_224", 1, 0, ModelHead::kBase);
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  ExpectParameters(*base, 86'389'248);  // ViTModel, with its pooler
  EXPECT_EQ(FindOp(*base, "classifier"), nullptr);
}

TEST(HfFamilies, VitRefusesWhatDoesNotApply) {
  Result<OpGraph> seq = ImportHfConfig("vit_base_patch16_224", 1, 128);
  ASSERT_FALSE(seq.ok());
  EXPECT_NE(seq.status().message().find("--seq does not apply to vit"), std::string::npos);
  Result<OpGraph> lm = ImportHfConfig("vit_base_patch16_224", 1, 0, ModelHead::kLm);
  ASSERT_FALSE(lm.ok());
  EXPECT_EQ(lm.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(lm.status().message().find("no language-model head"), std::string::npos);
}

TEST(HfFamilies, OtherModelTypesAreNamedInTheError) {
  Result<OpGraph> g = testing::ImportHfText("gemma.json", R"({"model_type": "gemma2", "hidden_size": 8})");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kUnimplemented);
  const std::string m = g.status().message();
  EXPECT_NE(m.find("model_type 'gemma2' not supported"), std::string::npos) << m;
  for (const char* t : {"mistral", "qwen2", "mixtral", "t5", "vit"}) {
    EXPECT_NE(m.find(t), std::string::npos) << t;
  }
}

}  // namespace
}  // namespace frugal
