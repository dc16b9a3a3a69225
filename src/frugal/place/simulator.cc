#include "frugal/place/simulator.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <tuple>

#include <fmt/format.h>

namespace frugal::place {
namespace {

struct Event {
  double time;
  int64_t seq;
  int kind;  // 0 = op finished, 1 = transfer arrived
  int id;    // op, or transfer index
  bool operator>(const Event& o) const {
    return std::tie(time, seq) > std::tie(o.time, o.seq);
  }
};

// One engine for both fixed orders and list scheduling.
class Engine {
 public:
  Engine(const PlacementProblem& p, const std::vector<int>& device,
         const std::vector<std::vector<int>>* order, const std::vector<double>* priority,
         bool keep)
      : p_(p), device_(device), order_(order), priority_(priority), keep_(keep) {}

  // Returns false on deadlock.
  bool Run(SimResult* r, std::vector<std::vector<int>>* realized) {
    const int n = p_.num_ops(), k = p_.num_devices;
    pending_.assign(n, 0);
    for (int i = 0; i < n; ++i) pending_[i] = static_cast<int>(p_.preds[i].size());
    pos_.assign(k, 0);
    busy_.assign(k, false);
    link_free_.assign(p_.topology.links.size(), 0.0);
    r->device_busy_ms.assign(k, 0);
    r->link_busy_ms.assign(p_.topology.links.size(), 0);
    r->ops.assign(keep_ ? n : 0, {});
    ready_.assign(k, {});
    realized_.assign(k, {});
    is_ready_.assign(n, false);
    done_ = 0;
    for (int i = 0; i < n; ++i) {
      if (pending_[i] == 0) MakeReady(i);
    }
    for (int d = 0; d < k; ++d) TryStart(d, 0, r);
    double now = 0;
    while (!events_.empty()) {
      Event ev = events_.top();
      events_.pop();
      now = ev.time;
      if (ev.kind == 0) {
        OnOpFinished(ev.id, now, r);
      } else {
        const Transfer& t = transfers_[ev.id];
        for (int v : p_.succs[t.op]) {
          if (device_[v] == t.dst && --pending_[v] == 0) MakeReady(v);
        }
        TryStart(t.dst, now, r);
      }
      // Ops made ready on other devices (local successors) may start now.
      for (int d : touched_) TryStart(d, now, r);
      touched_.clear();
    }
    r->makespan_ms = now;
    for (auto& t : transfers_) {
      if (keep_) r->transfers.push_back({t.op, t.src, t.dst, t.start, t.end});
    }
    *realized = std::move(realized_);
    return done_ == n;
  }

  int StuckDevice() const {
    for (int d = 0; d < p_.num_devices; ++d) {
      if (order_ && pos_[d] < static_cast<int>((*order_)[d].size())) return d;
    }
    return -1;
  }
  int StuckOp(int d) const { return (*order_)[d][pos_[d]]; }

 private:
  struct Transfer {
    int op, src, dst;
    double start, end;
  };
  struct Ready {
    double prio;
    int topo;
    int op;
    bool operator<(const Ready& o) const {
      return prio != o.prio ? prio < o.prio : topo > o.topo;
    }
  };

  void MakeReady(int v) {
    if (priority_) ready_[device_[v]].push({(*priority_)[v], p_.topo_pos[v], v});
    touched_.push_back(device_[v]);
    is_ready_[v] = true;
  }

  void TryStart(int d, double now, SimResult* r) {
    if (busy_[d]) return;
    int op = -1;
    if (order_) {
      const auto& ord = (*order_)[d];
      if (pos_[d] < static_cast<int>(ord.size()) && is_ready_[ord[pos_[d]]]) {
        op = ord[pos_[d]++];
      }
    } else if (!ready_[d].empty()) {
      op = ready_[d].top().op;
      ready_[d].pop();
    }
    if (op < 0) return;
    realized_[d].push_back(op);
    busy_[d] = true;
    double end = now + p_.time_ms[op];
    r->device_busy_ms[d] += p_.time_ms[op];
    if (keep_) r->ops[op] = {now, end};
    events_.push({end, seq_++, 0, op});
  }

  void OnOpFinished(int u, double now, SimResult* r) {
    ++done_;
    const int du = device_[u];
    busy_[du] = false;
    touched_.push_back(du);
    // Slowest edge to each remote device that consumes u.
    dest_ms_.assign(p_.num_devices, -1);
    for (int e : p_.out_edges[u]) {
      int dv = device_[p_.edges[e].dst];
      if (dv == du) continue;
      dest_ms_[dv] = std::max(dest_ms_[dv], p_.EdgeTransferMs(e, du, dv));
    }
    for (int v : p_.succs[u]) {
      if (device_[v] == du && --pending_[v] == 0) MakeReady(v);
    }
    for (int d = 0; d < p_.num_devices; ++d) {
      if (dest_ms_[d] < 0) continue;
      const std::vector<int>& route = p_.topology.Route(du, d);
      double start = now;
      for (int l : route) start = std::max(start, link_free_[l]);
      double end = start + dest_ms_[d];
      for (int l : route) {
        link_free_[l] = end;
        r->link_busy_ms[l] += dest_ms_[d];
      }
      transfers_.push_back({u, du, d, start, end});
      events_.push({end, seq_++, 1, static_cast<int>(transfers_.size()) - 1});
    }
  }

