#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <tuple>

#include "frugal/base/file_io.h"
#include "frugal/graph/importer.h"
#include "frugal/graph/importers/hf_test_util.h"
#include "frugal/graph/importers/importers.h"
#include "frugal/graph/op_cost.h"
#include "frugal/graph/test_graphs.h"

namespace frugal {
namespace {

const char* const kConfigs[] = {
    "bert",    "bert_large", "gpt2_med", "gpt2_large", "gpt2_xl",
    "gpt3_xl", "gpt3_27",    "gpt3_67",  "gpt3_13",    "opt",
    "opt_13",  "llama2_7b",  "switchxl4"};

// models/hf holds the bundled copies of the shared folder's
// models/hf-configs, so the tests run from a bare checkout.
std::string ConfigPath(const std::string& name) { return testing::HfConfigPath(name); }

using testing::ImportHfConfig;

using testing::FindOp;
using testing::TotalFlops;

TEST(HfConfigImporter, Gpt2LargeHasTiedHeadAndExactParameterCount) {
  Result<OpGraph> g = ImportHfConfig("gpt2_large");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  // HF reports 774,030,080 for gpt2-large: wte + wpe + 36 * (12h^2 + 13h) +
  // ln_f, with the LM head sharing wte.
  EXPECT_EQ(TotalParameters(*g), 774'030'080);
  const Op* head = FindOp(*g, "lm_head");
  ASSERT_NE(head, nullptr);
  ASSERT_EQ(head->inputs.size(), 2u);
  EXPECT_EQ(head->inputs[1].name, "wte.weight");
  EXPECT_EQ(head->param_count, 0);  // counted once, on the embedding
  EXPECT_EQ(head->outputs[0].shape, (std::vector<int64_t>{1, 1024, 50257}));
  // MatMul FLOPs take K from the activation: 2 * tokens * h * vocab.
  EXPECT_DOUBLE_EQ(head->flops, 2.0 * 1024 * 1280 * 50257);
  EXPECT_EQ(g->name, "gpt2_large");
  EXPECT_EQ(g->source_format, "hf");
  EXPECT_EQ(g->batch, 1);
  EXPECT_EQ(g->seq_len, 1024);
}

TEST(HfConfigImporter, Gpt2MediumParameterCount) {
  Result<OpGraph> g = ImportHfConfig("gpt2_med");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(TotalParameters(*g), 354'823'168);  // HF: gpt2-medium
}

TEST(HfConfigImporter, BertBaseWithLmHeadParameterCount) {
  Result<OpGraph> g = ImportHfConfig("bert");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const int64_t h = 768, inter = 3072, vocab = 30522, pos = 512, types = 2,
                layers = 12;
  // BertModel without pooler (BertLMHeadModel drops it).
  int64_t embeddings = (vocab + pos + types) * h + 2 * h;
  int64_t layer =
      4 * (h * h + h) + 2 * h + (h * inter + inter) + (inter * h + h) + 2 * h;
  // transform dense + LayerNorm + decoder bias; the decoder weight is tied.
  int64_t head = (h * h + h) + 2 * h + vocab;
  EXPECT_EQ(embeddings + layers * layer + head, 109'514'298);
  EXPECT_EQ(TotalParameters(*g), 109'514'298);
  EXPECT_EQ(g->seq_len, 512);  // max_position_embeddings
}

TEST(HfConfigImporter, Llama2SevenBillionExact) {
  Result<OpGraph> g = ImportHfConfig("llama2_7b", 1, 128);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(TotalParameters(*g), 6'738'415'616);
  const Op* head = FindOp(*g, "lm_head");
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->inputs[1].name, "lm_head.weight");  // untied
}

TEST(HfConfigImporter, LlamaGroupedQueryAttentionShrinksKeyValue) {
  const char* text =
      R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 96,
      "vocab_size": 100, "max_position_embeddings": 32})";
  Result<OpGraph> g = testing::ImportHfText("gqa.json", text);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const int64_t h = 64, kv = 2 * (64 / 8), inter = 96, vocab = 100;
  int64_t layer = 2 * h * h + 2 * h * kv + 3 * h * inter + 2 * h;
  EXPECT_EQ(TotalParameters(*g), 2 * vocab * h + 2 * layer + h);
  const Op* k = FindOp(*g, "layers.0.self_attn.k_proj");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->outputs[0].shape, (std::vector<int64_t>{1, 32, kv}));
  // Scores run over all 8 query heads after repeat_kv.
  const Op* scores = FindOp(*g, "layers.0.self_attn.scores");
  ASSERT_NE(scores, nullptr);
  EXPECT_EQ(scores->outputs[0].shape, (std::vector<int64_t>{1, 8, 32, 32}));
}

