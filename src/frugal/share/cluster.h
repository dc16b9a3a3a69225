// G-Share's cluster model: GPU nodes (CPU milli, memory, GPUs of one model,
// free GPU-milli per GPU), pods (CPU milli, memory, GPU count, GPU-milli per
// GPU, allowed GPU models, QoS, trace times), and the mutable node state a
// placement changes. GPU sharing follows Alibaba's GPU-sharing scheduler (the
// model FGD, ATC'23, evaluates): a pod with num_gpu == 1 and gpu_milli < 1000
// takes gpu_milli of one GPU; any other GPU pod takes num_gpu whole GPUs.
//
// GPU model names are opaque strings interned in a GpuModelTable (at most 31
// models); the names Alibaba's trace uses map to catalog GPUs where the
// catalog has them (CatalogGpuForModel). Values only; thread-compatible.
#ifndef FRUGAL_SHARE_CLUSTER_H_
#define FRUGAL_SHARE_CLUSTER_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/base/status.h"

namespace frugal::share {

inline constexpr int kMilliPerGpu = 1000;
inline constexpr int kMaxGpusPerNode = 16;
inline constexpr int kMaxGpuModels = 31;

enum class Qos { kUnknown, kLs, kBe, kBurstable, kGuaranteed };
// "LS", "BE", "Burstable", "Guaranteed"; "" for kUnknown.
const char* QosName(Qos q);

// Interns GPU model names; id 0 means "no GPU". A bit set over ids
// (ModelMask) says which models a pod accepts; 0 accepts any.
using ModelMask = uint32_t;
class GpuModelTable {
 public:
  // The id of `name`, adding it. InvalidArgument past kMaxGpuModels.
  Result<int> Intern(std::string_view name);
  // -1 when `name` is unknown.
  int Find(std::string_view name) const;
  const std::string& Name(int id) const { return names_[id]; }
  int size() const { return static_cast<int>(names_.size()); }

 private:
  std::vector<std::string> names_ = {""};
};

// The GPU models of Alibaba's 2023 GPU trace (G1..G3 are undisclosed
// internal parts) — the names a node list or gpu_spec may use besides
// catalog GPU names.
const std::vector<std::string>& AlibabaGpuModels();
// The catalog GPU an Alibaba model name stands for ("V100M16" ->
// "V100-SXM2-16GB"), or "" when the catalog has no such part (G1, G2, G3,
// A10: the catalog's A10G is AWS's variant, not the A10).
std::string CatalogGpuForModel(std::string_view model);

struct NodeSpec {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int num_gpus = 0;
  int model = 0;  // GpuModelTable id; 0 when num_gpus == 0
};

struct PodSpec {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int num_gpu = 0;
  int gpu_milli = 0;       // per GPU, 0..1000; 0 iff num_gpu == 0
  ModelMask models = 0;    // allowed GPU models (gpu_spec); 0: any
  std::string gpu_spec;    // as written: "V100M16|V100M32"
  Qos qos = Qos::kUnknown;
  std::string phase;       // pod_phase as written
  // Trace times in seconds; -1 when the column is absent or empty.
  int64_t creation_time_s = -1;
  int64_t deletion_time_s = -1;
  int64_t scheduled_time_s = -1;

  int64_t TotalGpuMilli() const { return int64_t{num_gpu} * gpu_milli; }
  bool IsGpuShare() const { return num_gpu == 1 && gpu_milli < kMilliPerGpu; }
};

// The scheduling-relevant part of a pod; pods with equal shapes score alike.
struct PodShape {
  int64_t cpu_milli = 0;
  int gpu_milli = 0;
  int num_gpu = 0;
  ModelMask models = 0;
  bool operator==(const PodShape&) const = default;
  int64_t TotalGpuMilli() const { return int64_t{num_gpu} * gpu_milli; }
  bool IsGpuShare() const { return num_gpu == 1 && gpu_milli < kMilliPerGpu; }
};
PodShape ShapeOf(const PodSpec& pod);

// What FGD's GPU-clustering policy groups pods by: 0 for CPU-only pods,
// kShareAffinity for GPU-sharing pods, else the number of whole GPUs.
inline constexpr int kShareAffinity = kMaxGpusPerNode + 1;
int AffinityOf(const PodShape& pod);

// A set of GPUs of one node, bit i = GPU i.
using GpuSet = uint32_t;

// A node's free resources. Placing a pod changes exactly one NodeState.
struct NodeState {
  int64_t cpu_left = 0;
  int64_t memory_left = 0;
  int64_t cpu_capacity = 0;
  int num_gpus = 0;
  int model = 0;
  std::array<int16_t, kMaxGpusPerNode> gpu_left{};  // free milli per GPU
  // Pods placed here per affinity tag (index AffinityOf; 0 unused).
  std::array<uint16_t, kShareAffinity + 1> affinity{};
  uint32_t version = 1;  // bumped by every Place

  static NodeState FromSpec(const NodeSpec& spec);
  int64_t GpuLeftTotal() const;
  int FullyFreeGpus() const;
  int NumAffinities() const;
  bool ModelAllowed(ModelMask mask) const {
    return mask == 0 || (model != 0 && (mask >> model) & 1u);
  }
  // Whether the GPUs alone can host the pod: num_gpu GPUs with at least
  // gpu_milli free each (FGD's CanNodeHostPodOnGpuMemory).
  bool GpusCanHost(const PodShape& pod) const;
  // CPU, memory, GPU model and GPUs all suffice (the scheduler's filter).
  bool Fits(const PodShape& pod, int64_t memory_mib) const;
  // REQUIRES: Fits, and `gpus` names num_gpu GPUs each with gpu_milli free.
  void Place(const PodShape& pod, int64_t memory_mib, GpuSet gpus);
};

// GPU choices shared by the policies. Each returns 0 for a CPU-only pod.
// Whole-GPU pods: the lowest-numbered fully free GPUs (Alibaba's
// AllocateExclusiveGpuId). Sharing pods: the fitting GPU with the least
// free milli, lowest index on ties (FGD's "best" GPU selection).
GpuSet BestFitGpus(const NodeState& node, const PodShape& pod);
GpuSet ExclusiveGpus(const NodeState& node, const PodShape& pod);

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_CLUSTER_H_
