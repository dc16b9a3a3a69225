#include "frugal/place/est_scheduler.h"

#include <algorithm>

namespace frugal::place {

EstScheduler::EstScheduler(const PlacementProblem& p)
    : p_(p),
      groups_(p),
      device_(p.num_ops(), -1),
      finish_(p.num_ops(), 0),
      device_free_(p.num_devices, 0),
      link_free_(p.topology.links.size(), 0),
      order_(p.num_devices) {}

std::vector<int> EstScheduler::Candidates(int op) const {
  int g = p_.group[op];
  if (groups_.DeviceOfGroup(g) >= 0) return {groups_.DeviceOfGroup(g)};
  std::vector<int> out;
  for (int d = 0; d < p_.num_devices; ++d) {
    if (groups_.Fits(g, d)) out.push_back(d);
  }
  return out;
}

std::vector<int> EstScheduler::FewCandidates(int op) const {
  int g = p_.group[op];
  if (groups_.DeviceOfGroup(g) >= 0) return {groups_.DeviceOfGroup(g)};
  std::vector<int> out;
  for (int u : p_.preds[op]) {
    int d = device_[u];
    if (d >= 0 && groups_.Fits(g, d) && std::find(out.begin(), out.end(), d) == out.end()) {
      out.push_back(d);
    }
  }
  int first_free = -1;
  for (int d = 0; d < p_.num_devices; ++d) {
    if ((first_free < 0 || device_free_[d] < device_free_[first_free]) && groups_.Fits(g, d)) {
      first_free = d;
    }
  }
  if (first_free >= 0 && std::find(out.begin(), out.end(), first_free) == out.end()) {
    out.push_back(first_free);
  }
  return out;
}

double EstScheduler::Arrival(int src, int d, bool book) const {
  long long key = static_cast<long long>(src) * p_.num_devices + d;
  auto it = arrival_.find(key);
  if (it != arrival_.end()) return it->second;
  int ds = device_[src];
  // The transfer carries the slowest edge from src to an op on d; ops not
  // yet committed are not known, so the edge into the asking op decides.
  double dur = 0;
  for (int e : p_.out_edges[src]) {
    int v = p_.edges[e].dst;
    if (device_[v] == d || (!book && device_[v] < 0)) {
      dur = std::max(dur, p_.EdgeTransferMs(e, ds, d));
    }
  }
  const std::vector<int>& route = p_.topology.Route(ds, d);
  double start = finish_[src];
  for (int l : route) start = std::max(start, link_free_[l]);
  double end = start + dur;
  if (book) {
    for (int l : route) link_free_[l] = end;
    arrival_[key] = end;
  }
  return end;
}

double EstScheduler::DataReady(int op, int d) const {
  double t = 0;
  for (int u : p_.preds[op]) {
    if (device_[u] == d) {
      t = std::max(t, finish_[u]);
    } else {
      t = std::max(t, Arrival(u, d, false));
    }
  }
  return t;
}

double EstScheduler::Start(int op, int d) const {
  return std::max(device_free_[d], DataReady(op, d));
}

void EstScheduler::Commit(int op, int d) {
  int g = p_.group[op];
  if (groups_.DeviceOfGroup(g) < 0) groups_.Assign(g, d);
  device_[op] = d;
  for (int u : p_.preds[op]) {
    if (device_[u] != d) Arrival(u, d, true);
  }
  double s = Start(op, d);
  finish_[op] = s + p_.time_ms[op];
  device_free_[d] = finish_[op];
  order_[d].push_back(op);
}

Placement EstScheduler::ToPlacement() const {
  Placement pl;
  pl.device = device_;
  pl.order = order_;
  return pl;
}

}  // namespace frugal::place
