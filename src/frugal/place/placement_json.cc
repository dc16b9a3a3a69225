#include "frugal/place/placement_json.h"

#include "frugal/base/file_io.h"

namespace frugal::place {

using nlohmann::json;

json PlacementToJson(const PlacementProblem& p, const Placement& pl, const SimResult& sim,
                     const PlacementInfo& info) {
  json j;
  j["format"] = "frugal-placement";
  j["version"] = 1;
  j["graph"] = p.name;
  j["method"] = info.method;
  j["devices"] = p.num_devices;
  j["topology"] = p.topology.name;
  j["makespan_ms"] = sim.makespan_ms;
  if (info.lower_bound_ms >= 0) j["lower_bound_ms"] = info.lower_bound_ms;
  if (!info.granularity.empty()) j["granularity"] = info.granularity;
  if (!info.device_map.is_null()) j["device_map"] = info.device_map;
  if (!info.modules.is_null()) j["modules"] = info.modules;
  if (!info.device_map_note.empty()) j["device_map_note"] = info.device_map_note;
  json nodes = json::array();
  for (int i = 0; i < p.num_ops(); ++i) {
    json n = {{"index", i}, {"id", p.op_ids[i]}, {"name", p.op_names[i]},
              {"device", pl.device[i]}};
    if (!p.op_modules.empty()) n["module"] = p.op_modules[i];
    if (static_cast<int>(sim.ops.size()) == p.num_ops()) {
      n["start_ms"] = sim.ops[i].start_ms;
      n["end_ms"] = sim.ops[i].end_ms;
    }
    nodes.push_back(std::move(n));
  }
  j["nodes"] = std::move(nodes);
  json order = json::array();
  for (int d = 0; d < p.num_devices; ++d) {
    json names = json::array(), ids = json::array();
    for (int op : pl.order[d]) {
      ids.push_back(op);
      names.push_back(p.op_names[op]);
    }
    json dev = {{"device", d}, {"ops", ids}, {"names", names}};
    if (d < static_cast<int>(sim.device_busy_ms.size())) {
      dev["busy_ms"] = sim.device_busy_ms[d];
      dev["mem_bytes"] = sim.device_peak_mem_bytes[d];
    }
    order.push_back(std::move(dev));
  }
  j["order"] = std::move(order);
  return j;
}

Status WritePlacementJson(const std::string& path, const PlacementProblem& p,
                          const Placement& pl, const SimResult& sim,
                          const PlacementInfo& info) {
  return WriteStringToFile(path, PlacementToJson(p, pl, sim, info).dump(1) + "\n");
}

Result<Placement> ParsePlacementJson(const std::string& path, const std::string& text,
                                     const PlacementProblem& p) {
  FRUGAL_ASSIGN_OR_RETURN(json j, ParseJson(text, path));
  auto bad = [&](const std::string& m) { return InvalidArgument(path + ": " + m); };
  if (!j.is_object() || !j.contains("nodes") || !j["nodes"].is_array() ||
      !j.contains("order") || !j["order"].is_array()) {
    return bad("missing arrays 'nodes' and 'order'");
  }
  if (static_cast<int>(j["nodes"].size()) != p.num_ops()) {
    return bad("placement has " + std::to_string(j["nodes"].size()) + " nodes, graph has " +
               std::to_string(p.num_ops()));
  }
  Placement pl;
  pl.device.assign(p.num_ops(), -1);
  try {
    for (const json& n : j["nodes"]) {
      int i = n.at("index").get<int>();
      if (i < 0 || i >= p.num_ops()) return bad("node index out of range");
      pl.device[i] = n.at("device").get<int>();
    }
    pl.order.assign(p.num_devices, {});
    for (const json& d : j["order"]) {
      int dev = d.at("device").get<int>();
      if (dev < 0 || dev >= p.num_devices) return bad("device out of range");
      pl.order[dev] = d.at("ops").get<std::vector<int>>();
    }
  } catch (const json::exception& e) {
    return bad(std::string("malformed placement: ") + e.what());
  }
  return pl;
}

}  // namespace frugal::place
