// T5 (T5ForConditionalGeneration: t5-*, t5-v1_1, flan-t5) and Switch
// Transformers (SwitchTransformersForConditionalGeneration), a T5
// encoder-decoder whose every sparse_step-th feed-forward is a top-1 MoE.
// Both stacks: pre-norm T5LayerNorm blocks, unscaled attention with a
// relative position bias owned by each stack's first block, and a dense
// (or, for v1.1, gated) feed-forward.
#include <algorithm>
#include <string>
#include <vector>

#include "frugal/graph/importers/hf_architectures.h"
#include "frugal/graph/importers/hf_builder.h"

namespace frugal::importers::hf {
namespace {

// Graphs beyond this many ops are not worth building (and would exhaust
// memory on hostile inputs).
constexpr double kMaxOps = 2e6;
// Switch / T5 use relative positions and have no maximum; they were
// pre-trained with 512-token inputs.
constexpr int64_t kT5DefaultSeqLen = 512;

struct SwitchConfig {
  int64_t d_model, d_ff, d_kv, heads, vocab, experts, buckets;
  int64_t capacity = 0;  // expert_capacity: tokens per expert per sequence
  int64_t enc_layers, dec_layers, enc_step, dec_step;
  Activation act;
  double dropout, jitter;
  bool gated = false;  // T5DenseGatedActDense: wo(act(wi_0 x) * wi_1 x)
  const char* model_type = "switch_transformers";
};

class SwitchBuilder {
 public:
  SwitchBuilder(GraphBuilder& b, const SwitchConfig& c) : b_(b), c_(c) {}

  // One stack (T5 encoder or decoder). `memory` is the encoder output the
  // decoder cross-attends to; null for the encoder.
  TensorInfo Stack(const std::string& name, const TensorInfo& ids,
                   const TensorInfo& shared, const TensorInfo* memory) {
    const bool decoder = memory != nullptr;
    const int64_t batch = b_.batch(), seq = b_.seq(), heads = c_.heads;
    const int64_t layers = decoder ? c_.dec_layers : c_.enc_layers;
    const int64_t step = decoder ? c_.dec_step : c_.enc_step;
    TensorInfo x = b_.Embedding(name + ".embed_tokens", ids, shared);
    x = b_.Dropout(name + ".embed_dropout", x, c_.dropout);
    TensorInfo mask =
        Constant(name + (decoder ? ".causal_mask" : ".extended_attention_mask"),
                 decoder ? Shape{batch, 1, seq, seq} : Shape{batch, 1, 1, seq});
    TensorInfo bias, cross_bias;
    for (int64_t i = 0; i < layers; ++i) {
      const std::string p = name + ".block." + Num(i) + ".layer.";
      const std::string sa = p + "0.SelfAttention";
      TensorInfo a = b_.RmsNorm(p + "0.layer_norm", x, "T5LayerNorm");
      TensorInfo q = Heads(sa + ".q", a), k = Heads(sa + ".k", a),
                 v = Heads(sa + ".v", a);
      if (i == 0) {
        // The first block owns the relative position bias (plus the mask);
        // later blocks reuse it. The bucket ids depend only on S.
        TensorInfo bucket = Constant(name + ".relative_position_bucket",
                                     {seq, seq}, DType::kInt64);
        TensorInfo vals = b_.Embedding(
            sa + ".relative_attention_bias", bucket,
            Param(sa + ".relative_attention_bias.weight", {c_.buckets, heads}));
        vals = b_.Move(sa + ".bias_permute", OpKind::kTranspose, "permute",
                       vals, {1, heads, seq, seq}, true);
        bias =
            b_.Binary(sa + ".position_bias", OpKind::kAdd, "add", vals, mask);
      }
      x = AttentionBlock(p + "0", sa, x, q, k, v, bias);
      if (decoder) {
        const std::string ca = p + "1.EncDecAttention";
        a = b_.RmsNorm(p + "1.layer_norm", x, "T5LayerNorm");
        q = Heads(ca + ".q", a);
        k = Heads(ca + ".k", *memory);
        v = Heads(ca + ".v", *memory);
        if (i == 0) {
          // No relative bias in cross-attention: zeros plus the encoder mask.
          cross_bias =
              b_.Binary(ca + ".position_bias", OpKind::kAdd, "add",
                        Constant(name + ".cross_position_bias_zeros",
                                 {1, heads, seq, seq}),
                        Constant(name + ".encoder_extended_attention_mask",
                                 {batch, 1, 1, seq}));
        }
        x = AttentionBlock(p + "1", ca, x, q, k, v, cross_bias);
      }
      const std::string ff = p + (decoder ? "2" : "1");
      const bool sparse = step > 0 && (i % step == 1 || step == 1);
      TensorInfo f = b_.RmsNorm(ff + ".layer_norm", x, "T5LayerNorm");
      f = sparse ? SparseMlp(ff + ".mlp", f) : DenseActDense(ff + ".mlp", f);
      f = b_.Dropout(ff + ".dropout", f, c_.dropout);
      x = b_.Binary(ff + ".residual", OpKind::kAdd, "add", x, f);
    }
    x = b_.RmsNorm(name + ".final_layer_norm", x, "T5LayerNorm");
    return b_.Dropout(name + ".final_dropout", x, c_.dropout);
  }

