#include "frugal/place/problem.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <queue>

#include <fmt/format.h>

#include "frugal/graph/training.h"

namespace frugal::place {

double PlacementProblem::total_time_ms() const {
  return std::accumulate(time_ms.begin(), time_ms.end(), 0.0);
}

int64_t PlacementProblem::total_mem_bytes() const {
  return std::accumulate(mem_bytes.begin(), mem_bytes.end(), int64_t{0});
}

double PlacementProblem::MinEdgeTransferMs(int e) const {
  if (min_transfer_ms.size() == edges.size()) return min_transfer_ms[e];
  return TransferEnvelope(topology).MinMs(edges[e].bytes, edges[e].cost_ms);
}

namespace {

int Find(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

// The longest run of leading dot-separated components `a` and `b` share.
std::string EnclosingBoth(const std::string& a, const std::string& b) {
  size_t end = 0;
  for (size_t i = 0;; ++i) {
    const bool a_end = i == a.size(), b_end = i == b.size();
    if ((a_end || a[i] == '.') && (b_end || b[i] == '.')) {
      if (a.compare(0, i, b, 0, i) != 0) break;
      end = i;
    }
    if (a_end || b_end || a[i] != b[i]) break;
  }
  return a.substr(0, end);
}


// "module 'h.3' (" for a group whose ops' modules all lie in h.3 (a block at
// --granularity layer), "modules 'wte', 'lm_head' (" for modules without a
// common one (tied weights), "" without modules.
std::string GroupModules(const std::vector<std::string>& op_modules, const std::vector<int>& ops) {
  std::string module;
  std::vector<std::string> distinct;
  for (int i : ops) {
    if (op_modules.empty() || op_modules[i].empty()) continue;
    module = distinct.empty() ? op_modules[i] : EnclosingBoth(module, op_modules[i]);
    if (std::find(distinct.begin(), distinct.end(), op_modules[i]) == distinct.end()) {
      distinct.push_back(op_modules[i]);
    }
  }
  if (!module.empty()) return "module '" + module + "' (";
  if (distinct.empty()) return "";
  std::string list;
  for (size_t k = 0; k < distinct.size() && k < 3; ++k) {
    list += (k ? ", '" : "'") + distinct[k] + "'";
  }
  if (distinct.size() > 3) list += ", ...";
  return "modules " + list + " (";
}

}  // namespace

Status PlacementProblem::Finalize() {
  const int n = num_ops();
  if (num_devices < 1 || num_devices > kMaxPlaceDevices) {
    return InvalidArgument(fmt::format("number of GPUs must be in 1..{}, got {}",
                                       kMaxPlaceDevices, num_devices));
  }
  if (topology.num_devices != num_devices ||
      topology.routes.size() != static_cast<size_t>(num_devices) * num_devices) {
    return InvalidArgument(fmt::format("topology '{}' has {} devices, expected {}",
                                       topology.name, topology.num_devices, num_devices));
  }
  if (n == 0) return InvalidArgument(name + ": graph has no ops");
  if (mem_bytes.size() != static_cast<size_t>(n) || color.size() != static_cast<size_t>(n) ||
      op_names.size() != static_cast<size_t>(n) ||
      (!op_modules.empty() && op_modules.size() != static_cast<size_t>(n)) ||
      (!op_phase.empty() && op_phase.size() != static_cast<size_t>(n)) ||
      (!op_microbatch.empty() && op_microbatch.size() != static_cast<size_t>(n))) {
    return InvalidArgument(name + ": per-op vectors differ in length");
  }
  if (op_ids.size() != static_cast<size_t>(n)) {  // ids default to indices
    op_ids.resize(n);
    for (int i = 0; i < n; ++i) op_ids[i] = i;
  }
  if (device_mem_bytes.size() != static_cast<size_t>(num_devices)) {
    return InvalidArgument(name + ": need one memory capacity per device");
  }
  for (int i = 0; i < n; ++i) {
    if (!(time_ms[i] >= 0) || !std::isfinite(time_ms[i])) {
      return InvalidArgument(fmt::format("{}: op {} '{}': negative or non-finite time {}",
                                         name, i, op_names[i], time_ms[i]));
    }
    if (time_ms[i] > kMaxSaneTimeMs) {
      return InvalidArgument(fmt::format("{}: op {} '{}': absurd time {:g} ms (over {:g} ms)",
                                         name, i, op_names[i], time_ms[i], kMaxSaneTimeMs));
    }
    if (mem_bytes[i] < 0) {
      return InvalidArgument(
          fmt::format("{}: op {} '{}': negative memory", name, i, op_names[i]));
    }
  }
  for (double m : device_mem_bytes) {
    if (!(m > 0)) return InvalidArgument(name + ": device memory must be > 0");
  }
  out_edges.assign(n, {});
  in_edges.assign(n, {});
  for (size_t e = 0; e < edges.size(); ++e) {
    const PlaceEdge& ed = edges[e];
    if (ed.src < 0 || ed.dst < 0 || ed.src >= n || ed.dst >= n || ed.src == ed.dst) {
      return InvalidArgument(fmt::format("{}: edge {} has invalid endpoints", name, e));
    }
    if (ed.bytes < 0 || std::isnan(ed.cost_ms)) {
      return InvalidArgument(fmt::format("{}: edge {} has negative bytes", name, e));
    }
    if (ed.cost_ms > kMaxSaneTimeMs) {
      return InvalidArgument(fmt::format("{}: edge {}: absurd transfer cost {:g} ms (over {:g} ms)",
                                         name, e, ed.cost_ms, kMaxSaneTimeMs));
    }
    out_edges[ed.src].push_back(static_cast<int>(e));
    in_edges[ed.dst].push_back(static_cast<int>(e));
  }
  succs.assign(n, {});
  preds.assign(n, {});
  for (int i = 0; i < n; ++i) {
    for (int e : out_edges[i]) succs[i].push_back(edges[e].dst);
    for (int e : in_edges[i]) preds[i].push_back(edges[e].src);
    for (auto* v : {&succs[i], &preds[i]}) {
      std::sort(v->begin(), v->end());
      v->erase(std::unique(v->begin(), v->end()), v->end());
    }
  }
  // Kahn's order, smallest index first: deterministic.
  std::vector<int> indeg(n);
  for (int i = 0; i < n; ++i) indeg[i] = static_cast<int>(preds[i].size());
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i) {
    if (indeg[i] == 0) ready.push(i);
  }
  topo_order.clear();
  while (!ready.empty()) {
    int u = ready.top();
    ready.pop();
    topo_order.push_back(u);
    for (int v : succs[u]) {
      if (--indeg[v] == 0) ready.push(v);
    }
  }
  if (static_cast<int>(topo_order.size()) != n) {
    for (int i = 0; i < n; ++i) {
      if (indeg[i] > 0) {
        return InvalidArgument(fmt::format("{}: graph has a cycle through op {} '{}'", name,
                                           i, op_names[i]));
      }
    }
  }
  topo_pos.assign(n, 0);
  for (int i = 0; i < n; ++i) topo_pos[topo_order[i]] = i;

