#include "frugal/share/cluster.h"

#include <algorithm>

namespace frugal::share {

const char* QosName(Qos q) {
  switch (q) {
    case Qos::kLs: return "LS";
    case Qos::kBe: return "BE";
    case Qos::kBurstable: return "Burstable";
    case Qos::kGuaranteed: return "Guaranteed";
    case Qos::kUnknown: break;
  }
  return "";
}

Result<int> GpuModelTable::Intern(std::string_view name) {
  const int id = Find(name);
  if (id >= 0) return id;
  if (size() > kMaxGpuModels) {
    return InvalidArgument("more than " + std::to_string(kMaxGpuModels) + " GPU models");
  }
  names_.emplace_back(name);
  return size() - 1;
}

int GpuModelTable::Find(std::string_view name) const {
  for (int i = 1; i < size(); ++i) {
    if (names_[i] == name) return i;
  }
  return -1;
}

const std::vector<std::string>& AlibabaGpuModels() {
  static const std::vector<std::string> kModels = {"G1", "G2", "G3", "T4", "P100",
                                                   "V100M16", "V100M32", "A10"};
  return kModels;
}

std::string CatalogGpuForModel(std::string_view model) {
  // Alibaba's simulator documents the parts: Tesla-T4, Tesla-P100-PCIE-16GB,
  // Tesla-V100-SXM2-16GB / -32GB.
  if (model == "T4") return "T4";
  if (model == "P100") return "P100-PCIE-16GB";
  if (model == "V100M16") return "V100-SXM2-16GB";
  if (model == "V100M32") return "V100-SXM2-32GB";
  return "";
}

PodShape ShapeOf(const PodSpec& pod) {
  return PodShape{pod.cpu_milli, pod.gpu_milli, pod.num_gpu, pod.models};
}

int AffinityOf(const PodShape& pod) {
  if (pod.num_gpu == 0) return 0;
  if (pod.IsGpuShare()) return kShareAffinity;
  return pod.num_gpu;
}

NodeState NodeState::FromSpec(const NodeSpec& spec) {
  NodeState s;
  s.cpu_left = spec.cpu_milli;
  s.cpu_capacity = spec.cpu_milli;
  s.memory_left = spec.memory_mib;
  s.num_gpus = spec.num_gpus;
  s.model = spec.model;
  for (int i = 0; i < spec.num_gpus; ++i) s.gpu_left[i] = kMilliPerGpu;
  return s;
}

int64_t NodeState::GpuLeftTotal() const {
  int64_t total = 0;
  for (int i = 0; i < num_gpus; ++i) total += gpu_left[i];
  return total;
}

int NodeState::FullyFreeGpus() const {
  int n = 0;
  for (int i = 0; i < num_gpus; ++i) n += gpu_left[i] == kMilliPerGpu;
  return n;
}

int NodeState::NumAffinities() const {
  int n = 0;
  for (size_t i = 1; i < affinity.size(); ++i) n += affinity[i] > 0;
  return n;
}

bool NodeState::GpusCanHost(const PodShape& pod) const {
  int need = pod.num_gpu;
  for (int i = 0; i < num_gpus && need > 0; ++i) need -= gpu_left[i] >= pod.gpu_milli;
  return need <= 0;
}

bool NodeState::Fits(const PodShape& pod, int64_t memory_mib) const {
  if (cpu_left < pod.cpu_milli || memory_left < memory_mib) return false;
  if (pod.num_gpu == 0) return true;
  if (num_gpus == 0 || !ModelAllowed(pod.models)) return false;
  return GpusCanHost(pod);
}

void NodeState::Place(const PodShape& pod, int64_t memory_mib, GpuSet gpus) {
  cpu_left -= pod.cpu_milli;
  memory_left -= memory_mib;
  for (int i = 0; i < num_gpus; ++i) {
    if ((gpus >> i) & 1u) gpu_left[i] = static_cast<int16_t>(gpu_left[i] - pod.gpu_milli);
  }
  const int tag = AffinityOf(pod);
  if (tag != 0) ++affinity[tag];
  ++version;
}

GpuSet ExclusiveGpus(const NodeState& node, const PodShape& pod) {
  GpuSet set = 0;
  int need = pod.num_gpu;
  for (int i = 0; i < node.num_gpus && need > 0; ++i) {
    if (node.gpu_left[i] == kMilliPerGpu) {
      set |= GpuSet{1} << i;
      --need;
    }
  }
  return need > 0 ? 0 : set;
}

GpuSet BestFitGpus(const NodeState& node, const PodShape& pod) {
  if (pod.num_gpu == 0) return 0;
  if (!pod.IsGpuShare()) return ExclusiveGpus(node, pod);
  int best = -1;
  for (int i = 0; i < node.num_gpus; ++i) {
    if (node.gpu_left[i] >= pod.gpu_milli && (best < 0 || node.gpu_left[i] < node.gpu_left[best])) {
      best = i;
    }
  }
  return best < 0 ? 0 : GpuSet{1} << best;
}

}  // namespace frugal::share
