// Kubernetes Pod and Node objects, as the API server serves them in JSON,
// read into G-Share's cluster model (cluster.h), with the conventions of
// Alibaba's GPU-sharing scheduler that FGD's simulator uses:
//  - a pod asks for GPUs with the annotations (or container resources)
//    `alibabacloud.com/gpu-count` and `alibabacloud.com/gpu-milli` (per
//    GPU, 1..1000; a count alone means whole GPUs), or with the NVIDIA
//    device plugin's `nvidia.com/gpu` resource (whole GPUs); the
//    annotation `alibabacloud.com/gpu-card-model` ("V100M16|V100M32")
//    restricts the GPU models it accepts;
//  - the GPUs a bound pod holds are in its `alibabacloud.com/gpu-index`
//    annotation ("2", "0-1-2-3");
//  - a node's GPUs are its allocatable `alibabacloud.com/gpu-count` (or
//    `nvidia.com/gpu`), its model the label `alibabacloud.com/gpu-card-model`
//    (or `nvidia.com/gpu.product`).
// CPU and memory are the pod's effective requests (the larger of the sum
// over containers and the largest init container, plus overhead; a limit
// stands for a missing request, as the API server defaults it). Stateless;
// thread-safe except for the GpuModelTable the caller passes.
#ifndef FRUGAL_SHARE_K8S_OBJECTS_H_
#define FRUGAL_SHARE_K8S_OBJECTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "frugal/base/status.h"
#include "frugal/share/cluster.h"

namespace frugal::share::k8s {

inline constexpr const char* kGpuMilliKey = "alibabacloud.com/gpu-milli";
inline constexpr const char* kGpuCountKey = "alibabacloud.com/gpu-count";
inline constexpr const char* kGpuModelKey = "alibabacloud.com/gpu-card-model";
inline constexpr const char* kGpuIndexKey = "alibabacloud.com/gpu-index";
inline constexpr const char* kNvidiaGpuKey = "nvidia.com/gpu";
inline constexpr const char* kNvidiaProductKey = "nvidia.com/gpu.product";

struct Node {
  NodeSpec spec;  // spec.name is the node's name
  bool schedulable = true;  // false when spec.unschedulable (cordoned)
};

struct Pod {
  std::string uid;
  std::string namespace_name = "default";
  std::string name;
  PodSpec spec;            // spec.name is "namespace/name"
  std::string node_name;   // spec.nodeName; empty while pending
  // The GPUs its gpu-index annotation names; nullopt when it has none.
  std::optional<GpuSet> gpus;
  // Succeeded, Failed or being deleted: holds nothing any more.
  bool terminal = false;

  std::string Key() const { return namespace_name + "/" + name; }
};

// A Kubernetes quantity ("500m", "2", "1.5", "64Gi", "1e3", "128974848")
// in base units (cores, bytes). InvalidArgument for anything else, a
// negative value or one above 1e18.
Result<double> ParseQuantity(std::string_view text);

// "0-1-3" <-> GPUs {0, 1, 3}. InvalidArgument for a malformed list, a
// repeated GPU or one at or above kMaxGpusPerNode.
Result<GpuSet> ParseGpuIndex(std::string_view text);
std::string GpuIndexString(GpuSet gpus);

// InvalidArgument "node NAME: problem" (or "node: ..." before the name is
// known) for a non-object, a missing name, a malformed quantity, more
// than kMaxGpusPerNode GPUs, or more than kMaxGpuModels models in all.
Result<Node> NodeFromJson(const nlohmann::json& object, GpuModelTable* models);

// InvalidArgument "pod NAMESPACE/NAME: problem" for a non-object, a
// missing name, a malformed quantity or annotation, gpu-milli outside
// 1..1000, a shared GPU (gpu-milli < 1000) asked of several GPUs, more
// than kMaxGpusPerNode GPUs, both nvidia.com/gpu and alibabacloud.com
// GPU requests, or a gpu-index that does not name gpu-count GPUs.
// Models a pod names are interned.
Result<Pod> PodFromJson(const nlohmann::json& object, GpuModelTable* models);

// The `items` of a list object (an array, or null for none).
// InvalidArgument "SOURCE: not a list (no items array)" otherwise.
Result<const nlohmann::json*> ListItems(const nlohmann::json& list, const std::string& source);

// The items of a NodeList / PodList; errors as above, prefixed by `source`.
Result<std::vector<Node>> NodesFromList(const nlohmann::json& list, GpuModelTable* models,
                                        const std::string& source);
Result<std::vector<Pod>> PodsFromList(const nlohmann::json& list, GpuModelTable* models,
                                      const std::string& source);

// The value under `key`, or under a key equal to it ignoring ASCII case
// (Go's JSON decoding accepts both "pod" and "Pod"); nullptr if none.
const nlohmann::json* FindKey(const nlohmann::json& object, std::string_view key);

}  // namespace frugal::share::k8s

#endif  // FRUGAL_SHARE_K8S_OBJECTS_H_
