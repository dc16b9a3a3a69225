// Weights that reach their layer through layout ops. torch.onnx (training
// mode, no constant folding) writes nn.Linear on a 3-D input as
// MatMul(x, Transpose(weight)), and an nn.LSTM / nn.GRU layer's weights as
// Slice / Concat (the gate order differs) and Unsqueeze of its initializers
// feeding W, R and B. To the layer these look like activations: a Linear
// would be priced as a batched matmul whose "weight" is a data input, an
// LSTM would get no weight gradient, and the Transpose / Slice ops would own
// the parameters. PyTorch runs none of those layout ops (F.linear reads the
// weight transposed in place; cuDNN keeps the RNN weights in one buffer).
//
// FindWeightViews finds every chain of layout ops from float initializers to
// a weight slot. The importer then reads a chain's end as a parameter at the
// slot (under its initializer's name when that is a tied weight, so it is
// counted once), reads the initializers as constants inside the chain, and
// marks the chain's ops as views (no kernel).
// Stateless; thread-safe.
#ifndef FRUGAL_GRAPH_IMPORTERS_ONNX_WEIGHT_VIEWS_H_
#define FRUGAL_GRAPH_IMPORTERS_ONNX_WEIGHT_VIEWS_H_

#include <functional>
#include <map>
#include <set>
#include <string>

#include "onnx/onnx_pb.h"

namespace frugal::importers {

// Input slots that hold a layer's weights (Conv / Gemm weight and bias,
// MatMul's second input, norm scales, RNN W / R / B, a Gather table, ...).
bool IsWeightSlot(const std::string& op_type, int slot);

// Ops that keep every element and only change the layout.
bool IsLayoutOp(const std::string& op_type);

struct WeightViews {
  std::set<std::string> at_slots;  // chain ends read by a weight slot
  std::set<std::string> chain;     // every tensor of those chains (ends included)
  std::set<std::string> sources;   // the float initializers they start from
  // Chain ends that are a whole-tensor view (layout ops only) of one source
  // that some node outside the chains also reads (a tied weight): the slot
  // reads it under the source's name, so it is counted once.
  std::map<std::string, std::string> tied_view_of;
};

// `is_param(name)`: a float initializer that would be a parameter;
// `is_constant(name)`: an integer / folded initializer or a Constant output
// (Slice starts, Unsqueeze axes, Reshape targets). Nodes are visited in file
// order (ONNX files are sorted).
WeightViews FindWeightViews(const onnx::GraphProto& graph,
                            const std::function<bool(const std::string&)>& is_param,
                            const std::function<bool(const std::string&)>& is_constant);

}  // namespace frugal::importers

#endif  // FRUGAL_GRAPH_IMPORTERS_ONNX_WEIGHT_VIEWS_H_
