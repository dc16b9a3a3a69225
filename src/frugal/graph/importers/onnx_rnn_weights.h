// Recurrent layers' weights as PyTorch exports them. torch.onnx writes an
// nn.LSTM / nn.GRU layer's weight_ih, weight_hh and biases as initializers
// that reach the LSTM / GRU node's W, R and B inputs through Slice / Concat
// (the gate order differs) and Unsqueeze: to the node they look like
// activations, so the layer would get no weight gradient and no optimizer
// update. RnnWeightViews finds those chains: the tensors that are such
// views of float initializers and feed a recurrent node's slots 1-3, and the
// initializers behind them. The importer then gives the recurrent op the
// parameters (views read as parameters there) and the view ops none
// (their initializers read as constants), so every weight is counted once.
// Stateless; thread-safe.
#ifndef FRUGAL_GRAPH_IMPORTERS_ONNX_RNN_WEIGHTS_H_
#define FRUGAL_GRAPH_IMPORTERS_ONNX_RNN_WEIGHTS_H_

#include <functional>
#include <set>
#include <string>

#include "onnx/onnx_pb.h"

namespace frugal::importers {

struct RnnWeightViews {
  std::set<std::string> views;    // view tensors read by a W / R / B slot
  std::set<std::string> sources;  // float initializers behind them
};

// `is_param(name)`: a float initializer that would be a parameter;
// `is_constant(name)`: an integer / folded initializer or a Constant output
// (Slice starts, Unsqueeze axes). Nodes are visited in file order (ONNX
// files are sorted).
RnnWeightViews FindRnnWeightViews(const onnx::GraphProto& graph,
                                  const std::function<bool(const std::string&)>& is_param,
                                  const std::function<bool(const std::string&)>& is_constant);

// True for LSTM, GRU and RNN input slots 1-3 (W, R, B).
bool IsRnnWeightSlot(const std::string& op_type, int slot);

}  // namespace frugal::importers

#endif  // FRUGAL_GRAPH_IMPORTERS_ONNX_RNN_WEIGHTS_H_
