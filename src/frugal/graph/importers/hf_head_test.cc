// Task heads of the Hugging Face importer (ImportOptions::head, --head).
#include <gtest/gtest.h>

#include <string>

#include "frugal/base/file_io.h"
#include "frugal/graph/importer.h"
#include "frugal/graph/op_cost.h"
#include "frugal/graph/test_graphs.h"

namespace frugal {
namespace {

using testing::FindOp;

Result<OpGraph> ImportFile(const std::string& path, ModelHead head,
                           int64_t batch = 2, int64_t seq = 16) {
  ImportOptions o;
  o.batch = batch;
  o.seq_len = seq;
  o.head = head;
  return ImportGraph(path, o, "hf");
}

Result<OpGraph> Bundled(const std::string& name, ModelHead head) {
  return ImportFile(std::string(FRUGAL_SOURCE_ROOT) + "/models/hf/" + name +
                        ".json",
                    head);
}

// A tiny BERT config with the given architectures class and extra fields.
Result<OpGraph> TinyBert(const std::string& file, const std::string& cls,
                         const std::string& extra,
                         ModelHead head = ModelHead::kAuto) {
  const std::string text =
      R"({"model_type": "bert", "architectures": [")" + cls +
      R"("], "hidden_size": 32, "num_hidden_layers": 2,
          "num_attention_heads": 4, "intermediate_size": 64,
          "vocab_size": 100, "max_position_embeddings": 64)" +
      extra + "}";
  const std::string path = ::testing::TempDir() + file;
  if (Status s = WriteStringToFile(path, text); !s.ok()) return s;
  return ImportFile(path, head);
}

TEST(HfHead, NamesRoundTrip) {
  for (const char* name : {"auto", "lm", "seq-cls", "base"}) {
    ModelHead h;
    ASSERT_TRUE(ParseModelHead(name, &h)) << name;
    EXPECT_STREQ(ModelHeadName(h), name);
  }
  ModelHead h;
  EXPECT_FALSE(ParseModelHead("classifier", &h));
}

TEST(HfHead, BertLargeParameterCountsMatchTransformers) {
  // transformers' counts for bert-large: BertModel (with pooler) and
  // BertForSequenceClassification with two labels.
  Result<OpGraph> base = Bundled("bert_large", ModelHead::kBase);
  Result<OpGraph> cls = Bundled("bert_large", ModelHead::kSeqCls);
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  ASSERT_TRUE(cls.ok()) << cls.status().ToString();
  EXPECT_EQ(TotalParameters(*base), 335'141'888);
  EXPECT_EQ(TotalParameters(*cls), 335'141'888 + 1024 * 2 + 2);
  EXPECT_EQ(FindOp(*cls, "cls.predictions.decoder"), nullptr);
  const Op* classifier = FindOp(*cls, "classifier");
  ASSERT_NE(classifier, nullptr);
  EXPECT_EQ(classifier->outputs[0].shape, (std::vector<int64_t>{2, 2}));
  // The LM head costs a vocabulary-wide projection per token; the pooler and
  // classifier one small projection per sequence.
  Result<OpGraph> lm = Bundled("bert_large", ModelHead::kLm);
  ASSERT_TRUE(lm.ok());
  EXPECT_GT(testing::TotalFlops(*lm), testing::TotalFlops(*cls) * 1.05);
  // The bundled config says BertLMHeadModel: auto is the LM head.
  Result<OpGraph> auto_head = Bundled("bert_large", ModelHead::kAuto);
  ASSERT_TRUE(auto_head.ok());
  EXPECT_EQ(TotalParameters(*auto_head), TotalParameters(*lm));
}

