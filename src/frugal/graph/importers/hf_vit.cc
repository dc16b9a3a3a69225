// ViT (ViTForImageClassification / ViTModel): a Conv2d patch embedding, a
// class token and learned position embeddings, then a pre-norm BERT-style
// encoder. Images are B x num_channels x image_size x image_size; the
// "sequence" is the patches plus the class token, fixed by the config.
#include <string>

#include "frugal/graph/importers/hf_architectures.h"
#include "frugal/graph/importers/hf_builder.h"

namespace frugal::importers::hf {

Result<OpGraph> BuildVit(const ConfigReader& c, const ImportOptions& o) {
  FRUGAL_ASSIGN_OR_RETURN(const CoreDims core,
                          ReadCoreDims(c, "intermediate_size", /*with_vocab=*/false));
  const auto [h, layers, heads, inter, no_vocab] = core;
  FRUGAL_ASSIGN_OR_RETURN(int64_t image, c.OptionalDim("image_size", 224));
  FRUGAL_ASSIGN_OR_RETURN(int64_t patch, c.OptionalDim("patch_size", 16));
  FRUGAL_ASSIGN_OR_RETURN(int64_t channels, c.OptionalDim("num_channels", 3));
  FRUGAL_RETURN_IF_ERROR(c.Divisible("hidden_size", h, "num_attention_heads", heads));
  FRUGAL_RETURN_IF_ERROR(c.Divisible("image_size", image, "patch_size", patch));
  FRUGAL_ASSIGN_OR_RETURN(Activation act, c.Act("hidden_act", "gelu"));
  FRUGAL_ASSIGN_OR_RETURN(bool qkv_bias, c.Flag("qkv_bias", true));
  FRUGAL_ASSIGN_OR_RETURN(double hidden_p, c.Probability("hidden_dropout_prob", 0.0));
  FRUGAL_ASSIGN_OR_RETURN(double attn_p,
                          c.Probability("attention_probs_dropout_prob", 0.0));
  if (o.head == ModelHead::kLm) {
    return Unimplemented(c.path() +
                         ": vit has no language-model head (use --head seq-cls for "
                         "ViTForImageClassification or base for ViTModel)");
  }
  if (o.seq_len != 0) {
    return c.Error("--seq does not apply to vit: the sequence is the image's " +
                   Num((image / patch) * (image / patch)) +
                   " patches plus the class token (set image_size / patch_size instead)");
  }
  const int64_t side = image / patch, patches = side * side, tokens = patches + 1;
  FRUGAL_ASSIGN_OR_RETURN(Dims dims, ResolveUnboundedDims(c, o, tokens));
  GraphBuilder b(c.path(), dims);
  const int64_t batch = dims.batch, d = h / heads;

  TensorInfo pixels = b.Input("pixel_values", {batch, channels, image, image},
                              DType::kFloat32);
  Attributes conv;
  conv.ints["kernel_shape"] = {patch, patch};
  conv.ints["strides"] = {patch, patch};
  const std::string pe = "embeddings.patch_embeddings.projection";
  TensorInfo x = b.Add(pe, OpKind::kConv, "Conv2d",
                       {pixels, Param(pe + ".weight", {h, channels, patch, patch}),
                        Param(pe + ".bias", {h})},
                       {batch, h, side, side}, conv);
  x = b.Move("embeddings.patch_embeddings.flatten", OpKind::kReshape, "flatten", x,
             {batch, h, patches}, true);
  x = b.Move("embeddings.patch_embeddings.transpose", OpKind::kTranspose, "transpose", x,
             {batch, patches, h}, true);
  TensorInfo cls = b.Move("embeddings.cls_expand", OpKind::kExpand, "expand",
                          Param("embeddings.cls_token", {1, 1, h}), {batch, 1, h}, true);
  x = b.Add("embeddings.cat_cls", OpKind::kConcat, "cat", {cls, x}, {batch, tokens, h},
            Axis(1));
  x = b.Binary("embeddings.add_position", OpKind::kAdd, "add", x,
               Param("embeddings.position_embeddings", {1, tokens, h}));
  x = b.Dropout("embeddings.dropout", x, hidden_p);
  for (int64_t l = 0; l < layers; ++l) {
    const std::string p = "encoder.layer." + Num(l) + ".";
    const std::string sa = p + "attention.attention";
    TensorInfo a = b.LayerNorm(p + "layernorm_before", x);
    TensorInfo q = b.ProjectHeads(sa + ".query", sa + ".query_heads", a, heads, d, qkv_bias);
    TensorInfo k = b.ProjectHeads(sa + ".key", sa + ".key_heads", a, heads, d, qkv_bias);
    TensorInfo v = b.ProjectHeads(sa + ".value", sa + ".value_heads", a, heads, d, qkv_bias);
    // No mask: every patch sees every patch.
    TensorInfo ctx = b.Attend(sa, q, k, v,
                              {{"scale", OpKind::kDiv, "div", Scalar(sa + ".scale")}}, attn_p);
    TensorInfo out = b.Linear(p + "attention.output.dense", b.MergeHeads(sa, ctx), h, true);
    out = b.Dropout(p + "attention.output.dropout", out, hidden_p);
    x = b.Binary(p + "attention_residual", OpKind::kAdd, "add", out, x);
    TensorInfo f = b.LayerNorm(p + "layernorm_after", x);
    f = b.Linear(p + "intermediate.dense", f, inter, true);
    f = b.Unary(p + "intermediate.intermediate_act_fn", act.kind, act.type, f);
    f = b.Linear(p + "output.dense", f, h, true);
    f = b.Dropout(p + "output.dropout", f, hidden_p);
    x = b.Binary(p + "output_residual", OpKind::kAdd, "add", f, x);
  }
  x = b.LayerNorm("layernorm", x);
  TensorInfo first = b.Move("first_token", OpKind::kSlice, "select", x, {batch, h}, true);
  if (o.head == ModelHead::kSeqCls) {
    // ViTForImageClassification builds ViTModel without its pooler.
    FRUGAL_ASSIGN_OR_RETURN(int64_t labels, c.NumLabels());
    b.Linear("classifier", first, labels, true);
  } else {
    TensorInfo pooled = b.Linear("pooler.dense", first, h, true);
    b.Unary("pooler.activation", OpKind::kTanh, "tanh", pooled);
  }
  return b.Finish(c.stem(), o.head == ModelHead::kBase ? "" : "vit.");
}

}  // namespace frugal::importers::hf
