// GraphBuilder for the hf_config importer: appends ops in execution order,
// names each op's output after the op, and wires an edge from the producer of
// every activation input, so the architecture code reads like the PyTorch
// forward(). Also the transformer layers every architecture shares (linear,
// embedding, norms, dropout, head split/merge, eager attention) and the
// helpers that make parameter and constant tensors. Internal to the importer.
// The first error sticks: later calls do nothing and Finish() returns it.
// A GraphBuilder is single-use and not thread-safe; the free functions are
// stateless.
#ifndef FRUGAL_GRAPH_IMPORTERS_HF_BUILDER_H_
#define FRUGAL_GRAPH_IMPORTERS_HF_BUILDER_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/graph/importers/hf_config_reader.h"
#include "frugal/graph/op_graph.h"

namespace frugal::importers::hf {

using Shape = std::vector<int64_t>;

TensorInfo Tensor(std::string name, Shape shape, DType dtype, TensorRole role);

// A weight: fp32, shape only.
TensorInfo Param(std::string name, Shape shape);

// Values that depend only on the shapes (masks, position ids, rotary tables,
// scale factors): PyTorch builds them from buffers or arange, not from data.
TensorInfo Constant(std::string name, Shape shape,
                    DType dtype = DType::kFloat32);

TensorInfo Scalar(std::string name);

// {"axis": [axis]}.
Attributes Axis(int64_t axis);

// Layer numbers in module paths ("h.11.").
std::string Num(int64_t i);

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
  // `path` is only used in messages.
  GraphBuilder(std::string path, Dims dims);

  int64_t batch() const { return dims_.batch; }
  int64_t seq() const { return dims_.seq; }
  // Tokens already in the KV cache, and the keys attention spans.
  int64_t past() const { return dims_.past; }
  int64_t keys() const { return dims_.seq + dims_.past; }

  // A tensor fed to the model (token ids): read by ops, produced by none.
  TensorInfo Input(const std::string& name, Shape shape, DType dtype);
  // An int64 [B, S] Input.
  TensorInfo TokenIds(const std::string& name);

  std::vector<TensorInfo> AddMulti(const std::string& name, OpKind kind,
                                   const char* type,
                                   std::vector<TensorInfo> inputs,
                                   std::vector<TensorInfo> outputs,
                                   Attributes attrs = {});

  TensorInfo Add(const std::string& name, OpKind kind, const char* type,
                 std::vector<TensorInfo> inputs, Shape out_shape,
                 Attributes attrs = {}, DType out_dtype = DType::kFloat32);

  // nn.Linear: weight [out, in] (hence transB), optional bias. `tied` reuses
  // another op's parameter tensor (an LM head tied to the embedding).
  TensorInfo Linear(const std::string& name, const TensorInfo& x, int64_t out,
                    bool bias, const TensorInfo* tied = nullptr);

  // GPT-2's Conv1D: a linear layer whose weight is stored [in, out].
  TensorInfo Conv1D(const std::string& name, const TensorInfo& x, int64_t out);

  TensorInfo Embedding(const std::string& name, const TensorInfo& ids,
                       const TensorInfo& table);

  TensorInfo LayerNorm(const std::string& name, const TensorInfo& x,
                       bool affine = true);

  // LlamaRMSNorm and T5LayerNorm: scale only, no mean, no bias.
  TensorInfo RmsNorm(const std::string& name, const TensorInfo& x,
                     const char* type);

  // PyTorch returns the input unchanged for p = 0, so no kernel runs.
  TensorInfo Dropout(const std::string& name, const TensorInfo& x, double p);

  TensorInfo Unary(const std::string& name, OpKind kind, const char* type,
                   const TensorInfo& x);

  TensorInfo Binary(const std::string& name, OpKind kind, const char* type,
                    const TensorInfo& a, const TensorInfo& b);

  // Reshape / transpose. `view` marks the ones PyTorch runs as stride
  // changes without a kernel, so time models can price them at zero.
  TensorInfo Move(const std::string& name, OpKind kind, const char* type,
                  const TensorInfo& x, Shape out, bool view);

  // [B, S, heads * d] -> view [B, S, heads, d] -> transpose [B, heads, S, d].
  TensorInfo SplitHeads(const std::string& name, const TensorInfo& x,
                        int64_t heads);

  // A q, k or v projection: Linear `proj` to heads * head_dim features, then
  // SplitHeads as `name`.
  TensorInfo ProjectHeads(const std::string& proj, const std::string& name,
                          const TensorInfo& x, int64_t heads, int64_t head_dim,
                          bool bias);

  // DynamicCache.update for keys or values `x` [B, kv_heads, S, d]: with
  // past() > 0, torch.cat of the cache tensor `name`.past [B, kv_heads, L,
  // d] (role kBuffer: persistent state, counted once in memory, no edge)
  // and x along the sequence, giving [B, kv_heads, L + S, d]; the op is
  // marked attrs "kv_cache" = 1 so planners find the cache. With no past,
  // x itself (the cache then just keeps a reference).
  TensorInfo CacheAppend(const std::string& name, const TensorInfo& x);

  // [B, heads, S, d] -> transpose(1, 2).contiguous() (a copy) -> view.
  TensorInfo MergeHeads(const std::string& prefix, const TensorInfo& ctx);

  // Eager attention on [B, heads, S, d] tensors: Q K^T, the score steps,
  // softmax, dropout, then probabilities x V.
  TensorInfo Attend(const std::string& prefix, const TensorInfo& q,
                    const TensorInfo& k, const TensorInfo& v,
                    const std::vector<ScoreOp>& steps, double dropout);

  // Attend with the usual steps: divide by the scalar `prefix`.scale, then
  // add `mask`.
  TensorInfo ScaledAttend(const std::string& prefix, const TensorInfo& q,
                          const TensorInfo& k, const TensorInfo& v,
                          const TensorInfo& mask, double dropout);

  // The graph named `name` with forward costs, or the first error.
  // `module_prefix`: OpGraph::module_prefix of the task model built.
  Result<OpGraph> Finish(const std::string& name, const std::string& module_prefix = "");

 private:
  std::string path_;
  Dims dims_;
  OpGraph graph_;
  std::unordered_map<std::string, int> producer_;
  std::unordered_set<std::string> inputs_;
  Status status_;
};

// A decoder's head on its final hidden states `x` [B, S, h]: kLm projects to
// `vocab` (tied to `tied` when given); kSeqCls is the `score` projection to
// the config's num_labels, without bias, over every position (picking the
// last token's row is free); kBase adds nothing.
Status DecoderHead(GraphBuilder& b, const ConfigReader& c, ModelHead head,
                   const TensorInfo& x, int64_t vocab, const TensorInfo* tied);

}  // namespace frugal::importers::hf

#endif  // FRUGAL_GRAPH_IMPORTERS_HF_BUILDER_H_
