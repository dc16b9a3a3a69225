// BERT, the encoder-only model.
#include <string>

#include "frugal/graph/importers/hf_architectures.h"
#include "frugal/graph/importers/hf_builder.h"

namespace frugal::importers::hf {

// BERT. LM head: BertLMHeadModel (BertModel without pooler +
// BertOnlyMLMHead). Sequence classification: BertModel with its pooler,
// dropout and the classifier. Base: BertModel with its pooler.

Result<OpGraph> BuildBert(const ConfigReader& c, const ImportOptions& o) {
  FRUGAL_ASSIGN_OR_RETURN(const CoreDims core,
                          ReadCoreDims(c, "intermediate_size"));
  const auto [h, layers, heads, inter, vocab] = core;
  FRUGAL_ASSIGN_OR_RETURN(int64_t positions,
                          c.OptionalDim("max_position_embeddings", 512));
  FRUGAL_ASSIGN_OR_RETURN(int64_t types, c.OptionalDim("type_vocab_size", 2));
  FRUGAL_RETURN_IF_ERROR(
      c.Divisible("hidden_size", h, "num_attention_heads", heads));
  FRUGAL_ASSIGN_OR_RETURN(Activation act, c.Act("hidden_act", "gelu"));
  FRUGAL_ASSIGN_OR_RETURN(double hidden_p,
                          c.Probability("hidden_dropout_prob", 0.1));
  FRUGAL_ASSIGN_OR_RETURN(double attn_p,
                          c.Probability("attention_probs_dropout_prob", 0.1));
  FRUGAL_ASSIGN_OR_RETURN(bool is_decoder, c.Flag("is_decoder", false));
  FRUGAL_ASSIGN_OR_RETURN(bool tied, c.Flag("tie_word_embeddings", true));
  FRUGAL_ASSIGN_OR_RETURN(std::string pos_type,
                          c.String("position_embedding_type", "absolute"));
  if (pos_type != "absolute") {
    return Unimplemented(c.path() + ": position_embedding_type '" + pos_type +
                         "' not supported");
  }
  FRUGAL_ASSIGN_OR_RETURN(
      Dims dims, ResolveDims(c, o, positions, "max_position_embeddings"));
  GraphBuilder b(c.path(), dims);
  const int64_t batch = dims.batch, seq = dims.seq, d = h / heads;

  TensorInfo word = Param("embeddings.word_embeddings.weight", {vocab, h});
  TensorInfo x =
      b.Embedding("embeddings.word_embeddings", b.TokenIds("input_ids"), word);
  TensorInfo tt = b.Embedding(
      "embeddings.token_type_embeddings", b.TokenIds("token_type_ids"),
      Param("embeddings.token_type_embeddings.weight", {types, h}));
  x = b.Binary("embeddings.add_token_type", OpKind::kAdd, "add", x, tt);
  TensorInfo pe = b.Embedding(
      "embeddings.position_embeddings",
      Constant("position_ids", {1, seq}, DType::kInt64),
      Param("embeddings.position_embeddings.weight", {positions, h}));
  x = b.Binary("embeddings.add_position", OpKind::kAdd, "add", x, pe);
  x = b.LayerNorm("embeddings.LayerNorm", x);
  x = b.Dropout("embeddings.dropout", x, hidden_p);
  // The extended mask is added to the scores: causal when the config makes
  // BERT a decoder, else the all-ones padding mask that BertModel creates.
  TensorInfo mask =
      Constant("extended_attention_mask", is_decoder ? Shape{batch, 1, seq, seq}
                                                     : Shape{batch, 1, 1, seq});
  for (int64_t l = 0; l < layers; ++l) {
    const std::string p = "encoder.layer." + Num(l) + ".";
    const std::string sa = p + "attention.self";
    TensorInfo q =
        b.ProjectHeads(sa + ".query", sa + ".query_heads", x, heads, d, true);
    TensorInfo k =
        b.ProjectHeads(sa + ".key", sa + ".key_heads", x, heads, d, true);
    TensorInfo v =
        b.ProjectHeads(sa + ".value", sa + ".value_heads", x, heads, d, true);
    TensorInfo ctx = b.ScaledAttend(sa, q, k, v, mask, attn_p);
    TensorInfo out =
        b.Linear(p + "attention.output.dense", b.MergeHeads(sa, ctx), h, true);
    out = b.Dropout(p + "attention.output.dropout", out, hidden_p);
    out =
        b.Binary(p + "attention.output.residual", OpKind::kAdd, "add", out, x);
    x = b.LayerNorm(p + "attention.output.LayerNorm", out);

    TensorInfo f = b.Linear(p + "intermediate.dense", x, inter, true);
    f = b.Unary(p + "intermediate.intermediate_act_fn", act.kind, act.type, f);
    f = b.Linear(p + "output.dense", f, h, true);
    f = b.Dropout(p + "output.dropout", f, hidden_p);
    f = b.Binary(p + "output.residual", OpKind::kAdd, "add", f, x);
    x = b.LayerNorm(p + "output.LayerNorm", f);
  }
  if (o.head == ModelHead::kSeqCls || o.head == ModelHead::kBase) {
    // BertPooler: the first token's hidden state, dense, tanh.
    TensorInfo first = b.Move("pooler.first_token", OpKind::kSlice, "select",
                              x, {batch, h}, true);
    TensorInfo pooled = b.Linear("pooler.dense", first, h, true);
    pooled = b.Unary("pooler.activation", OpKind::kTanh, "tanh", pooled);
    if (o.head == ModelHead::kSeqCls) {
      FRUGAL_ASSIGN_OR_RETURN(int64_t labels, c.NumLabels());
      FRUGAL_ASSIGN_OR_RETURN(double cls_p,
                              c.Probability("classifier_dropout", hidden_p));
      pooled = b.Dropout("dropout", pooled, cls_p);
      b.Linear("classifier", pooled, labels, true);
    }
    return b.Finish(c.stem(), o.head == ModelHead::kBase ? "" : "bert.");
  }
  TensorInfo t = b.Linear("cls.predictions.transform.dense", x, h, true);
  t = b.Unary("cls.predictions.transform.transform_act_fn", act.kind, act.type,
              t);
  t = b.LayerNorm("cls.predictions.transform.LayerNorm", t);
  // The decoder's bias is the separate cls.predictions.bias [vocab].
  b.Linear("cls.predictions.decoder", t, vocab, true, tied ? &word : nullptr);
  return b.Finish(c.stem(), "bert.");
}

}  // namespace frugal::importers::hf
