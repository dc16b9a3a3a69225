#include "frugal/plan/tensor_parallel.h"

#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

#include "frugal/graph/op_cost.h"
#include "frugal/plan/layers.h"

namespace frugal {
namespace {

using Shape = std::vector<int64_t>;
constexpr int64_t kMinSplitFeaturesPerGpu = 64;

int64_t Prod(const Shape& s, size_t n) {
  int64_t p = 1;
  for (size_t i = 0; i < n && i < s.size(); ++i) p *= s[i];
  return p;
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The output dim of a reshape that holds the outer end of input dim `d`:
// splitting [.., H*D] into [.., H, D] splits H; merging [B, H] into [B*H]
// splits the merged dim.
int ReshapeDim(const Shape& in, const Shape& out, int d) {
  const int64_t before = Prod(in, d);
  for (size_t e = 0; e < out.size(); ++e) {
    const int64_t lo = Prod(out, e);
    if (lo <= before && before < lo * out[e]) return static_cast<int>(e);
  }
  return -1;
}

// The output dim a transpose moves input dim `d` to: from "perm" when the
// importer recorded it, else from the two dims whose sizes swapped.
int TransposeDim(const Op& op, const Shape& in, const Shape& out, int d) {
  std::vector<int64_t> perm = op.attrs.GetInts("perm");
  if (perm.size() == out.size()) {
    for (size_t e = 0; e < perm.size(); ++e) {
      if (perm[e] == d) return static_cast<int>(e);
    }
  }
  if (in.size() != out.size()) return -1;
  std::vector<int> diff;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != out[i]) diff.push_back(static_cast<int>(i));
  }
  if (diff.size() == 2) {
    if (d == diff[0]) return diff[1];
    if (d == diff[1]) return diff[0];
  }
  return d;
}

bool IsNormalising(OpKind k) {
  switch (k) {
    case OpKind::kSoftmax:
    case OpKind::kLayerNorm:
    case OpKind::kRmsNorm:
    case OpKind::kGroupNorm:
    case OpKind::kInstanceNorm:
    case OpKind::kReduceLogSumExp:
    case OpKind::kTopK:
      return true;
    default:
      return false;
  }
}

class Sharder {
 public:
  Sharder(const OpGraph& g, int tp) : in_(g), tp_(tp) {}

  Result<TensorParallelGraph> Run() {
    if (in_.IsTraining()) {
      return FailedPrecondition("tensor parallelism splits a forward graph");
    }
    for (const Op& op : in_.ops) {
      if (op.measured_time_ms >= 0) {
        return InvalidArgument(
            "tensor parallelism needs tensor shapes: this graph has measured op times");
      }
    }
    FRUGAL_ASSIGN_OR_RETURN(blocks_, MapBlocks(in_));
    FRUGAL_ASSIGN_OR_RETURN(std::vector<int> order, in_.TopologicalOrder());
    out_.graph = in_;
    for (int i : order) FRUGAL_RETURN_IF_ERROR(ShardOp(i));
    if (out_.column_parallel == 0 && out_.vocab_parallel == 0) {
      return InvalidArgument(fmt::format(
          "tensor parallelism splits linear layers; '{}' has none that it can split",
          in_.name));
    }
    FRUGAL_RETURN_IF_ERROR(FinalizeForwardCosts(out_.graph));
    for (Edge& e : out_.graph.edges) {
      for (const TensorInfo& t : out_.graph.ops[e.src].outputs) {
        if (t.name == e.tensor || (e.tensor.empty() && out_.graph.ops[e.src].outputs.size() == 1)) {
          e.bytes = t.Bytes();
        }
      }
    }
    return std::move(out_);
  }

 private:
  Status Divide(TensorInfo& t, int dim, const Op& op, bool pad = false) {
    if (dim < 0 || dim >= static_cast<int>(t.shape.size())) {
      return Unimplemented(fmt::format(
          "tensor parallelism cannot follow the split through op '{}' ({})", op.name,
          OpKindName(op.kind)));
    }
    int64_t& n = t.shape[dim];
    if (n % tp_ != 0 && !pad) {
      return InvalidArgument(fmt::format(
          "{} GPUs do not divide dim {} (size {}) of tensor '{}' (op '{}')", tp_, dim, n,
          t.name, op.name));
    }
    n = CeilDiv(n, tp_);
    return Status::Ok();
  }

  // Split dim of an activation input, -1 when replicated.
  int SplitOf(const TensorInfo& t) const {
    auto it = split_.find(t.name);
    return it == split_.end() ? -1 : it->second;
  }

  void MarkOutputs(const Op& op, int dim) {
    for (const TensorInfo& t : op.outputs) {
      if (dim >= 0) split_[t.name] = dim; else split_.erase(t.name);
      shapes_[t.name] = t.shape;
    }
  }

