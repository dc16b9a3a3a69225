// Hugging Face config.json importer: rebuilds the forward graph that
// transformers' eager PyTorch code runs for GPT2LMHeadModel, BertLMHeadModel,
// OPTForCausalLM, LlamaForCausalLM and SwitchTransformersForConditional-
// Generation, op by op, with exact fp32 shapes for a batch B and sequence
// length S. No weights are read: parameter tensors carry shapes only. Op and
// parameter names are the Hugging Face module paths without the wrapper
// prefix ("transformer.", "bert.", "model.decoder.", "model."), so parameter
// names match the checkpoint's state dict. Assumptions (dropout kept as ops,
// MoE tokens split evenly, tied heads) are listed in docs/hf_models.md.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "frugal/base/file_io.h"
#include "frugal/graph/graph_json.h"
#include "frugal/graph/importers/importers.h"
#include "frugal/graph/op_cost.h"

namespace frugal::importers {
namespace {

using nlohmann::json;
using Shape = std::vector<int64_t>;

// Larger than any released vocabulary or width; beyond it a value is a typo.
constexpr int64_t kMaxDim = int64_t{1} << 24;
constexpr int64_t kMaxLayers = 1024;
constexpr int64_t kMaxExperts = 1024;
// Graphs beyond this many ops are not worth building (and would exhaust
// memory on hostile inputs).
constexpr double kMaxOps = 2e6;
// Switch / T5 use relative positions and have no maximum; they were
// pre-trained with 512-token inputs.
constexpr int64_t kT5DefaultSeqLen = 512;
constexpr int64_t kDefaultSeqCap = 1024;

// ---------------------------------------------------------------------------
// Reading config.json fields with one-line errors that name the field.

struct Activation {
  OpKind kind;
  const char* type;
};

constexpr struct {
  const char* name;
  Activation act;
} kActivations[] = {
    {"gelu", {OpKind::kGelu, "gelu"}},
    {"gelu_new", {OpKind::kGeluTanh, "gelu_new"}},
    {"gelu_fast", {OpKind::kGeluTanh, "gelu_fast"}},
    {"gelu_pytorch_tanh", {OpKind::kGeluTanh, "gelu_pytorch_tanh"}},
    {"relu", {OpKind::kRelu, "relu"}},
    {"silu", {OpKind::kSilu, "silu"}},
    {"swish", {OpKind::kSilu, "silu"}},
    {"tanh", {OpKind::kTanh, "tanh"}},
    {"sigmoid", {OpKind::kSigmoid, "sigmoid"}},
};

class ConfigReader {
 public:
  ConfigReader(const json& doc, std::string path)
      : doc_(doc), path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  std::string stem() const {
    return std::filesystem::path(path_).stem().string();
  }

  // A JSON null counts as absent: HF writes "n_inner": null for "default".
  bool Has(const char* key) const {
    auto it = doc_.find(key);
    return it != doc_.end() && !it->is_null();
  }

  // A positive integer no larger than `max`; required when no default.
  Result<int64_t> Dim(const char* key, int64_t max = kMaxDim) const {
    if (!Has(key)) return Error("missing field '" + std::string(key) + "'");
    return Integer(key, 1, max);
  }
  Result<int64_t> OptionalDim(const char* key, int64_t def,
                              int64_t max = kMaxDim) const {
    return Has(key) ? Integer(key, 1, max) : Result<int64_t>(def);
  }
  // A non-negative integer (counts that may be zero).
  Result<int64_t> Count(const char* key, int64_t def) const {
    return Has(key) ? Integer(key, 0, kMaxDim) : Result<int64_t>(def);
  }

  Result<double> Probability(const char* key, double def) const {
    if (!Has(key)) return def;
    const json& v = doc_.at(key);
    double p = v.is_number() ? v.get<double>() : -1;
    if (!(p >= 0 && p < 1)) {
      return Error("field '" + std::string(key) +
                   "' must be a probability in [0, 1), got " + Dump(v));
    }
    return p;
  }

  Result<bool> Flag(const char* key, bool def) const {
    if (!Has(key)) return def;
    const json& v = doc_.at(key);
    if (!v.is_boolean()) {
      return Error("field '" + std::string(key) +
                   "' must be true or false, got " + Dump(v));
    }
    return v.get<bool>();
  }

  Result<std::string> String(const char* key, const std::string& def) const {
    if (!Has(key)) return def;
    const json& v = doc_.at(key);
    if (!v.is_string()) {
      return Error("field '" + std::string(key) + "' must be a string, got " +
                   Dump(v));
    }
    return v.get<std::string>();
  }