TEST(HfConfigImporter, OptParameterCounts) {
  Result<OpGraph> g = ImportHfConfig("opt_13", 1, 64);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(TotalParameters(*g), 1'315'758'080);  // HF: facebook/opt-1.3b
  // opt.json has word_embed_proj_dim != hidden_size: project_in / out.
  g = ImportHfConfig("opt", 1, 64);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_NE(FindOp(*g, "project_in"), nullptr);
  ASSERT_NE(FindOp(*g, "project_out"), nullptr);
  const int64_t h = 512, proj = 2048, ffn = 2048, vocab = 50272, pos = 2048;
  int64_t layer = 4 * (h * h + h) + 4 * h + (h * ffn + ffn) + (ffn * h + h);
  EXPECT_EQ(TotalParameters(*g),
            vocab * proj + 2 * proj * h + (pos + 2) * h + layer + 2 * h);
}

// transformers' router keeps at most expert_capacity (64 in switchxl4)
// tokens per expert and sequence: at S = 512 each of the 4 experts runs 64
// rows per sequence, not 128, and the sparse layer costs half a dense FFN.
TEST(HfConfigImporter, SwitchExpertsStopAtTheirCapacity) {
  for (int64_t batch : {1, 3}) {
    Result<OpGraph> g = ImportHfConfig("switchxl4", batch, 512);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    double dense = FindOp(*g, "encoder.block.0.layer.1.mlp.wi")->flops;
    double experts = 0;
    for (int e = 0; e < 4; ++e) {
      const Op* wi = FindOp(
          *g, "encoder.block.1.layer.1.mlp.experts.expert_" + std::to_string(e) + ".wi");
      ASSERT_NE(wi, nullptr);
      EXPECT_EQ(wi->inputs[0].shape, (std::vector<int64_t>{64 * batch, 1024}));
      experts += wi->flops;
    }
    EXPECT_DOUBLE_EQ(experts, dense / 2);
  }
}

TEST(HfConfigImporter, SwitchCountsEveryExpertButRunsEachTokenOnce) {
  Result<OpGraph> g = ImportHfConfig("switchxl4", 1, 64);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const int64_t d = 1024, ff = 16384, inner = 32 * 128, vocab = 32128,
                experts = 4;
  const int64_t attn = 4 * d * inner, dense = 2 * d * ff,
                sparse = d * experts + experts * dense;
  // 24 layers per stack, odd ones sparse; the decoder adds cross-attention
  // and a third norm; one relative bias table per stack; shared embedding
  // tied to the LM head.
  int64_t encoder =
      24 * (attn + 2 * d) + 12 * dense + 12 * sparse + 32 * 32 + d;
  int64_t decoder =
      24 * (2 * attn + 3 * d) + 12 * dense + 12 * sparse + 32 * 32 + d;
  EXPECT_EQ(TotalParameters(*g), vocab * d + encoder + decoder);

  double dense_flops = FindOp(*g, "encoder.block.0.layer.1.mlp.wi")->flops +
                       FindOp(*g, "encoder.block.0.layer.1.mlp.wo")->flops;
  double expert_flops = 0;
  for (int e = 0; e < experts; ++e) {
    std::string p =
        "encoder.block.1.layer.1.mlp.experts.expert_" + std::to_string(e);
    const Op* wi = FindOp(*g, p + ".wi");
    ASSERT_NE(wi, nullptr) << p;
    EXPECT_EQ(wi->inputs[0].shape, (std::vector<int64_t>{64 / experts, d}));
    expert_flops += wi->flops + FindOp(*g, p + ".wo")->flops;
  }
  EXPECT_DOUBLE_EQ(expert_flops, dense_flops);
  EXPECT_EQ(FindOp(*g, "encoder.block.2.layer.1.mlp.router.classifier"),
            nullptr);
  ASSERT_NE(FindOp(*g, "decoder.block.1.layer.2.mlp.router.classifier"),
            nullptr);
  // Tied head: decoder output scaled by d_model^-0.5 first.
  ASSERT_NE(FindOp(*g, "lm_head_scale"), nullptr);
  EXPECT_EQ(FindOp(*g, "lm_head")->inputs[1].name, "shared.weight");
}

TEST(HfConfigImporter, Gpt2LargeForwardFlopsMatchClosedForm) {
  Result<OpGraph> g = ImportHfConfig("gpt2_large", 1, 1024);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const double h = 1280, layers = 36, vocab = 50257, seq = 1024,
               tokens = 1 * seq;
  // Each weight of the layers' matmuls (12 h^2 per layer) does one
  // multiply-add per token: 2 * params * tokens. Attention adds Q K^T and
  // P V, each 2 * S * h per token per layer, and the tied LM head
  // 2 * h * vocab per token. LayerNorm, GELU, softmax, dropout and biases
  // add under 1 %.
  double expected = 2 * (layers * 12 * h * h) * tokens +
                    layers * 4 * tokens * seq * h + 2 * tokens * h * vocab;
  double flops = TotalFlops(*g);
  EXPECT_GT(flops, expected);
  EXPECT_LT(flops, expected * 1.02)
      << flops / 1e9 << " vs " << expected / 1e9 << " GFLOPs";
}

TEST(HfConfigImporter, FlopsScaleLinearlyWithBatch) {
  for (const char* name : kConfigs) {
    Result<OpGraph> one = ImportHfConfig(name, 1, 64);
    Result<OpGraph> three = ImportHfConfig(name, 3, 64);
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    ASSERT_TRUE(three.ok()) << three.status().ToString();
    EXPECT_NEAR(TotalFlops(*three) / TotalFlops(*one), 3.0, 1e-9) << name;
    EXPECT_EQ(TotalParameters(*three), TotalParameters(*one)) << name;
  }
}

// Every activation an op reads comes over an edge from its producer, except
// the token ids fed to the model; ops are appended in execution order; only
// tied embeddings share a parameter name.
TEST(HfConfigImporter, GraphsAreWiredAndValid) {
  const std::set<std::string> graph_inputs = {"input_ids", "token_type_ids",
                                              "decoder_input_ids"};
  const std::set<std::string> tied = {"wte.weight",
                                      "embeddings.word_embeddings.weight",
                                      "embed_tokens.weight", "shared.weight"};
  for (const char* name : kConfigs) {
    Result<OpGraph> g = ImportHfConfig(name, 2, 32);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    EXPECT_TRUE(g->Validate().ok()) << name;
    ASSERT_TRUE(g->TopologicalOrder().ok()) << name;
    std::map<std::string, int> producer;
    for (int i = 0; i < g->num_ops(); ++i) {
      for (const auto& t : g->ops[i].outputs) producer[t.name] = i;
    }
    std::set<std::tuple<int, int, std::string>> edges;
    for (const Edge& e : g->edges) {
      EXPECT_LT(e.src, e.dst) << name;
      EXPECT_GT(e.bytes, 0) << name << " " << e.tensor;
      edges.insert({e.src, e.dst, e.tensor});
    }
    std::map<std::string, int> param_uses;
    int64_t unique_params = 0;
    for (int i = 0; i < g->num_ops(); ++i) {
      const Op& op = g->ops[i];
      ASSERT_FALSE(op.outputs.empty()) << op.name;
      for (const auto& t : op.inputs) {
        if (t.role == TensorRole::kParameter && param_uses[t.name]++ == 0) {
          unique_params += t.NumElements();
        }
        if (t.role != TensorRole::kActivation) continue;
        auto it = producer.find(t.name);
        if (it == producer.end()) {
          EXPECT_TRUE(graph_inputs.count(t.name))
              << name << ": " << op.name << " reads " << t.name;
        } else {
          EXPECT_TRUE(edges.count({it->second, i, t.name}))
              << name << ": " << op.name;
        }
      }
    }
    for (const auto& [param, uses] : param_uses) {
      if (uses > 1) {
        EXPECT_TRUE(tied.count(param))
            << name << ": " << param << " used " << uses;
      }
    }
    EXPECT_EQ(TotalParameters(*g), unique_params) << name;
  }
}

TEST(HfConfigImporter, DefaultSequenceLengthIsCappedMaxPositions) {
  Result<OpGraph> g = ImportHfConfig("gpt3_xl");  // n_positions 2048
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->seq_len, 1024);
  EXPECT_EQ(g->batch, 1);
  g = ImportHfConfig("gpt3_xl", 0, 2048);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->seq_len, 2048);
  g = ImportHfConfig("switchxl4", 2);  // relative positions: T5's 512
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->seq_len, 512);
  EXPECT_EQ(g->batch, 2);
}