  Status ShardOp(int i) {
    Op& op = out_.graph.ops[i];
    const Op& orig = in_.ops[i];
    // Inputs take their producers' (or an earlier split parameter's) shapes.
    for (TensorInfo& t : op.inputs) {
      auto it = shapes_.find(t.name);
      if (it != shapes_.end()) t.shape = it->second;
    }
    int first = -1, dim = -1;
    for (size_t j = 0; j < op.inputs.size(); ++j) {
      if (op.inputs[j].role == TensorRole::kActivation && SplitOf(op.inputs[j]) >= 0) {
        first = static_cast<int>(j);
        dim = SplitOf(op.inputs[j]);
        break;
      }
    }
    if (op.kind == OpKind::kMatMul && op.param_count > 0) return ShardLinear(op, i, first, dim);
    if (op.kind == OpKind::kEmbedding && first < 0) return ShardEmbedding(op, i);
    if (first < 0) {
      MarkOutputs(op, -1);
      return Status::Ok();
    }
    const Shape& in_full = orig.inputs[first].shape;
    int e = -1;
    const int out_rank = op.outputs.empty() ? 0 : static_cast<int>(orig.outputs[0].shape.size());
    const int in_rank = static_cast<int>(in_full.size());
    switch (op.kind) {
      case OpKind::kReshape:
      case OpKind::kFlatten:
      case OpKind::kSqueeze:
      case OpKind::kUnsqueeze:
        e = ReshapeDim(in_full, orig.outputs[0].shape, dim);
        break;
      case OpKind::kTranspose:
        e = TransposeDim(orig, in_full, orig.outputs[0].shape, dim);
        break;
      case OpKind::kBatchMatMul: {
        if (dim == in_rank - 1 && first == 0) {
          return Unimplemented(fmt::format(
              "tensor parallelism would split the contracted dim of '{}'", op.name));
        }
        if (first == 1 && dim == in_rank - 2) {
          return Unimplemented(fmt::format(
              "tensor parallelism would split the contracted dim of '{}'", op.name));
        }
        e = dim + (out_rank - in_rank);
        break;
      }
      case OpKind::kCrossEntropy:
      case OpKind::kNllLoss:
        // Megatron's vocab-parallel loss: each GPU reduces its slice of the
        // logits; the [tokens]-sized exchanges it needs are negligible.
        MarkOutputs(op, -1);
        return Status::Ok();
      case OpKind::kReduceMean:
      case OpKind::kReduceSum:
      case OpKind::kReduceMax:
      case OpKind::kReduceProd:
      case OpKind::kReduceNorm: {
        std::vector<int64_t> axes = op.attrs.GetInts("axes");
        int removed = 0;
        for (int64_t a : axes) {
          const int64_t ax = a < 0 ? a + in_rank : a;
          if (ax == dim) {
            return Unimplemented(fmt::format(
                "tensor parallelism would reduce '{}' over a split dimension", op.name));
          }
          removed += ax < dim ? 1 : 0;
        }
        e = out_rank == in_rank ? dim : dim - removed;
        break;
      }
      case OpKind::kExpand:
        // repeat_kv inserts the repeat dim: a dim that keeps its size and
        // index is the same dim.
        e = dim < out_rank && orig.outputs[0].shape[dim] == in_full[dim]
                ? dim
                : dim + (out_rank - in_rank);
        break;
      default:
        if (IsNormalising(op.kind)) {
          int64_t axis = op.attrs.GetInt("axis", -1);
          if (axis < 0) axis += in_rank;
          if (axis == dim || (op.kind != OpKind::kSoftmax && dim == in_rank - 1)) {
            return Unimplemented(fmt::format(
                "tensor parallelism would normalise '{}' over a split dimension", op.name));
          }
        }
        e = dim + (out_rank - in_rank);
        break;
    }
    // Replicated operands broadcast against the split dim are sliced.
    const int64_t full = e >= 0 && e < out_rank ? orig.outputs[0].shape[e] : 0;
    for (size_t j = 0; j < op.inputs.size(); ++j) {
      TensorInfo& t = op.inputs[j];
      if (t.role == TensorRole::kActivation && SplitOf(t) >= 0) continue;
      const int aligned = e - (out_rank - static_cast<int>(t.shape.size()));
      if (aligned < 0) continue;
      if (op.kind == OpKind::kBatchMatMul && aligned >= static_cast<int>(t.shape.size()) - 2) {
        continue;  // only batch dims broadcast
      }
      if (orig.inputs[j].shape[aligned] == full && full > 1) {
        FRUGAL_RETURN_IF_ERROR(Divide(t, aligned, op));
      }
    }
    for (TensorInfo& t : op.outputs) FRUGAL_RETURN_IF_ERROR(Divide(t, e, op));
    MarkOutputs(op, e);
    return Status::Ok();
  }

