// dnn-partitioning JSON (Tarnawski et al., NeurIPS'20): profiled graphs whose
// nodes carry measured accelerator time (fpgaLatency, ms), CPU time, memory
// (size, bytes) and colocation class, and whose edges carry a measured
// transfer time (cost, ms) and bytes. Kept exactly: Pesto's benchmarks are
// scored on these numbers.
#include <cmath>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "frugal/base/file_io.h"
#include "frugal/graph/importers/importers.h"

namespace frugal::importers {
namespace {

using nlohmann::json;

Result<double> Number(const json& obj, const char* key, const std::string& where,
                      bool required, double def = -1) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (!required) return def;
    return InvalidArgument(where + ": missing field '" + key + "'");
  }
  if (it->is_boolean()) return it->get<bool>() ? 1.0 : 0.0;
  if (!it->is_number()) {
    return InvalidArgument(where + ": field '" + key + "' is not a number");
  }
  double v = it->get<double>();
  if (std::isnan(v) || std::isinf(v)) {
    return InvalidArgument(where + ": field '" + key + "' is not finite");
  }
  return v;
}

// Times (fpgaLatency, cpuLatency, cost) in [0, kMaxSaneTimeMs]: a time of
// 1e100 ms used to reach CLP and abort it on an assertion.
Status CheckTime(double v, const std::string& where, const char* key) {
  if (v > kMaxSaneTimeMs) {
    return InvalidArgument(where + ": absurd " + key + " " + fmt::format("{:g}", v) +
                           " ms (over " + fmt::format("{:g}", kMaxSaneTimeMs) + " ms)");
  }
  return Status::Ok();
}

Result<int64_t> Bytes(double v, const std::string& where, const char* key) {
  if (v < 0) return InvalidArgument(where + ": negative " + key);
  if (v > kMaxSaneBytes) return InvalidArgument(where + ": absurd " + key);
  return static_cast<int64_t>(std::llround(v));
}

}  // namespace

bool DetectPartitionJson(const std::string& path, std::string_view contents) {
  if (FileExtension(path) != "json") return false;
  return contents.find("\"nodes\"") != std::string_view::npos &&
         contents.find("\"edges\"") != std::string_view::npos;
}

Result<OpGraph> ImportPartitionJson(const std::string& path,
                                    std::string_view contents,
                                    const ImportOptions&) {
  FRUGAL_ASSIGN_OR_RETURN(json doc, ParseJson(std::string(contents), path));
  if (!doc.is_object()) return InvalidArgument(path + ": top level is not an object");
  if (!doc.contains("nodes") || !doc["nodes"].is_array()) {
    return InvalidArgument(path + ": missing array 'nodes'");
  }
  if (!doc.contains("edges") || !doc["edges"].is_array()) {
    return InvalidArgument(path + ": missing array 'edges'");
  }
  OpGraph g;
  g.name = path.substr(path.find_last_of('/') + 1);
  if (g.name.size() > 5) g.name.erase(g.name.size() - 5);  // ".json"
  FRUGAL_ASSIGN_OR_RETURN(double max_size, Number(doc, "maxSizePerFPGA", path, false));
  if (max_size != -1) {
    FRUGAL_ASSIGN_OR_RETURN(int64_t mem, Bytes(max_size, path, "maxSizePerFPGA"));
    g.device_mem_bytes = static_cast<double>(mem);
  }

  std::unordered_map<int64_t, int> index_of;
  const json& nodes = doc["nodes"];
  for (size_t i = 0; i < nodes.size(); ++i) {
    const json& n = nodes[i];
    std::string where = path + ": node " + std::to_string(i);
    if (!n.is_object()) return InvalidArgument(where + ": not an object");
    FRUGAL_ASSIGN_OR_RETURN(double id, Number(n, "id", where, true));
    if (id != std::floor(id) || std::fabs(id) > 9e15) {
      return InvalidArgument(where + ": id is not an integer");
    }
    Op op;
    op.kind = OpKind::kProfiled;
    op.type = "profiled";
    if (n.contains("name") && n["name"].is_string()) {
      op.name = n["name"].get<std::string>();
    } else {
      op.name = "node" + std::to_string(static_cast<int64_t>(id));
    }
    FRUGAL_ASSIGN_OR_RETURN(double t, Number(n, "fpgaLatency", where, true));
    FRUGAL_ASSIGN_OR_RETURN(double cpu, Number(n, "cpuLatency", where, false));
    FRUGAL_ASSIGN_OR_RETURN(double size, Number(n, "size", where, true));
    FRUGAL_ASSIGN_OR_RETURN(double bwd, Number(n, "isBackwardNode", where, false, 0));
    FRUGAL_ASSIGN_OR_RETURN(double color, Number(n, "colorClass", where, false));
    if (t < 0) return InvalidArgument(where + ": negative fpgaLatency");
    if (cpu < 0 && cpu != -1) return InvalidArgument(where + ": negative cpuLatency");
    FRUGAL_RETURN_IF_ERROR(CheckTime(t, where, "fpgaLatency"));
    FRUGAL_RETURN_IF_ERROR(CheckTime(cpu, where, "cpuLatency"));
    FRUGAL_ASSIGN_OR_RETURN(int64_t mem, Bytes(size, where, "size"));
    op.measured_time_ms = t;
    op.measured_cpu_time_ms = cpu;
    op.measured_mem_bytes = mem;
    op.phase = bwd != 0 ? Phase::kBackward : Phase::kForward;
    op.color_class = color >= 0 ? static_cast<int64_t>(color) : -1;
    op.attrs.ints["id"] = {static_cast<int64_t>(id)};
    if (n.contains("supportedOnFpga")) {
      FRUGAL_ASSIGN_OR_RETURN(double sup, Number(n, "supportedOnFpga", where, false, 1));
      op.attrs.ints["supported_on_device"] = {sup != 0 ? 1 : 0};
    }
    if (!index_of.emplace(static_cast<int64_t>(id), g.num_ops()).second) {
      return InvalidArgument(where + ": duplicate id " +
                             std::to_string(static_cast<int64_t>(id)));
    }
    g.AddOp(std::move(op));
  }

  const json& edges = doc["edges"];
  for (size_t i = 0; i < edges.size(); ++i) {
    const json& e = edges[i];
    std::string where = path + ": edge " + std::to_string(i);
    if (!e.is_object()) return InvalidArgument(where + ": not an object");
    FRUGAL_ASSIGN_OR_RETURN(double src, Number(e, "sourceId", where, true));
    FRUGAL_ASSIGN_OR_RETURN(double dst, Number(e, "destId", where, true));
    FRUGAL_ASSIGN_OR_RETURN(double cost, Number(e, "cost", where, true));
    FRUGAL_ASSIGN_OR_RETURN(double size, Number(e, "size", where, false, 0));
    auto s = index_of.find(static_cast<int64_t>(src));
    auto d = index_of.find(static_cast<int64_t>(dst));
    if (s == index_of.end() || d == index_of.end()) {
      return InvalidArgument(where + ": refers to a node id that does not exist");
    }
    if (cost < 0) return InvalidArgument(where + ": negative cost");
    FRUGAL_RETURN_IF_ERROR(CheckTime(cost, where, "cost"));
    FRUGAL_ASSIGN_OR_RETURN(int64_t bytes, Bytes(size, where, "size"));
    g.AddEdge(s->second, d->second, bytes);
    g.edges.back().measured_cost_ms = cost;
  }
  return g;
}

}  // namespace frugal::importers