TEST(HfConfigImporter, RejectsSequenceBeyondMaxPositions) {
  Result<OpGraph> g = ImportHfConfig("gpt2_large", 1, 1025);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(g.status().message().find(ConfigPath("gpt2_large")),
            std::string::npos);
  EXPECT_NE(g.status().message().find("n_positions"), std::string::npos);
  g = ImportHfConfig("bert", 1, 513);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("max_position_embeddings"),
            std::string::npos);
}

TEST(HfConfigImporter, MissingFieldIsNamed) {
  Result<OpGraph> g =
      testing::ImportHfText("no_embd.json",
                 R"({"model_type": "gpt2", "n_layer": 2, "n_head": 2,
                                     "vocab_size": 10})");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(g.status().message(),
            ::testing::TempDir() + "no_embd.json: missing field 'n_embd'");
}

TEST(HfConfigImporter, RejectsBadDimensions) {
  const std::string base =
      R"("model_type": "gpt2", "n_layer": 2, "vocab_size": 10)";
  const std::pair<std::string, std::string> cases[] = {
      {R"("n_embd": 0, "n_head": 2)", "'n_embd'"},
      {R"("n_embd": -8, "n_head": 2)", "'n_embd'"},
      {R"("n_embd": 8.5, "n_head": 2)", "'n_embd'"},
      {R"("n_embd": "wide", "n_head": 2)", "'n_embd'"},
      {R"("n_embd": 1e12, "n_head": 2)", "absurdly large"},
      {R"("n_embd": 8, "n_head": 3)", "'n_head'"},
      {R"("n_embd": 8, "n_head": 2, "attn_pdrop": 1.5)", "'attn_pdrop'"},
  };
  for (const auto& [fields, expect] : cases) {
    Result<OpGraph> g =
        testing::ImportHfText("bad.json", "{" + base + ", " + fields + "}");
    ASSERT_FALSE(g.ok()) << fields;
    EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument) << fields;
    EXPECT_NE(g.status().message().find("bad.json: "), std::string::npos)
        << g.status().message();
    EXPECT_NE(g.status().message().find(expect), std::string::npos)
        << g.status().message();
  }
}