TEST(HfHead, AutoFollowsTheArchitecturesClass) {
  Result<OpGraph> cls =
      TinyBert("cls.json", "BertForSequenceClassification",
               R"(, "id2label": {"0": "a", "1": "b", "2": "c"})");
  ASSERT_TRUE(cls.ok()) << cls.status().ToString();
  const Op* classifier = FindOp(*cls, "classifier");
  ASSERT_NE(classifier, nullptr);
  EXPECT_EQ(classifier->outputs[0].shape, (std::vector<int64_t>{2, 3}));

  Result<OpGraph> labels = TinyBert("labels.json", "BertForSequenceClassification",
                                    R"(, "num_labels": 5)");
  ASSERT_TRUE(labels.ok());
  EXPECT_EQ(FindOp(*labels, "classifier")->outputs[0].shape,
            (std::vector<int64_t>{2, 5}));

  Result<OpGraph> base = TinyBert("base.json", "BertModel", "");
  ASSERT_TRUE(base.ok());
  EXPECT_NE(FindOp(*base, "pooler.dense"), nullptr);
  EXPECT_EQ(FindOp(*base, "classifier"), nullptr);

  Result<OpGraph> mlm = TinyBert("mlm.json", "BertForMaskedLM", "");
  ASSERT_TRUE(mlm.ok());
  EXPECT_NE(FindOp(*mlm, "cls.predictions.decoder"), nullptr);
}

TEST(HfHead, UnknownTaskClassAsksForAHead) {
  Result<OpGraph> qa = TinyBert("qa.json", "BertForQuestionAnswering", "");
  ASSERT_FALSE(qa.ok());
  EXPECT_EQ(qa.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(qa.status().message().find("qa.json"), std::string::npos);
  EXPECT_NE(qa.status().message().find("--head"), std::string::npos);
  // An explicit head overrides the class.
  Result<OpGraph> forced =
      TinyBert("qa2.json", "BertForQuestionAnswering", "", ModelHead::kBase);
  EXPECT_TRUE(forced.ok()) << forced.status().ToString();
}

TEST(HfHead, BadLabelMapIsAnError) {
  Result<OpGraph> g = TinyBert("badlabels.json", "BertForSequenceClassification",
                               R"(, "id2label": [])");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("id2label"), std::string::npos);
}

TEST(HfHead, DecoderHeads) {
  Result<OpGraph> lm = Bundled("gpt2_med", ModelHead::kLm);
  Result<OpGraph> cls = Bundled("gpt2_med", ModelHead::kSeqCls);
  Result<OpGraph> base = Bundled("gpt2_med", ModelHead::kBase);
  ASSERT_TRUE(lm.ok() && cls.ok() && base.ok());
  EXPECT_NE(FindOp(*lm, "lm_head"), nullptr);
  EXPECT_EQ(FindOp(*cls, "lm_head"), nullptr);
  const Op* score = FindOp(*cls, "score");
  ASSERT_NE(score, nullptr);
  EXPECT_EQ(score->outputs[0].shape, (std::vector<int64_t>{2, 16, 2}));
  EXPECT_EQ(FindOp(*base, "score"), nullptr);
  EXPECT_EQ(FindOp(*base, "lm_head"), nullptr);
  // The LM head is tied to wte, so only the score weight adds parameters.
  EXPECT_EQ(TotalParameters(*cls), TotalParameters(*base) + 1024 * 2);
  EXPECT_EQ(TotalParameters(*lm), TotalParameters(*base));
  for (const char* name : {"opt", "llama2_7b"}) {
    Result<OpGraph> g = Bundled(name, ModelHead::kSeqCls);
    ASSERT_TRUE(g.ok()) << name << ": " << g.status().ToString();
    EXPECT_NE(FindOp(*g, "score"), nullptr) << name;
  }
}

TEST(HfHead, SwitchHasNoClassifier) {
  Result<OpGraph> cls = Bundled("switchxl4", ModelHead::kSeqCls);
  ASSERT_FALSE(cls.ok());
  EXPECT_EQ(cls.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(cls.status().message().find("switchxl4.json"), std::string::npos);
  Result<OpGraph> base = Bundled("switchxl4", ModelHead::kBase);
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  EXPECT_EQ(FindOp(*base, "lm_head"), nullptr);
}

}  // namespace
}  // namespace frugal
