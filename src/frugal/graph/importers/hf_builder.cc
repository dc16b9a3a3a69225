#include "frugal/graph/importers/hf_builder.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "frugal/graph/op_cost.h"
#include "frugal/graph/tensor.h"

namespace frugal::importers::hf {
namespace {

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

}  // namespace

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

TensorInfo Constant(std::string name, Shape shape, DType dtype) {
  return Tensor(std::move(name), std::move(shape), dtype,
                TensorRole::kConstant);
}

TensorInfo Scalar(std::string name) { return Constant(std::move(name), {}); }

Attributes Axis(int64_t axis) {
  Attributes a;
  a.ints["axis"] = {axis};
  return a;
}

std::string Num(int64_t i) { return std::to_string(i); }

GraphBuilder::GraphBuilder(std::string path, Dims dims)
    : path_(std::move(path)), dims_(dims) {}

TensorInfo GraphBuilder::Input(const std::string& name, Shape shape,
                               DType dtype) {
  inputs_.insert(name);
  return Tensor(name, std::move(shape), dtype, TensorRole::kActivation);
}

TensorInfo GraphBuilder::TokenIds(const std::string& name) {
  return Input(name, {batch(), seq()}, DType::kInt64);
}

std::vector<TensorInfo> GraphBuilder::AddMulti(const std::string& name,
                                               OpKind kind, const char* type,
                                               std::vector<TensorInfo> inputs,
                                               std::vector<TensorInfo> outputs,
                                               Attributes attrs) {
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

TensorInfo GraphBuilder::Add(const std::string& name, OpKind kind,
                             const char* type, std::vector<TensorInfo> inputs,
                             Shape out_shape, Attributes attrs,
                             DType out_dtype) {
  return AddMulti(
      name, kind, type, std::move(inputs),
      {Tensor(name, std::move(out_shape), out_dtype, TensorRole::kActivation)},
      std::move(attrs))[0];
}

TensorInfo GraphBuilder::Linear(const std::string& name, const TensorInfo& x,
                                int64_t out, bool bias,
                                const TensorInfo* tied) {
  std::vector<TensorInfo> in = {
      x,
      tied != nullptr ? *tied : Param(name + ".weight", {out, x.shape.back()})};
  if (bias) in.push_back(Param(name + ".bias", {out}));
  Attributes a;
  a.ints["transB"] = {1};
  return Add(name, OpKind::kMatMul, "Linear", std::move(in),
             WithLast(x.shape, out), a);
}

TensorInfo GraphBuilder::Conv1D(const std::string& name, const TensorInfo& x,
                                int64_t out) {
  return Add(name, OpKind::kMatMul, "Conv1D",
             {x, Param(name + ".weight", {x.shape.back(), out}),
              Param(name + ".bias", {out})},
             WithLast(x.shape, out));
}

TensorInfo GraphBuilder::Embedding(const std::string& name,
                                   const TensorInfo& ids,
                                   const TensorInfo& table) {
  Shape out = ids.shape;
  out.push_back(table.shape[1]);
  return Add(name, OpKind::kEmbedding, "Embedding", {ids, table}, out);
}

TensorInfo GraphBuilder::LayerNorm(const std::string& name, const TensorInfo& x,
                                   bool affine) {
  std::vector<TensorInfo> in = {x};
  if (affine) {
    in.push_back(Param(name + ".weight", {x.shape.back()}));
    in.push_back(Param(name + ".bias", {x.shape.back()}));
  }
  return Add(name, OpKind::kLayerNorm, "LayerNorm", std::move(in), x.shape,
             Axis(-1));
}

TensorInfo GraphBuilder::RmsNorm(const std::string& name, const TensorInfo& x,
                                 const char* type) {
  return Add(name, OpKind::kRmsNorm, type,
             {x, Param(name + ".weight", {x.shape.back()})}, x.shape, Axis(-1));
}

TensorInfo GraphBuilder::Dropout(const std::string& name, const TensorInfo& x,
                                 double p) {
  if (p <= 0) return x;
  Attributes a;
  a.floats["ratio"] = p;
  return Add(name, OpKind::kDropout, "Dropout", {x}, x.shape, a);
}

TensorInfo GraphBuilder::Unary(const std::string& name, OpKind kind,
                               const char* type, const TensorInfo& x) {
  return Add(name, kind, type, {x}, x.shape);
}

TensorInfo GraphBuilder::Binary(const std::string& name, OpKind kind,
                                const char* type, const TensorInfo& a,
                                const TensorInfo& b) {
  return Add(name, kind, type, {a, b}, Broadcast(a.shape, b.shape));
}

TensorInfo GraphBuilder::Move(const std::string& name, OpKind kind,
                              const char* type, const TensorInfo& x, Shape out,
                              bool view) {
  Attributes a;
  if (view) a.ints["view"] = {1};
  return Add(name, kind, type, {x}, std::move(out), a);
}

TensorInfo GraphBuilder::SplitHeads(const std::string& name,
                                    const TensorInfo& x, int64_t heads) {
  int64_t b = x.shape[0], s = x.shape[1], d = x.shape[2] / heads;
  TensorInfo v =
      Move(name + ".view", OpKind::kReshape, "view", x, {b, s, heads, d}, true);
  return Move(name + ".transpose", OpKind::kTranspose, "transpose", v,
              {b, heads, s, d}, true);
}

TensorInfo GraphBuilder::ProjectHeads(const std::string& proj,
                                      const std::string& name,
                                      const TensorInfo& x, int64_t heads,
                                      int64_t head_dim, bool bias) {
  return SplitHeads(name, Linear(proj, x, heads * head_dim, bias), heads);
}

TensorInfo GraphBuilder::CacheAppend(const std::string& name, const TensorInfo& x) {
  if (past() == 0) return x;
  const Shape& s = x.shape;
  TensorInfo cache = Tensor(name + ".past", {s[0], s[1], past(), s[3]}, x.dtype,
                            TensorRole::kBuffer);
  Attributes a = Axis(2);
  a.ints["kv_cache"] = {1};
  return Add(name, OpKind::kConcat, "cat", {cache, x}, {s[0], s[1], past() + s[2], s[3]}, a,
             x.dtype);
}

TensorInfo GraphBuilder::MergeHeads(const std::string& prefix,
                                    const TensorInfo& ctx) {
  int64_t b = ctx.shape[0], h = ctx.shape[1], s = ctx.shape[2],
          d = ctx.shape[3];
  TensorInfo t = Move(prefix + ".merge_transpose", OpKind::kTranspose,
                      "transpose", ctx, {b, s, h, d}, false);
  return Move(prefix + ".merge_view", OpKind::kReshape, "view", t,
              {b, s, h * d}, true);
}

TensorInfo GraphBuilder::Attend(const std::string& prefix, const TensorInfo& q,
                                const TensorInfo& k, const TensorInfo& v,
                                const std::vector<ScoreOp>& steps,
                                double dropout) {
  Shape kt_shape = {k.shape[0], k.shape[1], k.shape[3], k.shape[2]};
  TensorInfo kt = Move(prefix + ".key_t", OpKind::kTranspose, "transpose", k,
                       kt_shape, true);
  TensorInfo scores =
      Add(prefix + ".scores", OpKind::kBatchMatMul, "matmul", {q, kt},
          {q.shape[0], q.shape[1], q.shape[2], k.shape[2]});
  for (const ScoreOp& s : steps) {
    scores = Binary(prefix + "." + s.label, s.kind, s.type, scores, s.operand);
  }
  TensorInfo probs = Add(prefix + ".softmax", OpKind::kSoftmax, "softmax",
                         {scores}, scores.shape, Axis(-1));
  probs = Dropout(prefix + ".attn_dropout", probs, dropout);
  return Add(prefix + ".context", OpKind::kBatchMatMul, "matmul", {probs, v},
             {q.shape[0], q.shape[1], q.shape[2], v.shape[3]});
}

TensorInfo GraphBuilder::ScaledAttend(const std::string& prefix,
                                      const TensorInfo& q, const TensorInfo& k,
                                      const TensorInfo& v,
                                      const TensorInfo& mask, double dropout) {
  return Attend(prefix, q, k, v,
                {{"scale", OpKind::kDiv, "div", Scalar(prefix + ".scale")},
                 {"mask", OpKind::kAdd, "add", mask}},
                dropout);
}

Result<OpGraph> GraphBuilder::Finish(const std::string& name, const std::string& module_prefix) {
  if (!status_.ok()) return status_;
  graph_.name = name;
  graph_.module_prefix = module_prefix;
  graph_.source_format = "hf";
  graph_.batch = batch();
  graph_.seq_len = seq();
  Status s = FinalizeForwardCosts(graph_);
  if (!s.ok()) return s.WithPrefix(path_);
  return std::move(graph_);
}

Status DecoderHead(GraphBuilder& b, const ConfigReader& c, ModelHead head,
                   const TensorInfo& x, int64_t vocab, const TensorInfo* tied) {
  switch (head) {
    case ModelHead::kSeqCls: {
      FRUGAL_ASSIGN_OR_RETURN(int64_t labels, c.NumLabels());
      b.Linear("score", x, labels, false);
      return Status::Ok();
    }
    case ModelHead::kBase: return Status::Ok();
    case ModelHead::kLm:
    case ModelHead::kAuto: break;
  }
  b.Linear("lm_head", x, vocab, false, tied);
  return Status::Ok();
}

}  // namespace frugal::importers::hf