TEST(HfConfigImporter, RejectsAbsurdBatch) {
  Result<OpGraph> g = ImportHfConfig("gpt2_large", int64_t{1} << 24, 1024);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(g.status().message().find("absurdly large"), std::string::npos);
}

TEST(HfConfigImporter, UnsupportedModelTypeIsUnimplemented) {
  Result<OpGraph> g =
      testing::ImportHfText("mamba.json", R"({"model_type": "mamba", "hidden_size": 8})");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(g.status().message().find("model_type 'mamba' not supported"),
            std::string::npos);
  EXPECT_NE(g.status().message().find("gpt2"), std::string::npos);
  g = testing::ImportHfText(
      "act.json",
      R"({"model_type": "gpt2", "n_embd": 8, "n_layer": 1, "n_head": 2,
                                 "vocab_size": 10, "activation_function": "mish"})");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kUnimplemented);
}

TEST(HfConfigImporter, MalformedJsonNamesTheFile) {
  Result<OpGraph> g = testing::ImportHfText("broken.json", R"({"model_type": "gpt2", )");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(g.status().message().find("broken.json: malformed JSON"),
            std::string::npos);
}

TEST(HfConfigImporter, DetectsConfigsOnly) {
  using importers::DetectHfConfig;
  EXPECT_TRUE(DetectHfConfig("config.json", R"({"model_type": "gpt2"})"));
  EXPECT_TRUE(
      DetectHfConfig("c.JSON", R"({"architectures": ["LlamaForCausalLM"]})"));
  EXPECT_FALSE(DetectHfConfig("model.onnx", R"({"model_type": "gpt2"})"));
  EXPECT_FALSE(DetectHfConfig(
      "g.json", R"({"nodes": [{"fpgaLatency": 1}], "model_type": 1})"));
  EXPECT_FALSE(DetectHfConfig(
      "g.json", R"({"format": "frugal-graph", "model_type": "x"})"));
  EXPECT_FALSE(DetectHfConfig("plain.json", R"({"hidden_size": 8})"));
  // Through the registry, "auto" picks this importer for the shared configs.
  ImportOptions o;
  o.batch = 1;
  o.seq_len = 16;
  Result<OpGraph> g = ImportGraph(ConfigPath("opt"), o);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->source_format, "hf");
}

}  // namespace
}  // namespace frugal
