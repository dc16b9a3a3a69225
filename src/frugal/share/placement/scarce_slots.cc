#include "frugal/share/placement/scarce_slots.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace frugal::share {

int64_t HostSlots(const NodeState& node, const PodShape& shape) {
  if (shape.num_gpu == 0 || shape.gpu_milli <= 0 || node.num_gpus == 0) return 0;
  if (!node.ModelAllowed(shape.models)) return 0;
  int64_t gpu_slots = 0;
  if (shape.IsGpuShare()) {
    for (int i = 0; i < node.num_gpus; ++i) gpu_slots += node.gpu_left[i] / shape.gpu_milli;
  } else {
    int fitting = 0;
    for (int i = 0; i < node.num_gpus; ++i) fitting += node.gpu_left[i] >= shape.gpu_milli;
    gpu_slots = fitting / shape.num_gpu;
  }
  if (shape.cpu_milli <= 0) return gpu_slots;
  return std::min(gpu_slots, node.cpu_left / shape.cpu_milli);
}

double PoissonTailAtLeast(double mean, int64_t s) {
  if (s <= 0) return 1.0;
  if (!(mean > 0)) return 0.0;
  // Terms from the one nearest the mean outwards, in logs (exp(-mean)
  // alone underflows past mean 745), until they stop adding.
  const auto log_pmf = [mean](int64_t k) {
    return -mean + static_cast<double>(k) * std::log(mean) - std::lgamma(static_cast<double>(k) + 1.0);
  };
  double sum = 0;
  if (static_cast<double>(s) > mean) {  // the upper tail, terms falling
    double term = std::exp(log_pmf(s));
    for (int64_t k = s; term > 1e-300 && term > sum * 1e-17; ++k) {
      sum += term;
      term *= mean / static_cast<double>(k + 1);
    }
    return std::min(1.0, sum);
  }
  double term = std::exp(log_pmf(s - 1));  // the lower tail, terms falling
  for (int64_t k = s - 1; k >= 0 && term > 1e-300 && term > sum * 1e-17; --k) {
    sum += term;
    term *= static_cast<double>(k) / mean;
  }
  return std::clamp(1.0 - sum, 0.0, 1.0);
}

bool ScarceSlots::Update(const std::vector<TypicalPod>& trace_shapes, const std::vector<NodeState>& nodes,
                         double remaining_milli) {
  double capacity_milli = 0;
  for (const NodeState& n : nodes) capacity_milli += 1000.0 * n.num_gpus;
  double mean_milli = 0;  // GPU-milli per arriving pod
  for (const TypicalPod& t : trace_shapes) mean_milli += t.weight * static_cast<double>(t.shape.TotalGpuMilli());
  std::vector<Price> next;
  if (mean_milli > 0) {
    const double window_milli = remaining_milli > 0 ? remaining_milli : kLookAheadCapacity * capacity_milli;
    const double window_pods = window_milli / mean_milli;
    for (const TypicalPod& t : trace_shapes) {
      if (t.shape.TotalGpuMilli() == 0 || t.weight <= 0) continue;
      int64_t slots = 0;
      for (const NodeState& n : nodes) slots += HostSlots(n, t.shape);
      const double value =
          PoissonTailAtLeast(t.weight * window_pods, slots) * static_cast<double>(t.shape.TotalGpuMilli());
      if (value >= 1.0) next.push_back({t.shape, value});
    }
  }
  if (next == prices_) return false;
  prices_ = std::move(next);
  return true;
}

double ScarceSlots::Loss(const NodeState& node, const PodShape& pod, GpuSet gpus) const {
  if (prices_.empty()) return 0.0;
  NodeState after = node;
  after.Place(pod, 0, gpus);  // memory is not part of a shape
  double loss = 0;
  for (const Price& p : prices_) {
    if (p.shape == pod) continue;
    loss += p.milli_per_slot * static_cast<double>(HostSlots(node, p.shape) - HostSlots(after, p.shape));
  }
  return loss;
}

}  // namespace frugal::share
