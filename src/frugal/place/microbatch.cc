#include "frugal/place/microbatch.h"

#include <algorithm>
#include <string>

namespace frugal::place {

std::vector<int64_t> SharedMemoryBytes(const OpGraph& step, const std::vector<int64_t>& op_bytes) {
  std::vector<int64_t> shared(step.num_ops(), 0);
  for (int i = 0; i < step.num_ops(); ++i) {
    const Op& op = step.ops[i];
    const int64_t bytes = i < static_cast<int>(op_bytes.size()) ? op_bytes[i] : 0;
    switch (op.phase) {
      case Phase::kForward: {
        int64_t held = op.param_bytes;
        for (const TensorInfo& t : op.inputs) {
          if (t.role == TensorRole::kBuffer) held += t.Bytes();
        }
        shared[i] = std::min(bytes, held);
        break;
      }
      case Phase::kBackward:
        shared[i] = op.grad == GradRole::kWeight ? bytes : 0;
        break;
      case Phase::kOptimizer:
        shared[i] = bytes;
        break;
    }
  }
  return shared;
}

Result<PlacementProblem> ReplicateMicrobatches(const PlacementProblem& one, int m,
                                               const std::vector<int64_t>& shared_mem_bytes,
                                               std::vector<int>* source) {
  const int n = one.num_ops();
  if (m < 1 || m > kMaxMicrobatches) {
    return InvalidArgument("micro-batches must be in 1.." + std::to_string(kMaxMicrobatches) +
                           ", got " + std::to_string(m));
  }
  if (static_cast<int>(one.op_phase.size()) != n ||
      static_cast<int>(shared_mem_bytes.size()) != n) {
    return InvalidArgument(one.name + ": micro-batching needs each op's pass and memory");
  }
  PlacementProblem p;
  if (source) source->clear();
  p.name = one.name;
  p.num_devices = one.num_devices;
  p.device_mem_bytes = one.device_mem_bytes;
  p.topology = one.topology;
  p.num_microbatches = m;
  // Replicas share a class: the original's, or a fresh one past every class.
  int64_t next_class = 0;
  for (int64_t c : one.color) next_class = std::max(next_class, c + 1);
  std::vector<int64_t> klass(n);
  for (int i = 0; i < n; ++i) klass[i] = one.color[i] >= 0 ? one.color[i] : next_class++;
  // index[r][i]: op i's replica r (optimizer ops: the one copy, in every row).
  std::vector<std::vector<int>> index(m, std::vector<int>(n, -1));
  auto add = [&](int i, int r) {
    const bool shared = one.op_phase[i] == Phase::kOptimizer;
    p.op_names.push_back(shared || m == 1 ? one.op_names[i]
                                          : one.op_names[i] + " [mb " + std::to_string(r) + "]");
    p.op_ids.push_back(one.op_ids[i]);
    p.time_ms.push_back(one.time_ms[i]);
    const int64_t own = one.mem_bytes[i] - std::min(one.mem_bytes[i], shared_mem_bytes[i]);
    p.mem_bytes.push_back(r == 0 ? one.mem_bytes[i] : own);
    p.color.push_back(m == 1 ? one.color[i] : klass[i]);
    if (!one.op_modules.empty()) p.op_modules.push_back(one.op_modules[i]);
    p.op_phase.push_back(one.op_phase[i]);
    p.op_microbatch.push_back(shared ? -1 : r);
    if (source) source->push_back(i);
    return p.num_ops() - 1;
  };
  for (int r = 0; r < m; ++r) {
    for (int i = 0; i < n; ++i) {
      if (one.op_phase[i] != Phase::kOptimizer) index[r][i] = add(i, r);
    }
  }
  for (int i = 0; i < n; ++i) {
    if (one.op_phase[i] != Phase::kOptimizer) continue;
    const int copy = add(i, 0);
    for (int r = 0; r < m; ++r) index[r][i] = copy;
  }
  for (const PlaceEdge& e : one.edges) {
    const bool src_shared = one.op_phase[e.src] == Phase::kOptimizer;
    const bool dst_shared = one.op_phase[e.dst] == Phase::kOptimizer;
    const int copies = src_shared && dst_shared ? 1 : m;
    for (int r = 0; r < copies; ++r) {
      p.edges.push_back({index[r][e.src], index[r][e.dst], e.bytes, e.cost_ms});
    }
  }
  FRUGAL_RETURN_IF_ERROR(p.Finalize());
  return p;
}

}  // namespace frugal::place
