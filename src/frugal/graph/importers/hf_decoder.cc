// Decoder-only language models: GPT-2 (and the GPT-3 shapes written as gpt2
// configs) and OPT. The LLaMA family is in hf_llama.cc.
#include <string>
#include <vector>

#include "frugal/graph/importers/hf_architectures.h"
#include "frugal/graph/importers/hf_builder.h"

namespace frugal::importers::hf {

// ---------------------------------------------------------------------------
// GPT-2 (GPT2LMHeadModel; also the GPT-3 shapes written as gpt2 configs).

Result<OpGraph> BuildGpt2(const ConfigReader& c, const ImportOptions& o) {
  FRUGAL_ASSIGN_OR_RETURN(int64_t h, c.Dim("n_embd"));
  FRUGAL_ASSIGN_OR_RETURN(int64_t layers, c.Dim("n_layer", kMaxLayers));
  FRUGAL_ASSIGN_OR_RETURN(int64_t heads, c.Dim("n_head"));
  FRUGAL_ASSIGN_OR_RETURN(int64_t vocab, c.Dim("vocab_size"));
  FRUGAL_ASSIGN_OR_RETURN(int64_t positions,
                          c.OptionalDim("n_positions", 1024));
  FRUGAL_ASSIGN_OR_RETURN(int64_t inner, c.OptionalDim("n_inner", 4 * h));
  FRUGAL_RETURN_IF_ERROR(c.Divisible("n_embd", h, "n_head", heads));
  FRUGAL_ASSIGN_OR_RETURN(Activation act,
                          c.Act("activation_function", "gelu_new"));
  FRUGAL_ASSIGN_OR_RETURN(double embd_p, c.Probability("embd_pdrop", 0.1));
  FRUGAL_ASSIGN_OR_RETURN(double attn_p, c.Probability("attn_pdrop", 0.1));
  FRUGAL_ASSIGN_OR_RETURN(double resid_p, c.Probability("resid_pdrop", 0.1));
  FRUGAL_ASSIGN_OR_RETURN(bool scale, c.Flag("scale_attn_weights", true));
  FRUGAL_ASSIGN_OR_RETURN(bool scale_by_layer,
                          c.Flag("scale_attn_by_inverse_layer_idx", false));
  FRUGAL_ASSIGN_OR_RETURN(bool tied, c.Flag("tie_word_embeddings", true));
  FRUGAL_ASSIGN_OR_RETURN(Dims dims,
                          ResolveDims(c, o, positions, "n_positions"));
  GraphBuilder b(c.path(), dims);
  const int64_t batch = dims.batch, seq = dims.seq;

  TensorInfo wte = Param("wte.weight", {vocab, h});
  TensorInfo x = b.Embedding("wte", b.TokenIds("input_ids"), wte);
  TensorInfo pos =
      b.Embedding("wpe", Constant("position_ids", {1, seq}, DType::kInt64),
                  Param("wpe.weight", {positions, h}));
  x = b.Binary("embed_add", OpKind::kAdd, "add", x, pos);
  x = b.Dropout("drop", x, embd_p);
  // GPT-2 masks with torch.where on its causal "bias" buffer; with a KV
  // cache the rows are the new tokens' and the columns every key's
  // (position ids, and so the wpe rows, start at the cache length).
  TensorInfo causal = Constant("causal_mask", {1, 1, seq, b.keys()}, DType::kBool);
  for (int64_t l = 0; l < layers; ++l) {
    const std::string p = "h." + Num(l) + ".";
    TensorInfo a = b.LayerNorm(p + "ln_1", x);
    TensorInfo qkv = b.Conv1D(p + "attn.c_attn", a, 3 * h);
    Attributes split;
    split.ints["axis"] = {2};
    split.ints["split"] = {h, h, h};
    split.ints["view"] = {1};
    std::vector<TensorInfo> parts =
        b.AddMulti(p + "attn.split", OpKind::kSplit, "split", {qkv},
                   {Tensor(p + "attn.split.query", {batch, seq, h},
                           DType::kFloat32, TensorRole::kActivation),
                    Tensor(p + "attn.split.key", {batch, seq, h},
                           DType::kFloat32, TensorRole::kActivation),
                    Tensor(p + "attn.split.value", {batch, seq, h},
                           DType::kFloat32, TensorRole::kActivation)},
                   split);
    TensorInfo q = b.SplitHeads(p + "attn.query_heads", parts[0], heads);
    TensorInfo k = b.CacheAppend(p + "attn.key_cache",
                                 b.SplitHeads(p + "attn.key_heads", parts[1], heads));
    TensorInfo v = b.CacheAppend(p + "attn.value_cache",
                                 b.SplitHeads(p + "attn.value_heads", parts[2], heads));
    std::vector<ScoreOp> steps;
    if (scale)
      steps.push_back({"scale", OpKind::kDiv, "div", Scalar(p + "attn.scale")});
    if (scale_by_layer) {
      steps.push_back(
          {"layer_scale", OpKind::kDiv, "div", Scalar(p + "attn.layer_scale")});
    }
    steps.push_back({"causal_mask", OpKind::kWhere, "where", causal});
    TensorInfo ctx = b.Attend(p + "attn", q, k, v, steps, attn_p);
    TensorInfo m = b.MergeHeads(p + "attn", ctx);
    TensorInfo out = b.Conv1D(p + "attn.c_proj", m, h);
    out = b.Dropout(p + "attn.resid_dropout", out, resid_p);
    x = b.Binary(p + "attn_residual", OpKind::kAdd, "add", out, x);

    a = b.LayerNorm(p + "ln_2", x);
    TensorInfo f = b.Conv1D(p + "mlp.c_fc", a, inner);
    f = b.Unary(p + "mlp.act", act.kind, act.type, f);
    f = b.Conv1D(p + "mlp.c_proj", f, h);
    f = b.Dropout(p + "mlp.dropout", f, resid_p);
    x = b.Binary(p + "mlp_residual", OpKind::kAdd, "add", x, f);
  }
  x = b.LayerNorm("ln_f", x);
  FRUGAL_RETURN_IF_ERROR(
      DecoderHead(b, c, o.head, x, vocab, tied ? &wte : nullptr));
  return b.Finish(c.stem(), o.head == ModelHead::kBase ? "" : "transformer.");
}

// ---------------------------------------------------------------------------
// OPT (OPTForCausalLM).

Result<OpGraph> BuildOpt(const ConfigReader& c, const ImportOptions& o) {
  FRUGAL_ASSIGN_OR_RETURN(const CoreDims core, ReadCoreDims(c, "ffn_dim"));
  const auto [h, layers, heads, ffn, vocab] = core;
  FRUGAL_ASSIGN_OR_RETURN(int64_t positions,
                          c.OptionalDim("max_position_embeddings", 2048));
  FRUGAL_ASSIGN_OR_RETURN(int64_t proj,
                          c.OptionalDim("word_embed_proj_dim", h));
  FRUGAL_RETURN_IF_ERROR(
      c.Divisible("hidden_size", h, "num_attention_heads", heads));
  FRUGAL_ASSIGN_OR_RETURN(Activation act, c.Act("activation_function", "relu"));
  FRUGAL_ASSIGN_OR_RETURN(double drop_p, c.Probability("dropout", 0.1));
  FRUGAL_ASSIGN_OR_RETURN(double attn_p,
                          c.Probability("attention_dropout", 0.0));
  FRUGAL_ASSIGN_OR_RETURN(bool pre_ln, c.Flag("do_layer_norm_before", true));
  FRUGAL_ASSIGN_OR_RETURN(bool no_final_ln,
                          c.Flag("_remove_final_layer_norm", false));
  FRUGAL_ASSIGN_OR_RETURN(bool bias, c.Flag("enable_bias", true));
  FRUGAL_ASSIGN_OR_RETURN(bool affine,
                          c.Flag("layer_norm_elementwise_affine", true));
  FRUGAL_ASSIGN_OR_RETURN(bool tied, c.Flag("tie_word_embeddings", true));
  FRUGAL_ASSIGN_OR_RETURN(
      Dims dims, ResolveDims(c, o, positions, "max_position_embeddings"));
  GraphBuilder b(c.path(), dims);
  const int64_t batch = dims.batch, seq = dims.seq, d = h / heads;

  TensorInfo embed = Param("embed_tokens.weight", {vocab, proj});
  TensorInfo x = b.Embedding("embed_tokens", b.TokenIds("input_ids"), embed);
  // Positions come from cumsum(attention_mask) (the last S of them with a
  // KV cache); the table has 2 extra rows because fairseq offsets position
  // ids by the padding index.
  TensorInfo pos = b.Embedding(
      "embed_positions", Constant("position_ids", {batch, seq}, DType::kInt64),
      Param("embed_positions.weight", {positions + 2, h}));
  if (proj != h) x = b.Linear("project_in", x, h, false);
  x = b.Binary("embed_add", OpKind::kAdd, "add", x, pos);
  TensorInfo causal = Constant("causal_mask", {batch, 1, seq, b.keys()});
  for (int64_t l = 0; l < layers; ++l) {
    const std::string p = "layers." + Num(l) + ".";
    const std::string sa = p + "self_attn";
    TensorInfo a =
        pre_ln ? b.LayerNorm(p + "self_attn_layer_norm", x, affine) : x;
    // OPT scales the query projection, not the scores.
    TensorInfo q =
        b.Binary(sa + ".q_scale", OpKind::kMul, "mul",
                 b.Linear(sa + ".q_proj", a, h, bias), Scalar(sa + ".scaling"));
    q = b.SplitHeads(sa + ".q_heads", q, heads);
    TensorInfo k = b.CacheAppend(
        sa + ".key_cache", b.ProjectHeads(sa + ".k_proj", sa + ".k_heads", a, heads, d, bias));
    TensorInfo v = b.CacheAppend(
        sa + ".value_cache", b.ProjectHeads(sa + ".v_proj", sa + ".v_heads", a, heads, d, bias));
    TensorInfo ctx =
        b.Attend(sa, q, k, v, {{"mask", OpKind::kAdd, "add", causal}}, attn_p);
    TensorInfo out = b.Linear(sa + ".out_proj", b.MergeHeads(sa, ctx), h, bias);
    out = b.Dropout(p + "attn_dropout", out, drop_p);
    x = b.Binary(p + "attn_residual", OpKind::kAdd, "add", x, out);
    if (!pre_ln) x = b.LayerNorm(p + "self_attn_layer_norm", x, affine);

    TensorInfo f = pre_ln ? b.LayerNorm(p + "final_layer_norm", x, affine) : x;
    f = b.Linear(p + "fc1", f, ffn, bias);
    f = b.Unary(p + "activation_fn", act.kind, act.type, f);
    f = b.Linear(p + "fc2", f, h, bias);
    f = b.Dropout(p + "ffn_dropout", f, drop_p);
    x = b.Binary(p + "ffn_residual", OpKind::kAdd, "add", x, f);
    if (!pre_ln) x = b.LayerNorm(p + "final_layer_norm", x, affine);
  }
  if (pre_ln && !no_final_ln) x = b.LayerNorm("final_layer_norm", x, affine);
  if (proj != h) x = b.Linear("project_out", x, proj, false);
  FRUGAL_RETURN_IF_ERROR(
      DecoderHead(b, c, o.head, x, vocab, tied ? &embed : nullptr));
  return b.Finish(c.stem(), o.head == ModelHead::kBase ? "decoder." : "model.decoder.");
}

}  // namespace frugal::importers::hf
