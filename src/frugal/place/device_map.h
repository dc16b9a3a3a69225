// A placement as the module -> GPU map that Hugging Face's
// from_pretrained(device_map=...) and accelerate's dispatch_model take: every
// module that owns parameters maps to the GPU its ops run on, and a parent
// replaces its children where all of them share one GPU ({"": 0} when the
// whole model does). Names get the graph's module_prefix outside the task
// head. Stateless; thread-safe.
#ifndef FRUGAL_PLACE_DEVICE_MAP_H_
#define FRUGAL_PLACE_DEVICE_MAP_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "frugal/base/status.h"
#include "frugal/graph/modules.h"
#include "frugal/graph/op_graph.h"
#include "frugal/place/simulator.h"

namespace frugal::place {

// `device`: per op of `graph`, its GPU. An ordered JSON object; an
// InvalidArgument naming the module when one module's ops sit on two GPUs
// (a placement at --granularity op), or when the graph has no modules.
// `modules`: MapModules(graph).
Result<nlohmann::json> BuildDeviceMap(const OpGraph& graph, const ModuleMap& modules,
                                      const std::vector<int>& device);

// Per module that owns parameters, in forward order: its framework name,
// GPU, and the start of its first and the end of its last forward op in
// `sim` (what tools/check_device_map.py replays against the real module
// graph). REQUIRES: sim has per-op times; device as above.
nlohmann::json ModuleSpans(const OpGraph& graph, const ModuleMap& modules,
                           const std::vector<int>& device, const SimResult& sim);

// The framework's name of module path `module` of `graph` (module_prefix
// applied outside the task head).
std::string FrameworkModuleName(const OpGraph& graph, const std::string& module);

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_DEVICE_MAP_H_
