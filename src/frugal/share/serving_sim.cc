#include "frugal/share/serving_sim.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

namespace frugal::share {
namespace {

double Quantile(std::vector<float>* v, double q) {
  if (v->empty()) return 0;
  const size_t k = std::min(v->size() - 1, static_cast<size_t>(q * (v->size() - 1) + 0.5));
  std::nth_element(v->begin(), v->begin() + static_cast<std::ptrdiff_t>(k), v->end());
  return (*v)[k];
}

}  // namespace

RequestStats SimulateRequests(std::span<const double> arrivals,
                              std::span<const int64_t> batch_sizes, double max_queue_delay_ms,
                              double slo_ms, std::span<const LatencySegment> segments) {
  RequestStats st;
  st.requests = static_cast<int64_t>(arrivals.size());
  if (arrivals.empty() || batch_sizes.empty()) {
    // Nothing to measure: no latency (NaN; --json writes null).
    st.p50_ms = st.p99_ms = std::numeric_limits<double>::quiet_NaN();
    return st;
  }
  const size_t n = arrivals.size();
  const size_t max_batch = static_cast<size_t>(batch_sizes.back());
  const double delay_s = max_queue_delay_ms / 1000;
  std::vector<float> lat;
  lat.reserve(n);
  size_t seg = 0, head = 0;
  double free_at = -std::numeric_limits<double>::infinity();
  int64_t batches = 0;
  auto segment_at = [&](double t) {
    while (seg + 1 < segments.size() && segments[seg + 1].start_s <= t) ++seg;
    return &segments[seg];
  };
  while (head < n) {
    const double t0 = std::max(free_at, arrivals[head]);
    double dispatch = t0;
    if (t0 < arrivals[head] + delay_s) {
      const double full = head + max_batch - 1 < n ? arrivals[head + max_batch - 1]
                                                   : std::numeric_limits<double>::infinity();
      dispatch = std::max(t0, std::min(arrivals[head] + delay_s, full));
    }
    const LatencySegment* s = segment_at(dispatch);
    if (s->batch_ms.empty()) {
      // No GPU: requests arriving until the next placement fail.
      const double until = seg + 1 < segments.size() ? segments[seg + 1].start_s
                                                     : std::numeric_limits<double>::infinity();
      while (head < n && arrivals[head] < until) {
        ++st.failed;
        ++head;
      }
      free_at = until;
      continue;
    }
    size_t end = head;
    while (end < n && end - head < max_batch && arrivals[end] <= dispatch) ++end;
    const size_t b = end - head;
    size_t k = 0;
    while (k + 1 < batch_sizes.size() && static_cast<size_t>(batch_sizes[k]) < b) ++k;
    const double done = dispatch + s->batch_ms[k] / 1000;
    for (size_t r = head; r < end; ++r) {
      lat.push_back(static_cast<float>((done - arrivals[r]) * 1000));
    }
    ++batches;
    head = end;
    free_at = done;
  }
  for (float x : lat) st.over_slo += x > slo_ms ? 1 : 0;
  st.over_slo += st.failed;
  st.mean_batch = batches > 0 ? static_cast<double>(lat.size()) / batches : 0;
  st.p50_ms = Quantile(&lat, 0.5);
  st.p99_ms = Quantile(&lat, 0.99);
  // No request served: no latency to report (infinite: never answered).
  if (lat.empty()) st.p50_ms = std::numeric_limits<double>::infinity();
  if (st.failed > 0 && st.failed * 100 >= st.requests) {
    st.p99_ms = std::numeric_limits<double>::infinity();
  }
  return st;
}

std::vector<double> ServiceArrivals(const Workload& w, size_t i, uint64_t seed) {
  const InferenceService& s = w.services[i];
  return GenerateArrivals(s.arrivals, s.start_s, std::min(s.end_s, w.horizon_s),
                          seed * 1000003 + i);
}

Status CheckSimulatable(const Workload& w) {
  double total = 0;
  for (const InferenceService& s : w.services) {
    const double end = std::min(s.end_s, w.horizon_s);
    const double n = end > s.start_s ? MeanRate(s.arrivals, s.start_s, end) * (end - s.start_s) : 0;
    if (n > kMaxServiceRequests) {
      return InvalidArgument(fmt::format(
          "service {} expects {:.3g} requests over its lifetime; at most {:.0f} M a service are "
          "simulated (lower its rate or the horizon)",
          s.name, n, kMaxServiceRequests / 1e6));
    }
    total += n;
  }
  if (total > kMaxSimulatedRequests) {
    return InvalidArgument(fmt::format(
        "the services expect {:.3g} requests over the horizon; at most {:.0f} M are simulated "
        "(lower the rates or the horizon)",
        total, kMaxSimulatedRequests / 1e6));
  }
  return Status::Ok();
}

SimResult SimulateCluster(const Planner& p, SharingPolicy& policy, const SimOptions& o) {
  const Workload& w = p.workload();
  const int S = static_cast<int>(w.services.size());
  const int J = p.jobs();
  SimResult r;
  r.policy = policy.name();
  ClusterState c;
  c.max_gpus = o.max_gpus;
  c.where.assign(J, -1);
  std::vector<std::vector<LatencySegment>> segs(S);
  r.services.resize(S);
  r.training.resize(J - S);
  for (int i = 0; i < S; ++i) {
    r.services[i].name = w.services[i].name;
    r.services[i].slo_ms = w.services[i].slo_p99_ms;
    segs[i].push_back({0, {}});
  }
  std::vector<double> remaining(J - S), speed(J - S, 0), started(J - S, -1);
  for (int t = 0; t < J - S; ++t) {
    remaining[t] = w.training[t].duration_s;
    r.training[t].name = w.training[t].name;
  }
  // Arrivals, in time order (services first at equal times, then by index).
  struct Arr {
    double t;
    int job;
  };
  std::vector<Arr> arrivals;
  for (int i = 0; i < S; ++i) arrivals.push_back({w.services[i].start_s, i});
  for (int t = 0; t < J - S; ++t) arrivals.push_back({w.training[t].arrival_s, S + t});
  std::stable_sort(arrivals.begin(), arrivals.end(),
                   [](const Arr& a, const Arr& b) { return a.t < b.t; });
  std::vector<int> waiting;  // training jobs, FIFO
  std::vector<bool> done(J, false);
  double now = 0, next_tick = 0;
  size_t ai = 0;
  std::map<int, double> hour_area;
  auto account = [&](double t1) {
    // GPU-time of [now, t1) by hour.
    const int n = c.in_use();
    double t = now;
    while (t < t1) {
      const int h = static_cast<int>(t / 3600);
      const double e = std::min(t1, (h + 1) * 3600.0);
      hour_area[h] += n * (e - t);
      t = e;
    }
    r.gpu_hours += n * (t1 - now) / 3600;
  };
  auto reprice = [&](double t) {
    std::vector<double> rps(J, 0);
    for (int i = 0; i < S; ++i) rps[i] = RateAt(w.services[i].arrivals, t);
    std::vector<bool> seen(S, false);
    for (const GpuState& g : c.gpus) {
      if (g.empty()) continue;
      GpuEval e = p.Evaluate(g, &rps, false);
      for (size_t k = 0; k < g.slots.size(); ++k) {
        const int j = g.slots[k].job;
        if (j < S) {
          seen[j] = true;
          if (segs[j].back().batch_ms != e.slots[k].batch_ms) {
            segs[j].push_back({t, e.slots[k].batch_ms});
          }
        } else {
          speed[j - S] = e.slots[k].training_speed;
        }
      }
    }
    for (int i = 0; i < S; ++i) {
      if (!seen[i] && !segs[i].back().batch_ms.empty()) segs[i].push_back({t, {}});
    }
    for (int t2 = 0; t2 < J - S; ++t2) {
      if (c.where[S + t2] < 0) speed[t2] = 0;
    }
    r.peak_gpus = std::max(r.peak_gpus, c.in_use());
  };
  auto try_place = [&](int job) { return policy.Place(job, &c, p); };
  while (true) {
    // The next event: arrival, tick, or a training job finishing.
    double t_next = std::numeric_limits<double>::infinity();
    if (ai < arrivals.size()) t_next = arrivals[ai].t;
    int finishing = -1;
    for (int t = 0; t < J - S; ++t) {
      if (c.where[S + t] >= 0 && speed[t] > 0) {
        const double f = now + remaining[t] / speed[t];
        if (f < t_next) {
          t_next = f;
          finishing = S + t;
        }
      }
    }
    for (int i = 0; i < S; ++i) {
      if (c.where[i] >= 0 && w.services[i].end_s < t_next) {
        t_next = w.services[i].end_s;
        finishing = i;
      }
    }
    const bool busy = c.in_use() > 0 || ai < arrivals.size() || !waiting.empty();
    if (!busy) break;
    if (c.in_use() == 0 && ai == arrivals.size()) break;  // waiting jobs can never run
    if (next_tick < t_next) {
      t_next = next_tick;
      finishing = -2;
    }
    if (!std::isfinite(t_next)) break;  // waiting jobs that can never run
    account(t_next);
    for (int t = 0; t < J - S; ++t) {
      if (c.where[S + t] >= 0) remaining[t] = std::max(0.0, remaining[t] - speed[t] * (t_next - now));
    }
    now = t_next;
    if (finishing == -2) {
      next_tick += o.tick_s;
      if (o.progress) o.progress(now);
    } else if (finishing >= 0) {
      done[finishing] = true;
      if (finishing >= S) r.training[finishing - S].end_s = now;
      c.Remove(finishing);
      policy.AfterDeparture(finishing, &c, p);
      // Waiting training jobs, FIFO.
      for (size_t k = 0; k < waiting.size();) {
        if (try_place(waiting[k]).placed) {
          const int j = waiting[k];
          started[j - S] = now;
          r.training[j - S].start_s = now;
          r.training[j - S].wait_s = now - w.training[j - S].arrival_s;
          waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(k));
        } else {
          ++k;
        }
      }
    } else {
      while (ai < arrivals.size() && arrivals[ai].t <= now) {
        const int j = arrivals[ai++].job;
        if (j < S && w.services[j].end_s <= now) continue;
        if (std::string why = p.AloneProblem(j); !why.empty()) {
          if (j < S) {
            r.services[j].unschedulable = true;
            r.services[j].reason = why;
          } else {
            r.training[j - S].unschedulable = true;
            r.training[j - S].reason = why;
          }
          done[j] = true;
          continue;
        }
        PlaceResult pr = try_place(j);
        if (pr.placed) {
          if (j >= S) {
            started[j - S] = now;
            r.training[j - S].start_s = now;
          }
        } else if (j < S) {
          r.services[j].unschedulable = true;
          r.services[j].reason = pr.reason;
          done[j] = true;
        } else {
          waiting.push_back(j);
        }
      }
    }
    // Training jobs the policy moved lose migration_cost_s of progress
    // (checkpoint and restore); services start the new copy before the old
    // one stops, so they lose nothing.
    for (int j : c.moved) {
      if (j >= S) remaining[j - S] += o.migration_cost_s;
    }
    c.moved.clear();
    reprice(now);
  }
  r.migrations = c.migrations;
  r.makespan_s = now;
  for (int t = 0; t < J - S; ++t) {
    if (!r.training[t].unschedulable && r.training[t].start_s < 0) {
      r.training[t].unschedulable = true;
      r.training[t].reason = "never got a GPU";
    }
  }
  // Requests, one service at a time.
  for (int i = 0; i < S; ++i) {
    const InferenceService& s = w.services[i];
    r.services[i].stats = SimulateRequests(ServiceArrivals(w, i, o.seed), s.batch_sizes,
                                           s.max_queue_delay_ms, s.slo_p99_ms, segs[i]);
    r.requests += r.services[i].stats.requests;
    r.over_slo += r.services[i].stats.over_slo;
  }
  r.over_slo_pct = r.requests > 0 ? 100.0 * r.over_slo / r.requests : 0;
  double sum = 0;
  int ran = 0;
  for (int t = 0; t < J - S; ++t) {
    TrainingOutcome& to = r.training[t];
    if (to.start_s < 0 || to.end_s < 0) continue;
    to.speed = w.training[t].duration_s / std::max(1e-9, to.end_s - to.start_s);
    sum += to.speed;
    ++ran;
  }
  r.mean_training_speed = ran > 0 ? sum / ran : 0;
  const int hours = static_cast<int>(std::ceil(now / 3600));
  for (int h = 0; h < hours; ++h) r.gpus_by_hour.push_back(hour_area[h] / 3600);
  return r;
}

}  // namespace frugal::share