  const PlacementProblem& p_;
  const std::vector<int>& device_;
  const std::vector<std::vector<int>>* order_;
  const std::vector<double>* priority_;
  bool keep_;
  std::vector<int> pending_, pos_, touched_;
  std::vector<bool> busy_, is_ready_;
  std::vector<double> link_free_, dest_ms_;
  std::vector<std::priority_queue<Ready>> ready_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  std::vector<Transfer> transfers_;
  std::vector<std::vector<int>> realized_;
  int64_t seq_ = 0;
  int done_ = 0;
};

}  // namespace

SimResult Simulate(const PlacementProblem& p, const Placement& pl, const SimOptions& options) {
  SimResult r;
  const int n = p.num_ops(), k = p.num_devices;
  auto reject = [&](std::string why) {
    r.feasible = false;
    r.reason = std::move(why);
    return r;
  };
  if (static_cast<int>(pl.device.size()) != n) {
    return reject(fmt::format("placement has {} ops, graph has {}", pl.device.size(), n));
  }
  if (static_cast<int>(pl.order.size()) != k) {
    return reject(fmt::format("placement orders {} devices, problem has {}", pl.order.size(), k));
  }
  for (int i = 0; i < n; ++i) {
    if (pl.device[i] < 0 || pl.device[i] >= k) {
      return reject(fmt::format("op {} '{}' is on device {}, not in 0..{}", i, p.op_names[i],
                                pl.device[i], k - 1));
    }
  }
  std::vector<int> seen(n, 0);
  for (int d = 0; d < k; ++d) {
    for (int op : pl.order[d]) {
      if (op < 0 || op >= n) return reject(fmt::format("device {} orders unknown op {}", d, op));
      if (pl.device[op] != d) {
        return reject(fmt::format("op {} '{}' is ordered on device {} but placed on {}", op,
                                  p.op_names[op], d, pl.device[op]));
      }
      if (seen[op]++) {
        return reject(fmt::format("op {} '{}' appears twice in device {}'s order", op,
                                  p.op_names[op], d));
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    if (!seen[i]) {
      return reject(fmt::format("op {} '{}' is missing from device {}'s order", i,
                                p.op_names[i], pl.device[i]));
    }
  }
  for (int g = 0; g < p.num_groups; ++g) {
    const auto& ops = p.group_ops[g];
    for (int op : ops) {
      if (pl.device[op] != pl.device[ops[0]]) {
        return reject(fmt::format(
            "colocated ops {} '{}' and {} '{}' are on devices {} and {}", ops[0],
            p.op_names[ops[0]], op, p.op_names[op], pl.device[ops[0]], pl.device[op]));
      }
    }
  }
  r.device_peak_mem_bytes.assign(k, 0);
  for (int i = 0; i < n; ++i) r.device_peak_mem_bytes[pl.device[i]] += p.mem_bytes[i];
  if (options.check_memory) {
    for (int d = 0; d < k; ++d) {
      if (static_cast<double>(r.device_peak_mem_bytes[d]) > p.device_mem_bytes[d]) {
        return reject(fmt::format("device {} needs {} but holds {}", d,
                                  FormatGiB(r.device_peak_mem_bytes[d]), FormatGiB(p.device_mem_bytes[d])));
      }
    }
  }
  Engine engine(p, pl.device, &pl.order, nullptr, options.keep_timeline);
  std::vector<std::vector<int>> realized;
  if (!engine.Run(&r, &realized)) {
    int d = engine.StuckDevice();
    int op = d >= 0 ? engine.StuckOp(d) : 0;
    return reject(fmt::format(
        "device {}'s order contradicts the dependencies: op {} '{}' waits for an input "
        "that never arrives",
        d, op, p.op_names[op]));
  }
  r.feasible = true;
  return r;
}

Placement ListSchedule(const PlacementProblem& p, const std::vector<int>& device,
                       const std::vector<double>& priority, double* makespan_ms) {
  Engine engine(p, device, nullptr, &priority, false);
  SimResult r;
  Placement out;
  out.device = device;
  engine.Run(&r, &out.order);
  out.order.resize(p.num_devices);
  if (makespan_ms) *makespan_ms = r.makespan_ms;
  return out;
}

std::vector<double> BottomLevels(const PlacementProblem& p, const std::vector<int>& device,
                                 double comm_weight) {
  std::vector<double> bl(p.num_ops(), 0);
  for (int i = p.num_ops() - 1; i >= 0; --i) {
    int u = p.topo_order[i];
    double best = 0;
    for (int e : p.out_edges[u]) {
      int v = p.edges[e].dst;
      double c = 0;
      if (device.empty()) {
        c = comm_weight * p.MinEdgeTransferMs(e);
      } else if (device[u] != device[v]) {
        c = p.EdgeTransferMs(e, device[u], device[v]);
      }
      best = std::max(best, c + bl[v]);
    }
    bl[u] = p.time_ms[u] + best;
  }
  return bl;
}

Placement ScheduleByBottomLevel(const PlacementProblem& p, const std::vector<int>& device,
                                double* makespan_ms) {
  return ListSchedule(p, device, BottomLevels(p, device), makespan_ms);
}

}  // namespace frugal::place