  Result<Activation> Act(const char* key, const std::string& def) const {
    FRUGAL_ASSIGN_OR_RETURN(std::string name, String(key, def));
    for (const auto& row : kActivations) {
      if (name == row.name) return row.act;
    }
    return Unimplemented(path_ + ": " + key + " '" + name + "' not supported");
  }

  Status Divisible(const char* key, int64_t value, const char* by_key,
                   int64_t by) const {
    if (value % by == 0) return Status::Ok();
    return Error("field '" + std::string(key) + "' (" + std::to_string(value) +
                 ") is not divisible by '" + by_key + "' (" +
                 std::to_string(by) + ")");
  }

  Status Error(const std::string& what) const {
    return InvalidArgument(path_ + ": " + what);
  }

 private:
  static std::string Dump(const json& v) {
    std::string s = v.dump();
    return s.size() > 40 ? s.substr(0, 40) + "..." : s;
  }

  Result<int64_t> Integer(const char* key, int64_t min, int64_t max) const {
    const json& v = doc_.at(key);
    std::string field = "field '" + std::string(key) + "'";
    std::string want = min > 0 ? " must be a positive integer, got "
                               : " must be a non-negative integer, got ";
    double d = v.is_number() ? v.get<double>() : std::nan("");
    if (std::isnan(d) || d != std::floor(d) || d < static_cast<double>(min)) {
      return Error(field + want + Dump(v));
    }
    if (d > static_cast<double>(max)) {
      return Error(field + " is absurdly large (" + Dump(v) + ", limit " +
                   std::to_string(max) + ")");
    }
    return static_cast<int64_t>(d);
  }