  Status ShardLinear(Op& op, int i, int first, int dim) {
    TensorInfo* weight = nullptr;
    TensorInfo* bias = nullptr;
    for (TensorInfo& t : op.inputs) {
      if (t.role != TensorRole::kParameter) continue;
      if (t.shape.size() == 2 && weight == nullptr) weight = &t;
      else if (t.shape.size() == 1) bias = &t;
    }
    if (weight == nullptr || op.outputs.empty()) {
      MarkOutputs(op, -1);
      return Status::Ok();
    }
    const bool trans_b = op.attrs.GetInt("transB", 0) == 1;
    const int n_dim = trans_b ? 0 : 1, k_dim = trans_b ? 1 : 0;
    const int rank = static_cast<int>(op.inputs[0].shape.size());
    if (first >= 0 && dim == rank - 1) {
      // Row-parallel: each GPU holds 1/T of the reduction dim; the partial
      // outputs are summed by an all-reduce.
      weight->shape[k_dim] = op.inputs[first].shape.back();
      ++out_.row_parallel;
      MarkOutputs(op, -1);
      Record(op, i);
      return Status::Ok();
    }
    if (first >= 0) {
      // Split along a batch-like dim (per-head projections): runs on its slice.
      const int e = dim + static_cast<int>(op.outputs[0].shape.size()) - rank;
      for (TensorInfo& t : op.outputs) FRUGAL_RETURN_IF_ERROR(Divide(t, e, op));
      MarkOutputs(op, e);
      return Status::Ok();
    }
    const int64_t n = in_.ops[i].outputs[0].shape.back();
    const bool in_block = blocks_.block_of_op[i] >= 0;
    const bool tied_split = shapes_.count(weight->name) > 0;
    // Outside the blocks only the LM head splits (vocab-parallel, with the
    // embedding); pooler, projection and classifier layers stay whole.
    const bool lm_head = tied_split || (vocab_rows_ > 0 && n == vocab_rows_);
    if (in_block && n >= kMinSplitFeaturesPerGpu && n < kMinSplitFeaturesPerGpu * tp_) {
      // A block layer that splits at a lower degree: replicating it at this
      // one would price a "TP" step that splits nothing of the blocks.
      return InvalidArgument(fmt::format(
          "{} has {} output features: at {} GPUs each would hold fewer than {}, the least a "
          "split keeps; lower --tp",
          op.name, n, tp_, kMinSplitFeaturesPerGpu));
    }
    if (n < kMinSplitFeaturesPerGpu * tp_ || (!in_block && !lm_head)) {
      ++out_.replicated_linears;
      MarkOutputs(op, -1);
      return Status::Ok();
    }
    // Column-parallel (outside the blocks: an LM head, vocab padded).
    if (!tied_split) {
      FRUGAL_RETURN_IF_ERROR(Divide(*weight, n_dim, op, !in_block));
      shapes_[weight->name] = weight->shape;
    }
    if (bias != nullptr && bias->shape[0] == n) {
      FRUGAL_RETURN_IF_ERROR(Divide(*bias, 0, op, !in_block));
    }
    const int last = static_cast<int>(op.outputs[0].shape.size()) - 1;
    for (TensorInfo& t : op.outputs) FRUGAL_RETURN_IF_ERROR(Divide(t, last, op, !in_block));
    ++out_.column_parallel;
    MarkOutputs(op, last);
    return Status::Ok();
  }

  // An all-reduce after `op`, listed and marked on the op (attrs
  // kTpAllReduceBytesAttr) for consumers that get only the graph.
  void Record(Op& op, int i) {
    const int64_t bytes = op.outputs[0].Bytes();
    out_.all_reduces.push_back({i, bytes});
    op.attrs.floats[kTpAllReduceBytesAttr] = static_cast<double>(bytes);
  }

  // Only a table looked up by ids fed to the model (tokens, not positions)
  // and large enough to split.
  Status ShardEmbedding(Op& op, int i) {
    const bool fed = !op.inputs.empty() && op.inputs[0].role == TensorRole::kActivation;
    for (TensorInfo& t : op.inputs) {
      if (fed && t.role == TensorRole::kParameter && t.shape.size() == 2 &&
          !shapes_.count(t.name) && t.shape[0] >= kMinSplitFeaturesPerGpu * tp_) {
        vocab_rows_ = t.shape[0];
        FRUGAL_RETURN_IF_ERROR(Divide(t, 0, op, /*pad=*/true));
        shapes_[t.name] = t.shape;
        ++out_.vocab_parallel;
        MarkOutputs(op, -1);
        if (!op.outputs.empty()) Record(op, i);
        return Status::Ok();
      }
    }
    MarkOutputs(op, -1);
    return Status::Ok();
  }

  const OpGraph& in_;
  const int tp_;
  BlockMap blocks_;
  TensorParallelGraph out_;
  int64_t vocab_rows_ = 0;               // of the split token embedding
  std::map<std::string, int> split_;     // activation -> split dim
  std::map<std::string, Shape> shapes_;  // tensor -> per-GPU shape
};

}  // namespace

Result<TensorParallelGraph> ShardTensorParallel(const OpGraph& forward, int tp) {
  if (tp < 1) return InvalidArgument("tensor-parallel degree must be >= 1");
  if (tp == 1) {
    TensorParallelGraph r;
    r.graph = forward;
    return r;
  }
  return Sharder(forward, tp).Run();
}

}  // namespace frugal