 private:
  TensorInfo Heads(const std::string& name, const TensorInfo& x) {
    return b_.ProjectHeads(name, name + "_heads", x, c_.heads, c_.d_kv, false);
  }

  // T5 does not scale scores (the scale is folded into the q init).
  TensorInfo AttentionBlock(const std::string& layer, const std::string& attn,
                            const TensorInfo& x, const TensorInfo& q,
                            const TensorInfo& k, const TensorInfo& v,
                            const TensorInfo& bias) {
    TensorInfo ctx = b_.Attend(
        attn, q, k, v, {{"add_position_bias", OpKind::kAdd, "add", bias}},
        c_.dropout);
    TensorInfo out =
        b_.Linear(attn + ".o", b_.MergeHeads(attn, ctx), c_.d_model, false);
    out = b_.Dropout(layer + ".dropout", out, c_.dropout);
    return b_.Binary(layer + ".residual", OpKind::kAdd, "add", x, out);
  }

  TensorInfo DenseActDense(const std::string& name, const TensorInfo& x) {
    TensorInfo f;
    if (c_.gated) {
      f = b_.Linear(name + ".wi_0", x, c_.d_ff, false);
      f = b_.Unary(name + ".act", c_.act.kind, c_.act.type, f);
      TensorInfo lin = b_.Linear(name + ".wi_1", x, c_.d_ff, false);
      f = b_.Binary(name + ".gate_mul", OpKind::kMul, "mul", f, lin);
    } else {
      f = b_.Linear(name + ".wi", x, c_.d_ff, false);
      f = b_.Unary(name + ".act", c_.act.kind, c_.act.type, f);
    }
    f = b_.Dropout(name + ".dropout", f, c_.dropout);
    return b_.Linear(name + ".wo", f, c_.d_model, false);
  }

