#include "frugal/place/topology.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
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

TransferEnvelope::TransferEnvelope(const Topology& t) : measured_scale_(t.measured_scale) {
  // Per distinct bandwidth the smallest latency, then the lower envelope.
  std::map<double, std::pair<double, double>> latency_of_slope;  // -> (ms, GB/s)
  for (int a = 0; a < t.num_devices; ++a) {
    for (int b = 0; b < t.num_devices; ++b) {
      if (a == b) continue;
      any_pair_ = true;
      double bw = 0, lat = 0;
      for (int l : t.Route(a, b)) {
        bw = bw == 0 ? t.links[l].bw_gbps : std::min(bw, t.links[l].bw_gbps);
        lat += t.links[l].latency_us;
      }
      const double slope = bw <= 0 ? 0 : 1e3 / (bw * 1e9);
      auto [it, inserted] = latency_of_slope.emplace(slope, std::make_pair(lat * 1e-3, bw));
      if (!inserted && lat * 1e-3 < it->second.first) it->second = {lat * 1e-3, bw};
    }
  }
  // Steepest first: at 0 bytes the smallest latency wins, then ever flatter
  // lines take over. Lines that are never below the others are dropped.
  auto cross = [](const Line& p, const Line& q) {  // p steeper than q
    return (q.latency_ms - p.latency_ms) / (p.ms_per_byte - q.ms_per_byte);
  };
  for (auto it = latency_of_slope.rbegin(); it != latency_of_slope.rend(); ++it) {
    const Line l{it->second.first, it->first, it->second.second};
    while (!hull_.empty() && l.latency_ms <= hull_.back().latency_ms) {
      hull_.pop_back();  // flatter and no dearer at 0 bytes: better everywhere
      if (!x_.empty()) x_.pop_back();
    }
    while (hull_.size() >= 2 && cross(hull_[hull_.size() - 2], l) <= x_.back()) {
      hull_.pop_back();
      x_.pop_back();
    }
    if (!hull_.empty()) x_.push_back(cross(hull_.back(), l));
    hull_.push_back(l);
  }
}

double TransferEnvelope::MinMs(int64_t bytes, double measured_ms) const {
  if (!any_pair_) return 0;
  if (measured_ms >= 0) return measured_ms * measured_scale_;
  const double x = static_cast<double>(bytes);
  const Line& l = hull_[std::upper_bound(x_.begin(), x_.end(), x) - x_.begin()];
  // The same arithmetic as Topology::TransferMs, to the last bit.
  if (l.bw_gbps <= 0) return l.latency_ms;
  return l.latency_ms + x / (l.bw_gbps * 1e9) * 1e3;
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
  // An unknown key is a typo, not something to ignore: the message naming
  // it and the keys `o` may have, or "" when every key is known.
  auto unknown = [](const json& o, std::initializer_list<const char*> keys) -> std::string {
    for (auto it = o.begin(); it != o.end(); ++it) {
      const std::string k = it.key();
      if (std::none_of(keys.begin(), keys.end(), [&k](const char* x) { return k == x; })) {
        std::string expected;
        for (const char* x : keys) expected += (expected.empty() ? "" : ", ") + std::string(x);
        return "unknown key '" + k + "' (expected " + expected + ")";
      }
    }
    return "";
  };
  if (std::string m = unknown(doc, {"devices", "measured_scale", "links"}); !m.empty()) return bad(m);
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
    if (!doc["measured_scale"].is_number() || !(doc["measured_scale"].get<double>() >= 0) ||
        doc["measured_scale"].get<double>() > kMaxMeasuredScale) {
      return bad(fmt::format("'measured_scale' must be a number in [0, {:g}]", kMaxMeasuredScale));
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
    if (std::string m = unknown(l, {"name", "bw_gbps", "latency_us", "pairs"}); !m.empty()) {
      return bad(where + ": " + m);
    }
    Link link;
    if (l.contains("name") && !l["name"].is_string()) return bad(where + ": 'name' is not a string");
    link.name = l.value("name", where);
    if (!l.contains("bw_gbps") || !l["bw_gbps"].is_number()) {
      return bad(where + ": missing number 'bw_gbps'");
    }
    link.bw_gbps = l["bw_gbps"].get<double>();
    if (!(link.bw_gbps >= kMinLinkGbps) || !std::isfinite(link.bw_gbps)) {
      return bad(where + fmt::format(": 'bw_gbps' must be a finite number >= {:g}", kMinLinkGbps));
    }
    if (l.contains("latency_us")) {
      if (!l["latency_us"].is_number() || !(l["latency_us"].get<double>() >= 0) ||
          l["latency_us"].get<double>() > kMaxLinkLatencyUs) {
        return bad(where + fmt::format(": 'latency_us' must be in [0, {:g}]", kMaxLinkLatencyUs));
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
        std::vector<int>& route = t.routes[static_cast<size_t>(a) * num_devices + b];
        if (std::find(route.begin(), route.end(), id) != route.end()) {
          return bad(where + ": pair [" + std::to_string(a) + ", " + std::to_string(b) + "] listed twice");
        }
        route.push_back(id);
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
  if (num_devices < 1 || num_devices > kMaxPlaceDevices) {
    return InvalidArgument(fmt::format("number of GPUs must be in 1..{}, got {}",
                                       kMaxPlaceDevices, num_devices));
  }
  if (spec == "nvlink") return NvlinkTopology(num_devices);
  if (spec == "pcie") return PcieTopology(num_devices);
  return LoadTopology(spec, num_devices);
}

}  // namespace frugal::place
