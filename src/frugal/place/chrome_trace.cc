#include "frugal/place/chrome_trace.h"

#include "frugal/base/file_io.h"

namespace frugal::place {

using nlohmann::json;

json ChromeTrace(const PlacementProblem& p, const Placement& pl, const SimResult& sim) {
  json events = json::array();
  auto meta = [&](int pid, int tid, const std::string& what, const std::string& name) {
    json e = {{"ph", "M"}, {"pid", pid}, {"name", what}, {"args", {{"name", name}}}};
    if (tid >= 0) e["tid"] = tid;
    events.push_back(e);
  };
  meta(0, -1, "process_name", "GPUs");
  meta(1, -1, "process_name", "links");
  for (int d = 0; d < p.num_devices; ++d) meta(0, d, "thread_name", "GPU " + std::to_string(d));
  for (size_t l = 0; l < p.topology.links.size(); ++l) {
    meta(1, static_cast<int>(l), "thread_name", p.topology.links[l].name);
  }
  // Where ops come from modules, slices are named by module: an ONNX
  // scope "/layer1/layer1.0/conv1/Conv" shows as "layer1.0.conv1 Conv".
  auto label = [&](int i) {
    const std::string& name = p.op_names[i];
    if (p.op_modules.empty() || p.op_modules[i].empty() || name.empty() || name[0] != '/') {
      return name;
    }
    return p.op_modules[i] + " " + name.substr(name.rfind('/') + 1);
  };
  for (int i = 0; i < p.num_ops() && i < static_cast<int>(sim.ops.size()); ++i) {
    json args = {{"op", i}, {"id", p.op_ids[i]}};
    if (!p.op_modules.empty()) args["module"] = p.op_modules[i];
    if (!p.op_phase.empty()) args["phase"] = PhaseName(p.op_phase[static_cast<size_t>(i)]);
    events.push_back({{"ph", "X"}, {"pid", 0}, {"tid", pl.device[i]},
                      {"name", label(i)}, {"cat", "op"},
                      {"ts", sim.ops[i].start_ms * 1e3},
                      {"dur", (sim.ops[i].end_ms - sim.ops[i].start_ms) * 1e3},
                      {"args", std::move(args)}});
  }
  for (const TransferSpan& t : sim.transfers) {
    for (int l : p.topology.Route(t.src_device, t.dst_device)) {
      events.push_back({{"ph", "X"}, {"pid", 1}, {"tid", l},
                        {"name", label(t.op) + " -> GPU " + std::to_string(t.dst_device)},
                        {"cat", "transfer"}, {"ts", t.start_ms * 1e3},
                        {"dur", (t.end_ms - t.start_ms) * 1e3},
                        {"args", {{"from", t.src_device}, {"to", t.dst_device}}}});
    }
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

Status WriteChromeTrace(const std::string& path, const PlacementProblem& p,
                        const Placement& pl, const SimResult& sim) {
  return WriteStringToFile(path, ChromeTrace(p, pl, sim).dump() + "\n");
}

}  // namespace frugal::place
