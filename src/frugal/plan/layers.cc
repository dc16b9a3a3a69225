#include "frugal/plan/layers.h"

#include <map>

namespace frugal {

std::string BlockKey(std::string_view name) {
  size_t start = 0;
  bool first = true;
  for (size_t i = 0; i <= name.size(); ++i) {
    if (i < name.size() && name[i] != '.' && name[i] != '/') continue;
    std::string_view token = name.substr(start, i - start);
    bool digits = !token.empty();
    for (char c : token) digits = digits && c >= '0' && c <= '9';
    // A leading number is an op id, not a layer index.
    if (digits && !first) return std::string(name.substr(0, i));
    if (!token.empty()) first = false;
    start = i + 1;
  }
  return "";
}

Result<BlockMap> MapBlocks(const OpGraph& graph) {
  BlockMap m;
  m.block_of_op.assign(graph.ops.size(), kBeforeBlocks);
  FRUGAL_ASSIGN_OR_RETURN(std::vector<int> order, graph.TopologicalOrder());
  std::map<std::string, int> index;
  // Forward ops outside a block wait until the next block op shows whether
  // they sit between blocks or after the last one.
  std::vector<int> pending;
  int last = kBeforeBlocks;
  for (int i : order) {
    const Op& op = graph.ops[i];
    if (op.phase != Phase::kForward) continue;
    std::string key = BlockKey(op.name);
    if (key.empty()) {
      if (last == kBeforeBlocks) {
        m.block_of_op[i] = kBeforeBlocks;
      } else {
        pending.push_back(i);
      }
      continue;
    }
    auto [it, added] = index.emplace(key, m.num_blocks());
    if (added) m.names.push_back(key);
    for (int p : pending) m.block_of_op[p] = last;
    pending.clear();
    last = it->second;
    m.block_of_op[i] = last;
  }
  for (int p : pending) m.block_of_op[p] = kAfterBlocks;
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    if (op.phase == Phase::kForward) continue;
    if (op.forward_op >= 0 && op.forward_op < graph.num_ops()) {
      m.block_of_op[i] = m.block_of_op[op.forward_op];
    } else {
      m.block_of_op[i] = kAfterBlocks;
    }
  }
  return m;
}

}  // namespace frugal