  const json& doc_;
  std::string path_;
};

struct Dims {
  int64_t batch = 1;
  int64_t seq = 1;
};

// Batch 0 means 1; sequence length 0 means the model's maximum, capped so
// that a default import stays cheap. `max_positions` 0 means unbounded.
Result<Dims> ResolveDims(const ConfigReader& c, const ImportOptions& o,
                         int64_t max_positions, const char* field,
                         int64_t def) {
  Dims d;
  d.batch = o.batch == 0 ? 1 : o.batch;
  if (d.batch < 0 || d.batch > kMaxDim) {
    return c.Error("batch " + std::to_string(o.batch) +
                   " is out of range [1, " + std::to_string(kMaxDim) + "]");
  }
  d.seq = o.seq_len == 0 ? def : o.seq_len;
  if (max_positions > 0 && d.seq > max_positions) {
    return c.Error("sequence length " + std::to_string(d.seq) + " exceeds " +
                   field + " (" + std::to_string(max_positions) + ")");
  }
  if (d.seq < 0 || d.seq > kMaxDim) {
    return c.Error("sequence length " + std::to_string(o.seq_len) +
                   " is out of range [1, " + std::to_string(kMaxDim) + "]");
  }
  return d;
}

// ---------------------------------------------------------------------------
// GraphBuilder: appends ops in execution order, names each op's output after
// the op, and wires an edge from the producer of every activation input, so
// the architecture code below reads like the PyTorch forward().

TensorInfo Tensor(std::string name, Shape shape, DType dtype, TensorRole role) {
  TensorInfo t;
  t.name = std::move(name);
  t.shape = std::move(shape);
  t.dtype = dtype;
  t.role = role;
  return t;
}

TensorInfo Param(std::string name, Shape shape) {
  return Tensor(std::move(name), std::move(shape), DType::kFloat32,
                TensorRole::kParameter);
}

// Values that depend only on the shapes (masks, position ids, rotary tables,
// scale factors): PyTorch builds them from buffers or arange, not from data.
TensorInfo Constant(std::string name, Shape shape,
                    DType dtype = DType::kFloat32) {
  return Tensor(std::move(name), std::move(shape), dtype,
                TensorRole::kConstant);
}

TensorInfo Scalar(std::string name) { return Constant(std::move(name), {}); }

Shape WithLast(Shape s, int64_t last) {
  s.back() = last;
  return s;
}

// NumPy broadcasting: dims aligned from the right, 1 stretches.
Shape Broadcast(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    out[out.size() - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

// One step applied to the attention scores before softmax: scale, mask or
// position bias, each an elementwise op with a second operand.
struct ScoreOp {
  std::string label;
  OpKind kind;
  const char* type;
  TensorInfo operand;
};

class GraphBuilder {
 public:
  GraphBuilder(std::string path, Dims dims)
      : path_(std::move(path)), dims_(dims) {}

  int64_t batch() const { return dims_.batch; }
  int64_t seq() const { return dims_.seq; }

  // A tensor fed to the model (token ids): read by ops, produced by none.
  TensorInfo Input(const std::string& name, Shape shape, DType dtype) {
    inputs_.insert(name);
    return Tensor(name, std::move(shape), dtype, TensorRole::kActivation);
  }

  std::vector<TensorInfo> AddMulti(const std::string& name, OpKind kind,
                                   const char* type,
                                   std::vector<TensorInfo> inputs,
                                   std::vector<TensorInfo> outputs,
                                   Attributes attrs = {}) {
    if (!status_.ok()) return outputs;
    // Checked before anything multiplies int64 dims: a huge batch or
    // sequence length must become an error, not an overflow.
    for (const auto* list : {&inputs, &outputs}) {
      for (const TensorInfo& t : *list) {
        double bytes = static_cast<double>(DTypeBytes(t.dtype));
        for (int64_t d : t.shape) bytes *= static_cast<double>(d);
        if (bytes > kMaxSaneBytes) {
          status_ = InvalidArgument(
              path_ + ": tensor '" + t.name + "' " + ShapeString(t.shape) +
              " is absurdly large (batch " + std::to_string(batch()) +
              ", sequence length " + std::to_string(seq()) + ")");
          return outputs;
        }
      }
    }
    Op op;
    op.name = name;
    op.kind = kind;
    op.type = type;
    op.inputs = std::move(inputs);
    op.outputs = outputs;
    op.attrs = std::move(attrs);
    int index = graph_.AddOp(std::move(op));
    std::set<std::string> wired;
    for (const TensorInfo& t : graph_.ops[index].inputs) {
      if (t.role != TensorRole::kActivation) continue;
      auto it = producer_.find(t.name);
      if (it == producer_.end()) {
        if (inputs_.count(t.name) == 0) {
          status_ = Internal(path_ + ": op '" + name +
                             "' reads undefined tensor '" + t.name + "'");
        }
        continue;
      }
      if (wired.insert(t.name).second) {
        graph_.AddEdge(it->second, index, t.Bytes(), t.name);
      }
    }
    for (const TensorInfo& t : outputs) {
      if (!producer_.emplace(t.name, index).second) {
        status_ = Internal(path_ + ": tensor '" + t.name + "' produced twice");
      }
    }
    return outputs;
  }

  TensorInfo Add(const std::string& name, OpKind kind, const char* type,
                 std::vector<TensorInfo> inputs, Shape out_shape,
                 Attributes attrs = {}, DType out_dtype = DType::kFloat32) {
    return AddMulti(name, kind, type, std::move(inputs),
                    {Tensor(name, std::move(out_shape), out_dtype,
                            TensorRole::kActivation)},
                    std::move(attrs))[0];
  }

  // nn.Linear: weight [out, in] (hence transB), optional bias. `tied` reuses
  // another op's parameter tensor (an LM head tied to the embedding).
  TensorInfo Linear(const std::string& name, const TensorInfo& x, int64_t out,
                    bool bias, const TensorInfo* tied = nullptr) {
    std::vector<TensorInfo> in = {
        x, tied != nullptr ? *tied
                           : Param(name + ".weight", {out, x.shape.back()})};
    if (bias) in.push_back(Param(name + ".bias", {out}));
    Attributes a;
    a.ints["transB"] = {1};
    return Add(name, OpKind::kMatMul, "Linear", std::move(in),
               WithLast(x.shape, out), a);
  }

  // GPT-2's Conv1D: a linear layer whose weight is stored [in, out].
  TensorInfo Conv1D(const std::string& name, const TensorInfo& x, int64_t out) {
    return Add(name, OpKind::kMatMul, "Conv1D",
               {x, Param(name + ".weight", {x.shape.back(), out}),
                Param(name + ".bias", {out})},
               WithLast(x.shape, out));
  }

  TensorInfo Embedding(const std::string& name, const TensorInfo& ids,
                       const TensorInfo& table) {
    Shape out = ids.shape;
    out.push_back(table.shape[1]);
    return Add(name, OpKind::kEmbedding, "Embedding", {ids, table}, out);
  }

  TensorInfo LayerNorm(const std::string& name, const TensorInfo& x,
                       bool affine = true) {
    std::vector<TensorInfo> in = {x};
    if (affine) {
      in.push_back(Param(name + ".weight", {x.shape.back()}));
      in.push_back(Param(name + ".bias", {x.shape.back()}));
    }
    return Add(name, OpKind::kLayerNorm, "LayerNorm", std::move(in), x.shape,
               Axis(-1));
  }

  // LlamaRMSNorm and T5LayerNorm: scale only, no mean, no bias.
  TensorInfo RmsNorm(const std::string& name, const TensorInfo& x,
                     const char* type) {
    return Add(name, OpKind::kRmsNorm, type,
               {x, Param(name + ".weight", {x.shape.back()})}, x.shape,
               Axis(-1));
  }

  // PyTorch returns the input unchanged for p = 0, so no kernel runs.
  TensorInfo Dropout(const std::string& name, const TensorInfo& x, double p) {
    if (p <= 0) return x;
    Attributes a;
    a.floats["ratio"] = p;
    return Add(name, OpKind::kDropout, "Dropout", {x}, x.shape, a);
  }

  TensorInfo Unary(const std::string& name, OpKind kind, const char* type,
                   const TensorInfo& x) {
    return Add(name, kind, type, {x}, x.shape);
  }

  TensorInfo Binary(const std::string& name, OpKind kind, const char* type,
                    const TensorInfo& a, const TensorInfo& b) {
    return Add(name, kind, type, {a, b}, Broadcast(a.shape, b.shape));
  }

  // Reshape / transpose. `view` marks the ones PyTorch runs as stride
  // changes without a kernel, so time models can price them at zero.
  TensorInfo Move(const std::string& name, OpKind kind, const char* type,
                  const TensorInfo& x, Shape out, bool view) {
    Attributes a;
    if (view) a.ints["view"] = {1};
    return Add(name, kind, type, {x}, std::move(out), a);
  }

  // [B, S, heads * d] -> view [B, S, heads, d] -> transpose [B, heads, S, d].
  TensorInfo SplitHeads(const std::string& name, const TensorInfo& x,
                        int64_t heads) {
    int64_t b = x.shape[0], s = x.shape[1], d = x.shape[2] / heads;
    TensorInfo v = Move(name + ".view", OpKind::kReshape, "view", x,
                        {b, s, heads, d}, true);
    return Move(name + ".transpose", OpKind::kTranspose, "transpose", v,
                {b, heads, s, d}, true);
  }

  // [B, heads, S, d] -> transpose(1, 2).contiguous() (a copy) -> view.
  TensorInfo MergeHeads(const std::string& prefix, const TensorInfo& ctx) {
    int64_t b = ctx.shape[0], h = ctx.shape[1], s = ctx.shape[2],
            d = ctx.shape[3];
    TensorInfo t = Move(prefix + ".merge_transpose", OpKind::kTranspose,
                        "transpose", ctx, {b, s, h, d}, false);
    return Move(prefix + ".merge_view", OpKind::kReshape, "view", t,
                {b, s, h * d}, true);
  }

  // Eager attention on [B, heads, S, d] tensors: Q K^T, the score steps,
  // softmax, dropout, then probabilities x V.
  TensorInfo Attend(const std::string& prefix, const TensorInfo& q,
                    const TensorInfo& k, const TensorInfo& v,
                    const std::vector<ScoreOp>& steps, double dropout) {
    Shape kt_shape = {k.shape[0], k.shape[1], k.shape[3], k.shape[2]};
    TensorInfo kt = Move(prefix + ".key_t", OpKind::kTranspose, "transpose", k,
                         kt_shape, true);
    TensorInfo scores =
        Add(prefix + ".scores", OpKind::kBatchMatMul, "matmul", {q, kt},
            {q.shape[0], q.shape[1], q.shape[2], k.shape[2]});
    for (const ScoreOp& s : steps) {
      scores =
          Binary(prefix + "." + s.label, s.kind, s.type, scores, s.operand);
    }
    TensorInfo probs = Add(prefix + ".softmax", OpKind::kSoftmax, "softmax",
                           {scores}, scores.shape, Axis(-1));
    probs = Dropout(prefix + ".attn_dropout", probs, dropout);
    return Add(prefix + ".context", OpKind::kBatchMatMul, "matmul", {probs, v},
               {q.shape[0], q.shape[1], q.shape[2], v.shape[3]});
  }

  Result<OpGraph> Finish(const std::string& name) {
    if (!status_.ok()) return status_;
    graph_.name = name;
    graph_.source_format = "hf";
    graph_.batch = batch();
    graph_.seq_len = seq();
    Status s = FinalizeForwardCosts(graph_);
    if (!s.ok()) return s.WithPrefix(path_);
    return std::move(graph_);
  }

 private:
  static Attributes Axis(int64_t axis) {
    Attributes a;
    a.ints["axis"] = {axis};
    return a;
  }

  std::string path_;
  Dims dims_;
  OpGraph graph_;
  std::unordered_map<std::string, int> producer_;
  std::unordered_set<std::string> inputs_;
  Status status_;
};

std::string Num(int64_t i) { return std::to_string(i); }

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
                          ResolveDims(c, o, positions, "n_positions",
                                      std::min(positions, kDefaultSeqCap)));
  GraphBuilder b(c.path(), dims);
  const int64_t batch = dims.batch, seq = dims.seq;

  TensorInfo ids = b.Input("input_ids", {batch, seq}, DType::kInt64);
  TensorInfo wte = Param("wte.weight", {vocab, h});
  TensorInfo x = b.Embedding("wte", ids, wte);
  TensorInfo pos =
      b.Embedding("wpe", Constant("position_ids", {1, seq}, DType::kInt64),
                  Param("wpe.weight", {positions, h}));
  x = b.Binary("embed_add", OpKind::kAdd, "add", x, pos);
  x = b.Dropout("drop", x, embd_p);
  // GPT-2 masks with torch.where on its causal "bias" buffer.
  TensorInfo causal = Constant("causal_mask", {1, 1, seq, seq}, DType::kBool);
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
    TensorInfo k = b.SplitHeads(p + "attn.key_heads", parts[1], heads);
    TensorInfo v = b.SplitHeads(p + "attn.value_heads", parts[2], heads);
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
  b.Linear("lm_head", x, vocab, false, tied ? &wte : nullptr);
  return b.Finish(c.stem());
}

// ---------------------------------------------------------------------------
// BERT (BertLMHeadModel: BertModel without pooler + BertOnlyMLMHead).

Result<OpGraph> BuildBert(const ConfigReader& c, const ImportOptions& o) {
  FRUGAL_ASSIGN_OR_RETURN(int64_t h, c.Dim("hidden_size"));
  FRUGAL_ASSIGN_OR_RETURN(int64_t layers,
                          c.Dim("num_hidden_layers", kMaxLayers));
  FRUGAL_ASSIGN_OR_RETURN(int64_t heads, c.Dim("num_attention_heads"));
  FRUGAL_ASSIGN_OR_RETURN(int64_t inter, c.Dim("intermediate_size"));
  FRUGAL_ASSIGN_OR_RETURN(int64_t vocab, c.Dim("vocab_size"));
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
      Dims dims, ResolveDims(c, o, positions, "max_position_embeddings",
                             std::min(positions, kDefaultSeqCap)));
  GraphBuilder b(c.path(), dims);
  const int64_t batch = dims.batch, seq = dims.seq;

