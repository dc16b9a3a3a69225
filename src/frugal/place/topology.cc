#include "frugal/place/topology.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "frugal/base/file_io.h"

namespace frugal::place {

double Topology::TransferMs(int64_t bytes, double measured_ms, int src,
                            int dst) const {
  if (measured_ms >= 0) return measured_ms * measured_scale;
  const std::vector<int>& route = Route(src, dst);
  double bw = 0, lat = 0;
  for (int l : route) {
    bw = bw == 0 ? links[l].bw_gbps : std::min(bw, links[l].bw_gbps);
    lat += links[l].latency_us;
  }
  if (bw <= 0) return lat * 1e-3;
  return lat * 1e-3 + static_cast<double>(bytes) / (bw * 1e9) * 1e3;
}

Topology NvlinkTopology(int k, double pair_gbps) {
  Topology t;
  t.name = "nvlink";
  t.num_devices = k;
  t.symmetric = true;
  t.routes.resize(static_cast<size_t>(k) * k);
  for (int a = 0; a < k; ++a) {
    for (int b = 0; b < k; ++b) {
      if (a == b) continue;
      t.routes[static_cast<size_t>(a) * k + b] = {static_cast<int>(t.links.size())};
      t.links.push_back({"nvlink " + std::to_string(a) + "->" + std::to_string(b),
                         pair_gbps, kNvlinkLatencyUs});
    }
  }
  return t;
}

Topology PcieTopology(int k, double bridge_gbps) {
  Topology t;
  t.name = "pcie";
  t.num_devices = k;
  t.symmetric = true;
  t.routes.resize(static_cast<size_t>(k) * k);
  t.links.push_back({"pcie host bridge", bridge_gbps, kPcieLatencyUs});
  for (int a = 0; a < k; ++a) {
    for (int b = 0; b < k; ++b) {
      if (a != b) t.routes[static_cast<size_t>(a) * k + b] = {0};
    }
  }
  return t;
}

Result<Topology> ParseTopology(const std::string& path, const std::string& text,
                               int num_devices) {
  using nlohmann::json;
  FRUGAL_ASSIGN_OR_RETURN(json doc, ParseJson(text, path));
  auto bad = [&](const std::string& m) { return InvalidArgument(path + ": " + m); };
  if (!doc.is_object()) return bad("top level is not an object");
  Topology t;
  t.name = path.substr(path.find_last_of('/') + 1);
  t.num_devices = num_devices;
  if (doc.contains("devices")) {
    if (!doc["devices"].is_number_integer()) return bad("'devices' is not an integer");
    int d = doc["devices"].get<int>();
    if (d != num_devices) {
      return bad("topology has " + std::to_string(d) + " devices but --gpus is " +
                 std::to_string(num_devices));
    }
  }
  if (doc.contains("measured_scale")) {
    if (!doc["measured_scale"].is_number() || doc["measured_scale"].get<double>() < 0) {
      return bad("'measured_scale' must be a number >= 0");
    }
    t.measured_scale = doc["measured_scale"].get<double>();
  }
  if (!doc.contains("links") || !doc["links"].is_array() || doc["links"].empty()) {
    return bad("missing non-empty array 'links'");
  }
  t.routes.resize(static_cast<size_t>(num_devices) * num_devices);
  std::map<std::string, int> by_name;
  for (size_t i = 0; i < doc["links"].size(); ++i) {
    const json& l = doc["links"][i];
    std::string where = "link " + std::to_string(i);
    if (!l.is_object()) return bad(where + " is not an object");
    Link link;
    link.name = l.value("name", where);
    if (!l.contains("bw_gbps") || !l["bw_gbps"].is_number()) {
      return bad(where + ": missing number 'bw_gbps'");
    }
    link.bw_gbps = l["bw_gbps"].get<double>();
    if (!(link.bw_gbps > 0) || !std::isfinite(link.bw_gbps)) {
      return bad(where + ": 'bw_gbps' must be > 0");
    }
    if (l.contains("latency_us")) {
      if (!l["latency_us"].is_number() || !(l["latency_us"].get<double>() >= 0)) {
        return bad(where + ": 'latency_us' must be >= 0");
      }
      link.latency_us = l["latency_us"].get<double>();
    }
    if (!by_name.emplace(link.name, static_cast<int>(t.links.size())).second) {
      return bad("duplicate link name '" + link.name + "'");
    }
    int id = static_cast<int>(t.links.size());
    t.links.push_back(link);
    if (l.contains("pairs")) {
      if (!l["pairs"].is_array()) return bad(where + ": 'pairs' is not an array");
      for (const json& p : l["pairs"]) {
        if (!p.is_array() || p.size() != 2 || !p[0].is_number_integer() ||
            !p[1].is_number_integer()) {
          return bad(where + ": each pair must be [src, dst]");
        }
        int a = p[0].get<int>(), b = p[1].get<int>();
        if (a < 0 || b < 0 || a >= num_devices || b >= num_devices || a == b) {
          return bad(where + ": pair [" + std::to_string(a) + ", " +
                     std::to_string(b) + "] is not two distinct devices below " +
                     std::to_string(num_devices));
        }
        t.routes[static_cast<size_t>(a) * num_devices + b].push_back(id);
      }
    }
  }
  for (int a = 0; a < num_devices; ++a) {
    for (int b = 0; b < num_devices; ++b) {
      if (a != b && t.Route(a, b).empty()) {
        return bad("no link carries transfers from device " + std::to_string(a) +
                   " to device " + std::to_string(b));
      }
    }
  }
  return t;
}

Result<Topology> LoadTopology(const std::string& path, int num_devices) {
  FRUGAL_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseTopology(path, text, num_devices);
}

Result<Topology> MakeTopology(const std::string& spec, int num_devices) {
  if (num_devices < 1) {
    return InvalidArgument("number of GPUs must be >= 1, got " +
                           std::to_string(num_devices));
  }
  if (spec == "nvlink") return NvlinkTopology(num_devices);
  if (spec == "pcie") return PcieTopology(num_devices);
  return LoadTopology(spec, num_devices);
}

}  // namespace frugal::place