  // Top-1 routing. Real routing depends on the data; we assume a perfectly
  // balanced router, so each expert is sent tokens / experts rows (the
  // remainder goes to the first ones), while every expert's weights count as
  // parameters. transformers' router keeps at most expert_capacity tokens
  // per expert and sequence (the rest skip the layer through its residual),
  // so an expert runs on at most batch x expert_capacity rows: from a
  // sequence of experts x capacity tokens on (256 for switch-base's 4 x 64),
  // the layer costs less than one dense FFN per token.
  TensorInfo SparseMlp(const std::string& name, const TensorInfo& x) {
    const int64_t batch = b_.batch(), seq = b_.seq(), experts = c_.experts;
    const int64_t tokens = batch * seq;
    const std::string r = name + ".router";
    TensorInfo h = x;
    if (c_.jitter > 0) {  // training only, like dropout (InferenceGraph)
      Attributes a;
      a.ints["training_only"] = {1};
      h = b_.Add(r + ".jitter", OpKind::kMul, "mul",
                 {h, Constant(r + ".jitter_noise", x.shape)}, x.shape, a);
    }
    TensorInfo logits = b_.Linear(r + ".classifier", h, experts, false);
    const Attributes last = Axis(-1);
    TensorInfo probs = b_.Add(r + ".softmax", OpKind::kSoftmax, "softmax",
                              {logits}, logits.shape, last);
    TensorInfo index = b_.Add(r + ".argmax", OpKind::kReduceMax, "argmax",
                              {probs}, {batch, seq}, last, DType::kInt64);
    TensorInfo top = b_.Add(r + ".max", OpKind::kReduceMax, "max", {probs},
                            {batch, seq, 1}, last);
    std::vector<TensorInfo> outs;
    for (int64_t e = 0; e < experts; ++e) {
      const std::string en = name + ".experts.expert_" + Num(e);
      const int64_t rows =
          std::min(tokens / experts + (e < tokens % experts ? 1 : 0), batch * c_.capacity);
      TensorInfo in = b_.Add(en + ".dispatch", OpKind::kGather, "index",
                             {x, index}, {rows, c_.d_model});
      outs.push_back(DenseActDense(en, in));
    }
    TensorInfo merged =
        b_.Add(name + ".combine", OpKind::kConcat, "index_put", outs, x.shape);
    return b_.Binary(name + ".scale", OpKind::kMul, "mul", top, merged);
  }