  TensorInfo word = Param("embeddings.word_embeddings.weight", {vocab, h});
  TensorInfo x =
      b.Embedding("embeddings.word_embeddings",
                  b.Input("input_ids", {batch, seq}, DType::kInt64), word);
  TensorInfo tt =
      b.Embedding("embeddings.token_type_embeddings",
                  b.Input("token_type_ids", {batch, seq}, DType::kInt64),
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
    TensorInfo q = b.SplitHeads(sa + ".query_heads",
                                b.Linear(sa + ".query", x, h, true), heads);
    TensorInfo k = b.SplitHeads(sa + ".key_heads",
                                b.Linear(sa + ".key", x, h, true), heads);
    TensorInfo v = b.SplitHeads(sa + ".value_heads",
                                b.Linear(sa + ".value", x, h, true), heads);
    TensorInfo ctx =
        b.Attend(sa, q, k, v,
                 {{"scale", OpKind::kDiv, "div", Scalar(sa + ".scale")},
                  {"mask", OpKind::kAdd, "add", mask}},
                 attn_p);
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
  TensorInfo t = b.Linear("cls.predictions.transform.dense", x, h, true);
  t = b.Unary("cls.predictions.transform.transform_act_fn", act.kind, act.type,
              t);
  t = b.LayerNorm("cls.predictions.transform.LayerNorm", t);
  // The decoder's bias is the separate cls.predictions.bias [vocab].
  b.Linear("cls.predictions.decoder", t, vocab, true, tied ? &word : nullptr);
  return b.Finish(c.stem());
}

// ---------------------------------------------------------------------------
// OPT (OPTForCausalLM).

Result<OpGraph> BuildOpt(const ConfigReader& c, const ImportOptions& o) {
  FRUGAL_ASSIGN_OR_RETURN(int64_t h, c.Dim("hidden_size"));
  FRUGAL_ASSIGN_OR_RETURN(int64_t layers,
                          c.Dim("num_hidden_layers", kMaxLayers));
  FRUGAL_ASSIGN_OR_RETURN(int64_t heads, c.Dim("num_attention_heads"));
  FRUGAL_ASSIGN_OR_RETURN(int64_t ffn, c.Dim("ffn_dim"));
  FRUGAL_ASSIGN_OR_RETURN(int64_t vocab, c.Dim("vocab_size"));
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
      Dims dims, ResolveDims(c, o, positions, "max_position_embeddings",
                             std::min(positions, kDefaultSeqCap)));
  GraphBuilder b(c.path(), dims);
  const int64_t batch = dims.batch, seq = dims.seq;