  // Weak connectivity; a colocation constraint links ops too (profiled
  // layer graphs give forward and backward passes no edge between them).
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  for (const PlaceEdge& ed : edges) parent[Find(parent, ed.src)] = Find(parent, ed.dst);
  std::map<int64_t, int> first_of_color;
  for (int i = 0; i < n; ++i) {
    if (color[i] < 0) continue;
    auto [it, inserted] = first_of_color.emplace(color[i], i);
    if (!inserted) parent[Find(parent, i)] = Find(parent, it->second);
  }
  int components = 0, other = -1;
  for (int i = 0; i < n; ++i) {
    if (Find(parent, i) == i) {
      ++components;
      if (components == 2) other = i;
    }
  }
  if (components > 1) {
    return InvalidArgument(fmt::format(
        "{}: graph is disconnected ({} components; op {} '{}' is not connected to op 0)",
        name, components, other, op_names[other]));
  }

  // Colocation groups: ops of one color share a device.
  std::map<int64_t, int> by_color;
  group.assign(n, -1);
  num_groups = 0;
  for (int i = 0; i < n; ++i) {
    if (color[i] >= 0) {
      auto [it, inserted] = by_color.emplace(color[i], num_groups);
      if (inserted) ++num_groups;
      group[i] = it->second;
    } else {
      group[i] = num_groups++;
    }
  }
  group_ops.assign(num_groups, {});
  group_mem_bytes.assign(num_groups, 0);
  group_time_ms.assign(num_groups, 0);
  for (int i = 0; i < n; ++i) {
    group_ops[group[i]].push_back(i);
    group_mem_bytes[group[i]] += mem_bytes[i];
    group_time_ms[group[i]] += time_ms[i];
  }
  const TransferEnvelope envelope(topology);
  min_transfer_ms.resize(edges.size());
  for (size_t e = 0; e < edges.size(); ++e) {
    min_transfer_ms[e] = envelope.MinMs(edges[e].bytes, edges[e].cost_ms);
  }
  double max_cap = *std::max_element(device_mem_bytes.begin(), device_mem_bytes.end());
  double sum_cap = 0;
  for (double c : device_mem_bytes) sum_cap += std::isinf(c) ? 1e300 : c;
  for (int g = 0; g < num_groups; ++g) {
    if (static_cast<double>(group_mem_bytes[g]) > max_cap) {
      int op = group_ops[g][0];
      const std::string module = GroupModules(op_modules, group_ops[g]);
      return InvalidArgument(fmt::format(
          "{}: memory too small for any placement: {}op {} '{}' and its colocated ops{} need "
          "{} but a device has {}",
          name, module, op, op_names[op], module.empty() ? "" : ")", FormatGiB(group_mem_bytes[g]),
          FormatGiB(max_cap)));
    }
  }
  if (static_cast<double>(total_mem_bytes()) > sum_cap) {
    return InvalidArgument(fmt::format(
        "{}: memory too small for any placement: the ops need {} but {} devices hold {}",
        name, FormatGiB(total_mem_bytes()), num_devices, FormatGiB(sum_cap)));
  }
  return Status::Ok();
}

Result<PlacementProblem> BuildProblem(const OpGraph& graph, const ProblemOptions& options) {
  PlacementProblem p;
  p.name = graph.name.empty() ? "graph" : graph.name;
  if (options.num_devices < 1) {
    return InvalidArgument(
        fmt::format("number of GPUs must be >= 1, got {}", options.num_devices));
  }
  p.num_devices = options.num_devices;
  p.topology = options.topology.num_devices == 0 ? NvlinkTopology(options.num_devices)
                                                 : options.topology;
  double cap = options.device_mem_bytes;
  if (cap < 0) cap = graph.device_mem_bytes > 0 ? graph.device_mem_bytes
                                                 : std::numeric_limits<double>::infinity();
  p.device_mem_bytes.assign(p.num_devices, cap);
  const StepMemory step_memory = EstimateStepMemory(graph);
  for (int i = 0; i < graph.num_ops(); ++i) {
    const Op& op = graph.ops[i];
    double t = op.measured_time_ms;
    if (t < 0) {
      if (!options.op_time_ms) {
        return InvalidArgument(fmt::format(
            "{}: op {} '{}' has no measured time and no op-time model was given", p.name,
            i, op.name));
      }
      t = options.op_time_ms(op);
    }
    int64_t m = op.measured_mem_bytes;
    if (m < 0) {
      m = options.op_mem_bytes ? options.op_mem_bytes(op) : step_memory.op_bytes[i];
    }
    p.op_names.push_back(op.name.empty() ? "op" + std::to_string(i) : op.name);
    auto id = op.attrs.ints.find("id");
    p.op_ids.push_back(id != op.attrs.ints.end() && !id->second.empty() ? id->second[0] : i);
    p.time_ms.push_back(t);
    p.mem_bytes.push_back(m);
    p.color.push_back(op.color_class);
    p.op_phase.push_back(op.phase);
  }
  for (const Edge& e : graph.edges) {
    p.edges.push_back({e.src, e.dst, e.bytes, e.measured_cost_ms});
  }
  p.op_modules = options.op_modules;
  FRUGAL_RETURN_IF_ERROR(p.Finalize());
  return p;
}

bool RepairGroupMemory(const PlacementProblem& p, std::vector<int>* group_device) {
  std::vector<int>& part = *group_device;
  const int k = p.num_devices, ng = p.num_groups;
  std::vector<double> used(k, 0);
  for (int g = 0; g < ng; ++g) used[part[g]] += static_cast<double>(p.group_mem_bytes[g]);
  std::vector<int> by_size(ng);
  std::iota(by_size.begin(), by_size.end(), 0);
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](int a, int b) { return p.group_mem_bytes[a] < p.group_mem_bytes[b]; });
  for (int d = 0; d < k; ++d) {
    for (int g : by_size) {
      if (used[d] <= p.device_mem_bytes[d]) break;
      if (part[g] != d || p.group_mem_bytes[g] == 0) continue;
      int to = -1;
      for (int e = 0; e < k; ++e) {
        double free = p.device_mem_bytes[e] - used[e];
        if (e != d && free >= p.group_mem_bytes[g] &&
            (to < 0 || free > p.device_mem_bytes[to] - used[to])) {
          to = e;
        }
      }
      if (to < 0) continue;
      part[g] = to;
      used[d] -= static_cast<double>(p.group_mem_bytes[g]);
      used[to] += static_cast<double>(p.group_mem_bytes[g]);
    }
    if (used[d] > p.device_mem_bytes[d]) return false;
  }
  return true;
}

std::string FormatGiB(double bytes) { return fmt::format("{:.3f} GiB", bytes / (1 << 30)); }

}  // namespace frugal::place