  GraphBuilder& b_;
  const SwitchConfig& c_;
};

// The sizes T5Config and SwitchTransformersConfig name alike.
Status ReadT5Dims(const ConfigReader& c, SwitchConfig* out) {
  SwitchConfig& s = *out;
  FRUGAL_ASSIGN_OR_RETURN(s.d_model, c.Dim("d_model"));
  FRUGAL_ASSIGN_OR_RETURN(s.d_ff, c.Dim("d_ff"));
  FRUGAL_ASSIGN_OR_RETURN(s.d_kv, c.Dim("d_kv"));
  FRUGAL_ASSIGN_OR_RETURN(s.heads, c.Dim("num_heads"));
  FRUGAL_ASSIGN_OR_RETURN(s.vocab, c.Dim("vocab_size"));
  FRUGAL_ASSIGN_OR_RETURN(s.enc_layers, c.Dim("num_layers", kMaxLayers));
  FRUGAL_ASSIGN_OR_RETURN(
      s.dec_layers,
      c.OptionalDim("num_decoder_layers", s.enc_layers, kMaxLayers));
  FRUGAL_ASSIGN_OR_RETURN(s.buckets,
                          c.OptionalDim("relative_attention_num_buckets", 32));
  return Status::Ok();
}

// Both stacks on shared embeddings, then the head.
Result<OpGraph> BuildEncoderDecoder(const ConfigReader& c, const ImportOptions& o,
                                    const SwitchConfig& s, bool tied) {
  FRUGAL_ASSIGN_OR_RETURN(Dims dims,
                          ResolveUnboundedDims(c, o, kT5DefaultSeqLen));
  GraphBuilder b(c.path(), dims);
  SwitchBuilder sb(b, s);
  TensorInfo shared = Param("shared.weight", {s.vocab, s.d_model});
  TensorInfo enc =
      sb.Stack("encoder", b.TokenIds("input_ids"), shared, nullptr);
  TensorInfo x =
      sb.Stack("decoder", b.TokenIds("decoder_input_ids"), shared, &enc);
  if (o.head == ModelHead::kSeqCls) {
    return Unimplemented(c.path() + ": " + s.model_type +
                         " has no sequence-classification head here (use --head lm "
                         "or base)");
  }
  if (o.head == ModelHead::kBase) return b.Finish(c.stem());
  // With tied embeddings the decoder output is rescaled by d_model^-0.5
  // before the projection (Mesh TensorFlow convention).
  if (tied)
    x = b.Binary("lm_head_scale", OpKind::kMul, "mul", x,
                 Scalar("lm_head_scale.factor"));
  b.Linear("lm_head", x, s.vocab, false, tied ? &shared : nullptr);
  return b.Finish(c.stem());
}

}  // namespace

Result<OpGraph> BuildSwitch(const ConfigReader& c, const ImportOptions& o) {
  SwitchConfig s;
  FRUGAL_RETURN_IF_ERROR(ReadT5Dims(c, &s));
  FRUGAL_ASSIGN_OR_RETURN(s.experts,
                          c.OptionalDim("num_experts", 8, kMaxExperts));
  // SwitchTransformersConfig's default.
  FRUGAL_ASSIGN_OR_RETURN(s.capacity, c.OptionalDim("expert_capacity", 64));
  // The config class derives the steps from num_sparse_*_layers, but an
  // explicit *_sparse_step in the file overrides it when loaded.
  auto step = [&](const char* step_key, const char* count_key,
                  int64_t layers) -> Result<int64_t> {
    if (c.Has(step_key)) return c.Count(step_key, 0);
    FRUGAL_ASSIGN_OR_RETURN(int64_t n, c.Count(count_key, 3));
    return n > 0 ? layers / n : 0;
  };
  FRUGAL_ASSIGN_OR_RETURN(
      s.enc_step,
      step("encoder_sparse_step", "num_sparse_encoder_layers", s.enc_layers));
  FRUGAL_ASSIGN_OR_RETURN(
      s.dec_step,
      step("decoder_sparse_step", "num_sparse_decoder_layers", s.dec_layers));
  FRUGAL_ASSIGN_OR_RETURN(s.act, c.Act("dense_act_fn", "relu"));
  FRUGAL_ASSIGN_OR_RETURN(s.dropout, c.Probability("dropout_rate", 0.1));
  FRUGAL_ASSIGN_OR_RETURN(s.jitter, c.Probability("router_jitter_noise", 0.01));
  FRUGAL_ASSIGN_OR_RETURN(bool tied, c.Flag("tie_word_embeddings", true));
  FRUGAL_ASSIGN_OR_RETURN(bool gated, c.Flag("is_gated_act", false));
  if (gated) {
    return Unimplemented(c.path() + ": is_gated_act not supported");
  }
  const double ops = static_cast<double>(s.enc_layers + s.dec_layers) *
                     (60.0 + 6.0 * static_cast<double>(s.experts));
  if (ops > kMaxOps) {
    return c.Error("model too large to import (" +
                   Num(s.enc_layers + s.dec_layers) + " layers x " +
                   Num(s.experts) + " experts)");
  }
  return BuildEncoderDecoder(c, o, s, tied);
}

Result<OpGraph> BuildT5(const ConfigReader& c, const ImportOptions& o) {
  SwitchConfig s;
  s.model_type = "t5";
  FRUGAL_RETURN_IF_ERROR(ReadT5Dims(c, &s));
  s.experts = 0;
  s.enc_step = s.dec_step = 0;
  s.jitter = 0;
  FRUGAL_ASSIGN_OR_RETURN(s.dropout, c.Probability("dropout_rate", 0.1));
  // feed_forward_proj is "ACT" or "gated-ACT"; T5Config maps gated-gelu to
  // gelu_new (the tanh approximation t5-v1_1 was trained with).
  FRUGAL_ASSIGN_OR_RETURN(std::string proj, c.String("feed_forward_proj", "relu"));
  std::string act = proj;
  if (proj.rfind("gated-", 0) == 0) {
    s.gated = true;
    act = proj.substr(6);
    if (act == "gelu") act = "gelu_new";
  } else if (proj.find('-') != std::string::npos) {
    return c.Error("feed_forward_proj '" + proj +
                   "' must be ACT or gated-ACT (relu, gated-gelu, ...)");
  }
  FRUGAL_ASSIGN_OR_RETURN(s.act, c.ActNamed("feed_forward_proj", act));
  FRUGAL_ASSIGN_OR_RETURN(bool tied, c.Flag("tie_word_embeddings", true));
  return BuildEncoderDecoder(c, o, s, tied);
}

}  // namespace frugal::importers::hf