  TensorInfo embed = Param("embed_tokens.weight", {vocab, proj});
  TensorInfo x = b.Embedding(
      "embed_tokens", b.Input("input_ids", {batch, seq}, DType::kInt64), embed);
  // Positions come from cumsum(attention_mask); the table has 2 extra rows
  // because fairseq offsets position ids by the padding index.
  TensorInfo pos = b.Embedding(
      "embed_positions", Constant("position_ids", {batch, seq}, DType::kInt64),
      Param("embed_positions.weight", {positions + 2, h}));
  if (proj != h) x = b.Linear("project_in", x, h, false);
  x = b.Binary("embed_add", OpKind::kAdd, "add", x, pos);
  TensorInfo causal = Constant("causal_mask", {batch, 1, seq, seq});
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
    TensorInfo k = b.SplitHeads(sa + ".k_heads",
                                b.Linear(sa + ".k_proj", a, h, bias), heads);
    TensorInfo v = b.SplitHeads(sa + ".v_heads",
                                b.Linear(sa + ".v_proj", a, h, bias), heads);
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
  b.Linear("lm_head", x, vocab, false, tied ? &embed : nullptr);
  return b.Finish(c.stem());
}

// ---------------------------------------------------------------------------
// LLaMA (LlamaForCausalLM).

// rotate_half(x) = cat(-x2, x1) over the halves of the head dim, then
// x * cos + rotate_half(x) * sin. The halves are slices (views) of x.
TensorInfo Rotary(GraphBuilder& b, const std::string& name, const TensorInfo& x,
                  const TensorInfo& cos, const TensorInfo& sin) {
  TensorInfo half = x;
  half.shape.back() /= 2;
  TensorInfo neg = b.Unary(name + ".neg", OpKind::kNeg, "neg", half);
  Attributes cat;
  cat.ints["axis"] = {-1};
  TensorInfo rot = b.Add(name + ".rotate_half", OpKind::kConcat, "cat",
                         {neg, half}, x.shape, cat);
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

Result<OpGraph> BuildLlama(const ConfigReader& c, const ImportOptions& o) {
  FRUGAL_ASSIGN_OR_RETURN(int64_t h, c.Dim("hidden_size"));
  FRUGAL_ASSIGN_OR_RETURN(int64_t layers,
                          c.Dim("num_hidden_layers", kMaxLayers));
  FRUGAL_ASSIGN_OR_RETURN(int64_t heads, c.Dim("num_attention_heads"));
  FRUGAL_ASSIGN_OR_RETURN(int64_t inter, c.Dim("intermediate_size"));
  FRUGAL_ASSIGN_OR_RETURN(int64_t vocab, c.Dim("vocab_size"));
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
  FRUGAL_ASSIGN_OR_RETURN(bool attn_bias, c.Flag("attention_bias", false));
  FRUGAL_ASSIGN_OR_RETURN(bool mlp_bias, c.Flag("mlp_bias", false));
  FRUGAL_ASSIGN_OR_RETURN(bool tied, c.Flag("tie_word_embeddings", false));
  FRUGAL_ASSIGN_OR_RETURN(
      Dims dims, ResolveDims(c, o, positions, "max_position_embeddings",
                             std::min(positions, kDefaultSeqCap)));
  GraphBuilder b(c.path(), dims);
  const int64_t batch = dims.batch, seq = dims.seq;

  TensorInfo embed = Param("embed_tokens.weight", {vocab, h});
  TensorInfo x = b.Embedding(
      "embed_tokens", b.Input("input_ids", {batch, seq}, DType::kInt64), embed);
  // cos / sin depend only on positions (cached buffers in transformers 4.31,
  // the version these configs were written with).
  TensorInfo cos = Constant("rotary_cos", {1, 1, seq, d});
  TensorInfo sin = Constant("rotary_sin", {1, 1, seq, d});
  TensorInfo causal = Constant("causal_mask", {batch, 1, seq, seq});
  for (int64_t l = 0; l < layers; ++l) {
    const std::string p = "layers." + Num(l) + ".";
    const std::string sa = p + "self_attn";
    TensorInfo a = b.RmsNorm(p + "input_layernorm", x, "LlamaRMSNorm");
    TensorInfo q =
        b.SplitHeads(sa + ".q_heads",
                     b.Linear(sa + ".q_proj", a, heads * d, attn_bias), heads);
    TensorInfo k = b.SplitHeads(
        sa + ".k_heads", b.Linear(sa + ".k_proj", a, kv_heads * d, attn_bias),
        kv_heads);
    TensorInfo v = b.SplitHeads(
        sa + ".v_heads", b.Linear(sa + ".v_proj", a, kv_heads * d, attn_bias),
        kv_heads);
    q = Rotary(b, sa + ".q_rotary", q, cos, sin);
    k = Rotary(b, sa + ".k_rotary", k, cos, sin);
    if (kv_heads != heads) {
      k = RepeatKv(b, sa + ".k_repeat", k, heads / kv_heads);
      v = RepeatKv(b, sa + ".v_repeat", v, heads / kv_heads);
    }
    TensorInfo ctx =
        b.Attend(sa, q, k, v,
                 {{"scale", OpKind::kDiv, "div", Scalar(sa + ".scale")},
                  {"mask", OpKind::kAdd, "add", causal}},
                 attn_p);
    TensorInfo out =
        b.Linear(sa + ".o_proj", b.MergeHeads(sa, ctx), h, attn_bias);
    x = b.Binary(p + "attn_residual", OpKind::kAdd, "add", x, out);

    a = b.RmsNorm(p + "post_attention_layernorm", x, "LlamaRMSNorm");
    TensorInfo g = b.Linear(p + "mlp.gate_proj", a, inter, mlp_bias);
    g = b.Unary(p + "mlp.act_fn", act.kind, act.type, g);
    TensorInfo u = b.Linear(p + "mlp.up_proj", a, inter, mlp_bias);
    TensorInfo f = b.Binary(p + "mlp.mul", OpKind::kMul, "mul", g, u);
    f = b.Linear(p + "mlp.down_proj", f, h, mlp_bias);
    x = b.Binary(p + "mlp_residual", OpKind::kAdd, "add", x, f);
  }
  x = b.RmsNorm("norm", x, "LlamaRMSNorm");
  b.Linear("lm_head", x, vocab, false, tied ? &embed : nullptr);
  return b.Finish(c.stem());
}

// ---------------------------------------------------------------------------
// Switch Transformers (SwitchTransformersForConditionalGeneration): a T5
// encoder-decoder whose every sparse_step-th feed-forward is a top-1 MoE.

struct SwitchConfig {
  int64_t d_model, d_ff, d_kv, heads, vocab, experts, buckets;
  int64_t enc_layers, dec_layers, enc_step, dec_step;
  Activation act;
  double dropout, jitter;
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
    return b_.SplitHeads(name + "_heads",
                         b_.Linear(name, x, c_.heads * c_.d_kv, false),
                         c_.heads);
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
    TensorInfo f = b_.Linear(name + ".wi", x, c_.d_ff, false);
    f = b_.Unary(name + ".act", c_.act.kind, c_.act.type, f);
    f = b_.Dropout(name + ".dropout", f, c_.dropout);
    return b_.Linear(name + ".wo", f, c_.d_model, false);
  }

  // Top-1 routing. Real routing depends on the data and on expert_capacity;
  // we assume a perfectly balanced router with no dropped tokens, so each
  // expert runs on tokens / experts rows (the remainder goes to the first
  // ones) and the layer costs one dense FFN per token, while every expert's
  // weights count as parameters.
  TensorInfo SparseMlp(const std::string& name, const TensorInfo& x) {
    const int64_t batch = b_.batch(), seq = b_.seq(), experts = c_.experts;
    const int64_t tokens = batch * seq;
    const std::string r = name + ".router";
    TensorInfo h = x;
    if (c_.jitter > 0) {  // training only, like dropout
      h = b_.Binary(r + ".jitter", OpKind::kMul, "mul", h,
                    Constant(r + ".jitter_noise", x.shape));
    }
    TensorInfo logits = b_.Linear(r + ".classifier", h, experts, false);
    Attributes last;
    last.ints["axis"] = {-1};
    TensorInfo probs = b_.Add(r + ".softmax", OpKind::kSoftmax, "softmax",
                              {logits}, logits.shape, last);
    TensorInfo index = b_.Add(r + ".argmax", OpKind::kReduceMax, "argmax",
                              {probs}, {batch, seq}, last, DType::kInt64);
    TensorInfo top = b_.Add(r + ".max", OpKind::kReduceMax, "max", {probs},
                            {batch, seq, 1}, last);
    std::vector<TensorInfo> outs;
    for (int64_t e = 0; e < experts; ++e) {
      const std::string en = name + ".experts.expert_" + Num(e);
      const int64_t rows = tokens / experts + (e < tokens % experts ? 1 : 0);
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

Result<OpGraph> BuildSwitch(const ConfigReader& c, const ImportOptions& o) {
  SwitchConfig s;
  FRUGAL_ASSIGN_OR_RETURN(s.d_model, c.Dim("d_model"));
  FRUGAL_ASSIGN_OR_RETURN(s.d_ff, c.Dim("d_ff"));
  FRUGAL_ASSIGN_OR_RETURN(s.d_kv, c.Dim("d_kv"));
  FRUGAL_ASSIGN_OR_RETURN(s.heads, c.Dim("num_heads"));
  FRUGAL_ASSIGN_OR_RETURN(s.vocab, c.Dim("vocab_size"));
  FRUGAL_ASSIGN_OR_RETURN(s.enc_layers, c.Dim("num_layers", kMaxLayers));
  FRUGAL_ASSIGN_OR_RETURN(
      s.dec_layers,
      c.OptionalDim("num_decoder_layers", s.enc_layers, kMaxLayers));
  FRUGAL_ASSIGN_OR_RETURN(s.experts,
                          c.OptionalDim("num_experts", 8, kMaxExperts));
  FRUGAL_ASSIGN_OR_RETURN(s.buckets,
                          c.OptionalDim("relative_attention_num_buckets", 32));
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
  FRUGAL_ASSIGN_OR_RETURN(Dims dims,
                          ResolveDims(c, o, 0, "", kT5DefaultSeqLen));
  GraphBuilder b(c.path(), dims);
  const int64_t batch = dims.batch, seq = dims.seq;

  SwitchBuilder sb(b, s);
  TensorInfo shared = Param("shared.weight", {s.vocab, s.d_model});
  TensorInfo enc =
      sb.Stack("encoder", b.Input("input_ids", {batch, seq}, DType::kInt64),
               shared, nullptr);
  TensorInfo x = sb.Stack(
      "decoder", b.Input("decoder_input_ids", {batch, seq}, DType::kInt64),
      shared, &enc);
  // With tied embeddings the decoder output is rescaled by d_model^-0.5
  // before the projection (Mesh TensorFlow convention).
  if (tied)
    x = b.Binary("lm_head_scale", OpKind::kMul, "mul", x,
                 Scalar("lm_head_scale.factor"));
  b.Linear("lm_head", x, s.vocab, false, tied ? &shared : nullptr);
  return b.Finish(c.stem());
}

// ---------------------------------------------------------------------------

struct Architecture {
  const char* model_type;
  const char*
      class_prefix;  // of the "architectures" entry, when model_type is absent
  Result<OpGraph> (*build)(const ConfigReader&, const ImportOptions&);
};

constexpr Architecture kArchitectures[] = {
    {"gpt2", "GPT2", &BuildGpt2},
    {"bert", "Bert", &BuildBert},
    {"opt", "OPT", &BuildOpt},
    {"llama", "Llama", &BuildLlama},
    {"switch_transformers", "SwitchTransformers", &BuildSwitch},
};

std::string SupportedTypes() {
  std::string s;
  for (const auto& a : kArchitectures)
    s += std::string(s.empty() ? "" : ", ") + a.model_type;
  return s;
}

Result<std::string> ModelType(const ConfigReader& c, const json& doc) {
  if (c.Has("model_type")) return c.String("model_type", "");
  if (c.Has("architectures") && doc["architectures"].is_array() &&
      !doc["architectures"].empty() && doc["architectures"][0].is_string()) {
    std::string cls = doc["architectures"][0].get<std::string>();
    for (const auto& a : kArchitectures) {
      if (cls.rfind(a.class_prefix, 0) == 0) return std::string(a.model_type);
    }
    return Unimplemented(
        c.path() + ": architecture '" + cls +
        "' not supported (supported model types: " + SupportedTypes() + ")");
  }
  return c.Error("missing field 'model_type'");
}

}  // namespace

bool DetectHfConfig(const std::string& path, std::string_view contents) {
  if (FileExtension(path) != "json") return false;
  std::string_view head =
      contents.substr(0, std::min<size_t>(contents.size(), 256));
  if (head.find(kGraphFormatTag) != std::string_view::npos) return false;
  if (contents.find("\"fpgaLatency\"") != std::string_view::npos) return false;
  // model_type can sit after a long id2label map, so search everything:
  // config files are small.
  return contents.find("\"model_type\"") != std::string_view::npos ||
         contents.find("\"architectures\"") != std::string_view::npos;
}

Result<OpGraph> ImportHfConfig(const std::string& path,
                               std::string_view contents,
                               const ImportOptions& options) {
  FRUGAL_ASSIGN_OR_RETURN(json doc, ParseJson(std::string(contents), path));
  if (!doc.is_object())
    return InvalidArgument(path + ": top level is not a JSON object");
  ConfigReader c(doc, path);
  FRUGAL_ASSIGN_OR_RETURN(std::string type, ModelType(c, doc));
  for (const auto& a : kArchitectures) {
    if (type == a.model_type) return a.build(c, options);
  }
  return Unimplemented(path + ": model_type '" + type +
                       "' not supported (supported: " + SupportedTypes() + ")");
}

}  // namespace frugal::importers
