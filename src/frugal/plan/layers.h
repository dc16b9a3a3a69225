// The repeated blocks of a model graph (transformer layers, ResNet stages):
// which block each op belongs to, read from the module path in op names
// ("layers.3.self_attn.q_proj" -> "layers.3", "h.11.mlp.c_fc" -> "h.11",
// "encoder.layer.5.attention..." -> "encoder.layer.5", ONNX scopes
// "/layer1/layer1.0/conv1/Conv" -> "/layer1/layer1.0"). Pipeline stages and
// activation checkpointing work on these blocks. Stateless; thread-safe.
#ifndef FRUGAL_PLAN_LAYERS_H_
#define FRUGAL_PLAN_LAYERS_H_

#include <string>
#include <string_view>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/graph/op_graph.h"

namespace frugal {

inline constexpr int kBeforeBlocks = -1;  // embeddings, input ops
inline constexpr int kAfterBlocks = -2;   // final norm, head, loss

struct BlockMap {
  std::vector<std::string> names;  // blocks in forward execution order
  // Per op of the graph: a block index, kBeforeBlocks or kAfterBlocks. A
  // backward or optimizer op belongs to its forward op's block. A forward op
  // outside any block between two blocks (T5's encoder final norm) belongs
  // to the block before it.
  std::vector<int> block_of_op;
  int num_blocks() const { return static_cast<int>(names.size()); }
};

// The block key of an op name: the path up to its first all-digit
// component ("" when it has none).
std::string BlockKey(std::string_view op_name);

// REQUIRES: graph validated.
Result<BlockMap> MapBlocks(const OpGraph& graph);

}  // namespace frugal

#endif  // FRUGAL_PLAN_LAYERS_H_
