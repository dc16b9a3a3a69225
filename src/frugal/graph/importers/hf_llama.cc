// The LLaMA family: LlamaForCausalLM and the architectures that share its
// layer (RMSNorm, rotary q/k, grouped-query attention, SwiGLU MLP):
// MistralForCausalLM (sliding-window attention), Qwen2ForCausalLM (q/k/v
// biases, optional sliding window on the upper layers) and
// MixtralForCausalLM (sparse MoE feed-forward with top-k routing).
#include <algorithm>
#include <string>
#include <vector>

#include "frugal/graph/importers/hf_architectures.h"
#include "frugal/graph/importers/hf_builder.h"

namespace frugal::importers::hf {
namespace {

// What distinguishes one member of the family; read from its config.
struct LlamaStyle {
  bool attention_bias_default = false;
  // Sliding-window attention: layers >= window_from attend to the last
  // `window` keys only. window 0: full attention everywhere.
  int64_t window = 0;
  int64_t window_from = 0;
  // Sparse MoE feed-forward when experts > 0: each token runs top_k.
  int64_t experts = 0;
  int64_t top_k = 0;
};

// rotate_half(x) = cat(-x2, x1) over the halves of the head dim, then
// x * cos + rotate_half(x) * sin. The halves are slices (views) of x.
TensorInfo Rotary(GraphBuilder& b, const std::string& name, const TensorInfo& x,
                  const TensorInfo& cos, const TensorInfo& sin) {
  TensorInfo half = x;
  half.shape.back() /= 2;
  TensorInfo neg = b.Unary(name + ".neg", OpKind::kNeg, "neg", half);
  TensorInfo rot = b.Add(name + ".rotate_half", OpKind::kConcat, "cat",
                         {neg, half}, x.shape, Axis(-1));
  TensorInfo a = b.Binary(name + ".mul_cos", OpKind::kMul, "mul", x, cos);
  TensorInfo c = b.Binary(name + ".mul_sin", OpKind::kMul, "mul", rot, sin);
  return b.Binary(name + ".add", OpKind::kAdd, "add", a, c);
}

// repeat_kv: expand [B, kv, S, d] to [B, kv, rep, S, d] (a view), then
// reshape to [B, kv * rep, S, d] (a copy).
TensorInfo RepeatKv(GraphBuilder& b, const std::string& name,
                    const TensorInfo& x, int64_t rep) {
  const Shape& s = x.shape;
  TensorInfo e = b.Move(name + ".expand", OpKind::kExpand, "expand", x,
                        {s[0], s[1], rep, s[2], s[3]}, true);
  return b.Move(name + ".reshape", OpKind::kReshape, "reshape", e,
                {s[0], s[1] * rep, s[2], s[3]}, false);
}

// Attention where each query scores only the last `keys` keys: the
// sliding-window kernels (flash attention, SDPA with a window) compute
// S x keys scores, not S x S, so the score and context matmuls are priced
// with `keys` columns. keys == S is ordinary causal attention.
TensorInfo WindowedAttend(GraphBuilder& b, const std::string& prefix,
                          const TensorInfo& q, const TensorInfo& k,
                          const TensorInfo& v, int64_t keys, double dropout) {
  const int64_t batch = q.shape[0], heads = q.shape[1], seq = q.shape[2];
  Shape kt_shape = {k.shape[0], k.shape[1], k.shape[3], k.shape[2]};
  TensorInfo kt = b.Move(prefix + ".key_t", OpKind::kTranspose, "transpose", k,
                         kt_shape, true);
  Attributes window;
  window.ints["sliding_window"] = {keys};
  TensorInfo scores = b.Add(prefix + ".scores", OpKind::kBatchMatMul, "matmul",
                            {q, kt}, {batch, heads, seq, keys}, window);
  scores = b.Binary(prefix + ".scale", OpKind::kDiv, "div", scores,
                    Scalar(prefix + ".scale"));
  scores = b.Binary(prefix + ".mask", OpKind::kAdd, "add", scores,
                    Constant(prefix + ".window_mask", {batch, 1, seq, keys}));
  TensorInfo probs = b.Add(prefix + ".softmax", OpKind::kSoftmax, "softmax",
                           {scores}, scores.shape, Axis(-1));
  probs = b.Dropout(prefix + ".attn_dropout", probs, dropout);
  return b.Add(prefix + ".context", OpKind::kBatchMatMul, "matmul", {probs, v},
               {batch, heads, seq, v.shape[3]}, window);
}

// The SwiGLU MLP: down(act(gate(x)) * up(x)). Mixtral's experts name the
// three projections w1, w3, w2.
TensorInfo GatedMlp(GraphBuilder& b, const std::string& p, const TensorInfo& x,
                    int64_t inter, int64_t h, bool bias, const Activation& act,
                    const char* gate, const char* up, const char* down) {
  TensorInfo g = b.Linear(p + gate, x, inter, bias);
  g = b.Unary(p + "act_fn", act.kind, act.type, g);
  TensorInfo u = b.Linear(p + up, x, inter, bias);
  TensorInfo f = b.Binary(p + "mul", OpKind::kMul, "mul", g, u);
  return b.Linear(p + down, f, h, bias);
}

// MixtralSparseMoeBlock. The router (gate) scores every token, softmax,
// top-k; each token then runs its k experts. Routing depends on the data:
// we assume a balanced router, so each expert runs tokens * k / experts
// rows (the remainder on the first ones), every expert's weights count as
// parameters, and the layer costs k expert MLPs per token.
TensorInfo SparseMoe(GraphBuilder& b, const std::string& p, const TensorInfo& x,
                     const LlamaStyle& s, int64_t inter, const Activation& act) {
  const int64_t batch = b.batch(), seq = b.seq(), h = x.shape.back();
  const int64_t tokens = batch * seq;
  TensorInfo logits = b.Linear(p + "gate", x, s.experts, false);
  TensorInfo probs = b.Add(p + "router_softmax", OpKind::kSoftmax, "softmax",
                           {logits}, logits.shape, Axis(-1));
  Attributes k;
  k.ints["k"] = {s.top_k};
  TensorInfo weights = b.Add(p + "topk", OpKind::kReduceMax, "topk", {probs},
                             {batch, seq, s.top_k}, k);
  // The k weights are renormalised to sum to 1.
  weights = b.Binary(p + "routing_norm", OpKind::kDiv, "div", weights,
                     Constant(p + "routing_sum", {batch, seq, 1}));
  const int64_t rows_total = tokens * s.top_k;
  std::vector<TensorInfo> outs;
  for (int64_t e = 0; e < s.experts; ++e) {
    const std::string en = p + "experts." + Num(e) + ".";
    const int64_t rows = rows_total / s.experts + (e < rows_total % s.experts ? 1 : 0);
    TensorInfo in = b.Add(en + "dispatch", OpKind::kGather, "index", {x, weights},
                          {rows, h});
    TensorInfo out = GatedMlp(b, en, in, inter, h, false, act, "w1", "w3", "w2");
    // Each row is scaled by its routing weight.
    outs.push_back(b.Binary(en + "weight", OpKind::kMul, "mul", out,
                            Constant(en + "routing_weights", {rows, 1})));
  }
  return b.Add(p + "combine", OpKind::kConcat, "index_add", outs, x.shape);
}

Result<OpGraph> BuildLlamaStyle(const ConfigReader& c, const ImportOptions& o,
                                const LlamaStyle& s) {
  FRUGAL_ASSIGN_OR_RETURN(const CoreDims core,
                          ReadCoreDims(c, "intermediate_size"));
  const auto [h, layers, heads, inter, vocab] = core;
  FRUGAL_ASSIGN_OR_RETURN(int64_t kv_heads,
                          c.OptionalDim("num_key_value_heads", heads));
  FRUGAL_ASSIGN_OR_RETURN(int64_t positions,
                          c.OptionalDim("max_position_embeddings", 2048));
  if (!c.Has("head_dim")) {
    FRUGAL_RETURN_IF_ERROR(
        c.Divisible("hidden_size", h, "num_attention_heads", heads));
  }
  FRUGAL_ASSIGN_OR_RETURN(int64_t d, c.OptionalDim("head_dim", h / heads));
  FRUGAL_RETURN_IF_ERROR(c.Divisible("num_attention_heads", heads,
                                     "num_key_value_heads", kv_heads));
  if (d % 2 != 0)
    return c.Error("head dim " + Num(d) +
                   " must be even for rotary embeddings");
  FRUGAL_ASSIGN_OR_RETURN(Activation act, c.Act("hidden_act", "silu"));
  FRUGAL_ASSIGN_OR_RETURN(double attn_p,
                          c.Probability("attention_dropout", 0.0));
  FRUGAL_ASSIGN_OR_RETURN(bool attn_bias,
                          c.Flag("attention_bias", s.attention_bias_default));
  FRUGAL_ASSIGN_OR_RETURN(bool mlp_bias, c.Flag("mlp_bias", false));
  FRUGAL_ASSIGN_OR_RETURN(bool tied, c.Flag("tie_word_embeddings", false));
  FRUGAL_ASSIGN_OR_RETURN(
      Dims dims, ResolveDims(c, o, positions, "max_position_embeddings"));
  GraphBuilder b(c.path(), dims);
  const int64_t batch = dims.batch, seq = dims.seq;

  TensorInfo embed = Param("embed_tokens.weight", {vocab, h});
  TensorInfo x = b.Embedding("embed_tokens", b.TokenIds("input_ids"), embed);
  // cos / sin depend only on positions (cached buffers in transformers 4.31,
  // the version these configs were written with); with a KV cache the new
  // tokens' positions start at its length, and the mask spans every key.
  const int64_t keys = b.keys();
  TensorInfo cos = Constant("rotary_cos", {1, 1, seq, d});
  TensorInfo sin = Constant("rotary_sin", {1, 1, seq, d});
  TensorInfo causal = Constant("causal_mask", {batch, 1, seq, keys});
  for (int64_t l = 0; l < layers; ++l) {
    const std::string p = "layers." + Num(l) + ".";
    const std::string sa = p + "self_attn";
    TensorInfo a = b.RmsNorm(p + "input_layernorm", x, "LlamaRMSNorm");
    TensorInfo q =
        b.ProjectHeads(sa + ".q_proj", sa + ".q_heads", a, heads, d, attn_bias);
    TensorInfo k = b.ProjectHeads(sa + ".k_proj", sa + ".k_heads", a, kv_heads,
                                  d, attn_bias);
    TensorInfo v = b.ProjectHeads(sa + ".v_proj", sa + ".v_heads", a, kv_heads,
                                  d, attn_bias);
    q = Rotary(b, sa + ".q_rotary", q, cos, sin);
    k = Rotary(b, sa + ".k_rotary", k, cos, sin);
    // The cache holds the rotated keys, kv_heads wide (before repeat_kv).
    k = b.CacheAppend(sa + ".key_cache", k);
    v = b.CacheAppend(sa + ".value_cache", v);
    if (kv_heads != heads) {
      k = RepeatKv(b, sa + ".k_repeat", k, heads / kv_heads);
      v = RepeatKv(b, sa + ".v_repeat", v, heads / kv_heads);
    }
    const bool windowed = s.window > 0 && s.window < keys && l >= s.window_from;
    TensorInfo ctx = windowed
                         ? WindowedAttend(b, sa, q, k, v, s.window, attn_p)
                         : b.ScaledAttend(sa, q, k, v, causal, attn_p);
    // o_proj has no bias in Qwen2 even though q/k/v have one.
    TensorInfo out = b.Linear(sa + ".o_proj", b.MergeHeads(sa, ctx), h,
                              attn_bias && !s.attention_bias_default);
    x = b.Binary(p + "attn_residual", OpKind::kAdd, "add", x, out);

    a = b.RmsNorm(p + "post_attention_layernorm", x, "LlamaRMSNorm");
    TensorInfo f =
        s.experts > 0
            ? SparseMoe(b, p + "block_sparse_moe.", a, s, inter, act)
            : GatedMlp(b, p + "mlp.", a, inter, h, mlp_bias, act, "gate_proj",
                       "up_proj", "down_proj");
    x = b.Binary(p + "mlp_residual", OpKind::kAdd, "add", x, f);
  }
  x = b.RmsNorm("norm", x, "LlamaRMSNorm");
  FRUGAL_RETURN_IF_ERROR(
      DecoderHead(b, c, o.head, x, vocab, tied ? &embed : nullptr));
  return b.Finish(c.stem(), o.head == ModelHead::kBase ? "" : "model.");
}

// sliding_window, absent or null: full attention.
Result<int64_t> SlidingWindow(const ConfigReader& c) {
  return c.Has("sliding_window") ? c.Dim("sliding_window") : Result<int64_t>(0);
}

}  // namespace

Result<OpGraph> BuildLlama(const ConfigReader& c, const ImportOptions& o) {
  return BuildLlamaStyle(c, o, LlamaStyle{});
}

Result<OpGraph> BuildMistral(const ConfigReader& c, const ImportOptions& o) {
  LlamaStyle s;
  FRUGAL_ASSIGN_OR_RETURN(s.window, SlidingWindow(c));
  return BuildLlamaStyle(c, o, s);
}

Result<OpGraph> BuildQwen2(const ConfigReader& c, const ImportOptions& o) {
  LlamaStyle s;
  // Qwen2Attention: q/k/v with bias, o_proj without (attention_bias is not
  // a Qwen2 config field; the biases are always there).
  s.attention_bias_default = true;
  if (c.Has("attention_bias")) {
    return c.Error("field 'attention_bias' is not a Qwen2 setting (q/k/v always have biases)");
  }
  FRUGAL_ASSIGN_OR_RETURN(bool use_window, c.Flag("use_sliding_window", false));
  if (use_window) {
    FRUGAL_ASSIGN_OR_RETURN(s.window, SlidingWindow(c));
    FRUGAL_ASSIGN_OR_RETURN(int64_t layers, c.Dim("num_hidden_layers", kMaxLayers));
    // The first max_window_layers layers keep full attention.
    FRUGAL_ASSIGN_OR_RETURN(s.window_from, c.Count("max_window_layers", layers));
  }
  return BuildLlamaStyle(c, o, s);
}

Result<OpGraph> BuildMixtral(const ConfigReader& c, const ImportOptions& o) {
  LlamaStyle s;
  FRUGAL_ASSIGN_OR_RETURN(s.window, SlidingWindow(c));
  FRUGAL_ASSIGN_OR_RETURN(s.experts, c.OptionalDim("num_local_experts", 8, kMaxExperts));
  FRUGAL_ASSIGN_OR_RETURN(s.top_k, c.OptionalDim("num_experts_per_tok", 2, kMaxExperts));
  if (s.top_k > s.experts) {
    return c.Error("num_experts_per_tok (" + Num(s.top_k) + ") exceeds num_local_experts (" +
                   Num(s.experts) + ")");
  }
  // Graphs beyond this many ops are not worth building (and would exhaust
  // memory on hostile inputs).
  FRUGAL_ASSIGN_OR_RETURN(int64_t layers, c.Dim("num_hidden_layers", kMaxLayers));
  if (static_cast<double>(layers) * (40.0 + 10.0 * static_cast<double>(s.experts)) > 2e6) {
    return c.Error("model too large to import (" + Num(layers) + " layers x " +
                   Num(s.experts) + " experts)");
  }
  return BuildLlamaStyle(c, o, s);
}

}  // namespace frugal::importers::hf
