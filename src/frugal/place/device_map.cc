#include "frugal/place/device_map.h"

#include <map>
#include <set>

#include "frugal/graph/modules.h"

namespace frugal::place {
namespace {

// Task heads live beside the base model in HF's task classes.
bool IsHead(const std::string& module) {
  for (const char* head : {"lm_head", "score", "cls", "classifier"}) {
    const std::string h = head;
    if (module == h || module.rfind(h + ".", 0) == 0) return true;
  }
  return false;
}

std::string Parent(const std::string& m) {
  size_t dot = m.rfind('.');
  return dot == std::string::npos ? "" : m.substr(0, dot);
}

}  // namespace

std::string FrameworkModuleName(const OpGraph& graph, const std::string& module) {
  if (graph.module_prefix.empty() || IsHead(module)) return module;
  if (module.empty()) return "";
  return graph.module_prefix + module;
}

Result<nlohmann::json> BuildDeviceMap(const OpGraph& graph, const ModuleMap& modules,
                                      const std::vector<int>& device) {
  if (!modules.has_modules()) {
    return InvalidArgument(graph.name + ": no device map: op names are not module paths");
  }
  // GPU of each module that owns parameters, in forward order.
  std::map<std::string, int> gpu;
  std::vector<std::string> order;
  for (int i = 0; i < graph.num_ops(); ++i) {
    const std::string& m = modules.module_of_op[i];
    if (modules.param_modules.count(m) == 0) continue;
    auto [it, added] = gpu.emplace(m, device[i]);
    if (added) order.push_back(m);
    if (it->second != device[i]) {
      return InvalidArgument(graph.name + ": no device map: module '" + m + "' runs on GPUs " +
                             std::to_string(it->second) + " and " + std::to_string(device[i]) +
                             " (place with --granularity module or layer)");
    }
  }
  // GPU shared by every parameter module under each ancestor; -1 = mixed.
  std::map<std::string, int> shared;
  for (const auto& [m, d] : gpu) {
    for (std::string a = m;; a = Parent(a)) {
      auto [it, added] = shared.emplace(a, d);
      if (!added && it->second != d) it->second = -1;
      if (a.empty()) break;
    }
  }
  nlohmann::json map = nlohmann::json::object();
  std::set<std::string> emitted;
  for (const std::string& m : order) {
    // The highest ancestor of m whose modules all share m's GPU.
    std::string top = m;
    for (std::string a = m;; a = Parent(a)) {
      if (shared.at(a) < 0) break;
      top = a;
      if (a.empty()) break;
    }
    if (emitted.insert(top).second) map[FrameworkModuleName(graph, top)] = gpu.at(m);
  }
  return map;
}

nlohmann::json ModuleSpans(const OpGraph& graph, const ModuleMap& modules,
                           const std::vector<int>& device, const SimResult& sim) {
  std::map<std::string, int> index;
  nlohmann::json spans = nlohmann::json::array();
  for (int i = 0; i < graph.num_ops() && i < static_cast<int>(sim.ops.size()); ++i) {
    const std::string& m = modules.module_of_op[i];
    if (graph.ops[i].phase != Phase::kForward || modules.param_modules.count(m) == 0) continue;
    auto [it, added] = index.emplace(m, static_cast<int>(spans.size()));
    if (added) {
      spans.push_back({{"name", FrameworkModuleName(graph, m)},
                       {"device", device[i]},
                       {"start_ms", sim.ops[i].start_ms},
                       {"end_ms", sim.ops[i].end_ms}});
      continue;
    }
    nlohmann::json& s = spans[it->second];
    s["start_ms"] = std::min(s["start_ms"].get<double>(), sim.ops[i].start_ms);
    s["end_ms"] = std::max(s["end_ms"].get<double>(), sim.ops[i].end_ms);
  }
  return spans;
}

}  // namespace frugal::place
