#include "frugal/share/sharing_policy.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "frugal/share/serving_sim.h"

namespace frugal::share {

int ClusterState::in_use() const {
  return static_cast<int>(std::count_if(gpus.begin(), gpus.end(),
                                        [](const GpuState& g) { return !g.empty(); }));
}

int ClusterState::FreeGpu() {
  for (size_t i = 0; i < gpus.size(); ++i) {
    if (gpus[i].empty()) return static_cast<int>(i);
  }
  if (max_gpus > 0 && static_cast<int>(gpus.size()) >= max_gpus) return -1;
  gpus.emplace_back();
  return static_cast<int>(gpus.size()) - 1;
}

void ClusterState::Remove(int job) {
  const int g = where[job];
  if (g < 0) return;
  auto& s = gpus[g].slots;
  s.erase(std::remove_if(s.begin(), s.end(), [&](const Slot& x) { return x.job == job; }),
          s.end());
  if (s.empty()) gpus[g].mechanism = Mechanism::kExclusive;
  where[job] = -1;
}

void ClusterState::Put(int gpu, GpuState state) {
  for (const Slot& s : gpus[gpu].slots) where[s.job] = -1;
  gpus[gpu] = std::move(state);
  for (const Slot& s : gpus[gpu].slots) where[s.job] = gpu;
}

Result<Planner> Planner::Create(const Workload& w, const GpuSpec& gpu, CostCache* costs,
                                const SlowdownModel& model, PlannerOptions o) {
  Planner p;
  p.w_ = &w;
  p.gpu_ = &gpu;
  p.model_ = &model;
  p.o_ = o;
  p.mig_ = MigProfilesFor(gpu);
  for (size_t i = 0; i < w.services.size(); ++i) {
    const InferenceService& s = w.services[i];
    JobProfile j;
    j.service = true;
    j.name = s.name;
    j.family = ModelFamily(s.model);
    j.batches = s.batch_sizes;
    for (int64_t b : s.batch_sizes) {
      Result<StepCost> c = costs->Inference(s.model, b, s.seq, gpu);
      if (!c.ok()) return c.status().WithPrefix("service " + s.name);
      j.batch_cost.push_back(*c);
      j.mem_bytes = std::max(j.mem_bytes, c->mem_bytes);
    }
    j.plan_rps = PeakRate(s.arrivals, s.start_s, s.end_s);
    j.slo_ms = s.slo_p99_ms;
    j.max_queue_delay_ms = s.max_queue_delay_ms;
    j.batch = s.max_batch();
    p.jobs_.push_back(std::move(j));
    // The probe: the service's own arrival process held at its peak rate.
    ArrivalSpec probe = s.arrivals;
    if (probe.kind == ArrivalKind::kTrace) {
      probe.kind = ArrivalKind::kPoisson;
      probe.rate_rps = p.jobs_.back().plan_rps;
    }
    probe.diurnal_amplitude = 0;
    if (probe.kind == ArrivalKind::kPoisson) probe.rate_rps = p.jobs_.back().plan_rps;
    const double rate = std::max(RateAt(probe, 0), 1e-3);
    p.probe_arrivals_.push_back(GenerateArrivals(probe, 0, o.probe_requests / rate,
                                                 o.seed * 7919 + i, o.probe_requests));
  }
  for (const TrainingJob& t : w.training) {
    JobProfile j;
    j.name = t.name;
    j.family = ModelFamily(t.model);
    Result<StepCost> c = costs->Training(t.model, t.batch, t.seq, gpu);
    if (!c.ok()) return c.status().WithPrefix("training job " + t.name);
    j.iter = *c;
    j.gpu_util = t.gpu_util;
    j.batch = t.batch;
    j.mem_bytes = c->mem_bytes;
    p.jobs_.push_back(std::move(j));
  }
  // Impossible SLOs are errors: below the solo latency at batch 1.
  for (size_t i = 0; i < w.services.size(); ++i) {
    const JobProfile& j = p.jobs_[i];
    const double solo1 = j.batch_cost.front().total_ms();
    if (j.slo_ms < solo1) {
      return InvalidArgument(fmt::format(
          "service {}: SLO p99 {:.3g} ms is below its solo latency at batch {} on {} "
          "({:.3g} ms); no placement can meet it",
          j.name, j.slo_ms, j.batches.front(), gpu.name, solo1));
    }
  }
  return p;
}

bool Planner::mps_sm_shares() const {
  const std::string& a = gpu_->architecture;
  return gpu_->vendor == "nvidia" && a != "kepler" && a != "maxwell" && a != "pascal";
}

double Planner::gpu_mem_bytes() const { return gpu_->mem_gib * 1024.0 * 1024 * 1024; }

double Planner::slot_mem_bytes(const GpuState& g, const Slot& s) const {
  if (g.mechanism == Mechanism::kMig && s.mig >= 0) {
    return mig_[s.mig].mem_gib * 1024.0 * 1024 * 1024;
  }
  return gpu_mem_bytes();
}

double Planner::Duty(int job, double rps) const {
  const JobProfile& j = jobs_[job];
  if (!j.service) return j.gpu_util;
  // The batch the server settles at: the smallest that keeps up.
  for (size_t k = 0; k < j.batches.size(); ++k) {
    const double per_req_ms = j.batch_cost[k].total_ms() / j.batches[k];
    if (rps * per_req_ms / 1000 <= 0.9 || k + 1 == j.batches.size()) {
      return std::min(1.0, rps * per_req_ms / 1000);
    }
  }
  return 1;
}

namespace {

// The batch a service's co-runners see it run at, at this rate.
size_t TypicalBatch(const JobProfile& j, double rps) {
  for (size_t k = 0; k < j.batches.size(); ++k) {
    if (rps * j.batch_cost[k].total_ms() / j.batches[k] / 1000 <= 0.9) return k;
  }
  return j.batches.size() - 1;
}

ColoJobInfo Info(const JobProfile& j, const StepCost& c, const GpuState& g, const Slot& s,
                 const std::vector<MigProfile>& mig, double duty, int64_t batch) {
  ColoJobInfo x;
  x.family = j.family;
  x.batch = batch;
  x.training = !j.service;
  x.compute_ms = c.compute_ms;
  x.memory_ms = c.memory_ms;
  x.gpu_util = duty;
  x.mem_bytes = j.mem_bytes;
  x.mechanism = g.slots.size() <= 1 && g.mechanism != Mechanism::kMig ? Mechanism::kExclusive
                                                                      : g.mechanism;
  x.share = g.mechanism == Mechanism::kMps ? s.share : 1;
  if (g.mechanism == Mechanism::kMig && s.mig >= 0) {
    x.share = static_cast<double>(mig[s.mig].compute_slices) / kMigComputeSlices;
    x.mem_bw_share = static_cast<double>(mig[s.mig].memory_slices) / kMigMemorySlices;
  }
  if (g.mechanism == Mechanism::kMps && g.slots.size() <= 1) {
    x.mechanism = Mechanism::kMps;  // a lone MPS client keeps its cap
  }
  return x;
}

}  // namespace

GpuEval Planner::Evaluate(const GpuState& g, const std::vector<double>* rps, int probe) const {
  GpuEval e;
  const size_t n = g.slots.size();
  e.slots.resize(n);
  // Memory.
  double used = 0;
  for (const Slot& s : g.slots) {
    const double have = slot_mem_bytes(g, s);
    if (g.mechanism == Mechanism::kMig) {
      if (jobs_[s.job].mem_bytes > have) {
        e.ok = false;
        e.why = fmt::format("{} needs {:.1f} GiB, MIG slice {} has {:.1f}", jobs_[s.job].name,
                            jobs_[s.job].mem_bytes / (1 << 30), mig_[s.mig].name,
                            have / (1 << 30));
      }
    } else {
      used += jobs_[s.job].mem_bytes;
    }
  }
  if (g.mechanism == Mechanism::kMig) {
    std::vector<int> chosen;
    for (const Slot& s : g.slots) chosen.push_back(s.mig);
    if (!MigLayoutFits(mig_, chosen)) {
      e.ok = false;
      e.why = "MIG slices exceed 7 compute / 8 memory slices";
    }
  } else if (used > gpu_mem_bytes()) {
    e.ok = false;
    e.why = fmt::format("jobs need {:.1f} GiB of {:.1f} GiB", used / (1 << 30),
                        gpu_mem_bytes() / (1 << 30));
  }
  // Duties, then speeds, twice: a slowed job is busier.
  std::vector<double> duty(n), speed(n, 1);
  std::vector<size_t> typical(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const int j = g.slots[i].job;
    const double r = jobs_[j].service ? (rps != nullptr ? (*rps)[j] : jobs_[j].plan_rps) : 0;
    duty[i] = Duty(j, r);
    if (jobs_[j].service) typical[i] = TypicalBatch(jobs_[j], r);
  }
  auto info = [&](size_t i, double d, size_t k) {
    const JobProfile& j = jobs_[g.slots[i].job];
    const StepCost& c = j.service ? j.batch_cost[k] : j.iter;
    return Info(j, c, g, g.slots[i], mig_, d, j.service ? j.batches[k] : j.batch);
  };
  for (int round = 0; round < 2; ++round) {
    std::vector<double> next(n);
    for (size_t i = 0; i < n; ++i) {
      std::vector<ColoJobInfo> others;
      if (g.mechanism != Mechanism::kMig) {
        for (size_t o = 0; o < n; ++o) {
          if (o != i) others.push_back(info(o, std::min(1.0, duty[o] / speed[o]), typical[o]));
        }
      }
      next[i] = ColocatedSpeed(*model_, info(i, duty[i], typical[i]), others, *gpu_);
    }
    speed = next;
  }
  for (size_t i = 0; i < n; ++i) {
    const int jid = g.slots[i].job;
    const JobProfile& j = jobs_[jid];
    SlotEval& se = e.slots[i];
    se.speed = speed[i];
    if (!j.service) {
      se.training_speed = TrainingSpeed(j.gpu_util, speed[i]);
      continue;
    }
    std::vector<ColoJobInfo> others;
    if (g.mechanism != Mechanism::kMig) {
      for (size_t o = 0; o < n; ++o) {
        if (o != i) others.push_back(info(o, std::min(1.0, duty[o] / speed[o]), typical[o]));
      }
    }
    for (size_t k = 0; k < j.batches.size(); ++k) {
      const double s = ColocatedSpeed(*model_, info(i, duty[i], k), others, *gpu_);
      se.batch_ms.push_back(j.batch_cost[k].total_ms() / s);
    }
    if (probe == kProbeAll || probe == static_cast<int>(i)) se.p99_ms = ProbeP99(jid, se.batch_ms);
  }
  return e;
}

double Planner::ProbeP99(int job, const std::vector<double>& batch_ms) const {
  const JobProfile& j = jobs_[job];
  std::vector<int64_t> key;
  LatencySegment seg{0, {}};
  for (double ms : batch_ms) {
    // Steps of 0.5 % on a log scale.
    const int64_t q = static_cast<int64_t>(std::llround(std::log(std::max(ms, 1e-6)) / std::log1p(0.005)));
    key.push_back(q);
    seg.batch_ms.push_back(std::exp(q * std::log1p(0.005)));
  }
  auto ck = std::make_pair(job, key);
  if (auto it = probe_cache_.find(ck); it != probe_cache_.end()) return it->second;
  RequestStats st = SimulateRequests(probe_arrivals_[job], j.batches, j.max_queue_delay_ms,
                                     j.slo_ms, std::span<const LatencySegment>(&seg, 1));
  probe_cache_.emplace(std::move(ck), st.p99_ms);
  return st.p99_ms;
}

std::string Planner::AloneProblem(int job) const {
  const JobProfile& j = jobs_[job];
  if (j.mem_bytes > gpu_mem_bytes()) {
    return fmt::format("needs {:.1f} GiB, {} has {:.1f} GiB", j.mem_bytes / (1 << 30),
                       gpu_->name, gpu_->mem_gib);
  }
  if (j.service) {
    GpuState g;
    g.slots.push_back({job, 1, -1});
    GpuEval e = Evaluate(g);
    if (e.slots[0].p99_ms > j.slo_ms) {
      return fmt::format("p99 {:.1f} ms alone on a whole {} at its peak {:.1f} req/s exceeds "
                         "its SLO {:.1f} ms",
                         e.slots[0].p99_ms, gpu_->name, j.plan_rps, j.slo_ms);
    }
  }
  return "";
}

double MinServiceShare(const Planner& p, GpuState g, size_t i) {
  const JobProfile& j = p.job(g.slots[i].job);
  const double target = p.options().slo_headroom * j.slo_ms;
  // p99 falls as the share grows: binary search on 5 % steps.
  int lo = 1, hi = 20;
  auto ok = [&](int steps) {
    g.slots[i].share = steps * 0.05;
    GpuEval e = p.Evaluate(g, nullptr, static_cast<int>(i));
    return e.slots[i].p99_ms <= target;
  };
  if (!ok(hi)) return 0;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (ok(mid)) hi = mid; else lo = mid + 1;
  }
  return hi * 0.05;
}

namespace {

bool Feasible(const Planner& p, const GpuState& g, std::string* why) {
  GpuEval e = p.Evaluate(g);
  if (!e.ok) {
    *why = e.why;
    return false;
  }
  for (size_t i = 0; i < g.slots.size(); ++i) {
    const JobProfile& j = p.job(g.slots[i].job);
    if (j.service && e.slots[i].p99_ms > p.options().slo_headroom * j.slo_ms) {
      *why = fmt::format("{} p99 {:.1f} ms > {:.0f} % of SLO {:.1f} ms", j.name,
                         e.slots[i].p99_ms, 100 * p.options().slo_headroom, j.slo_ms);
      return false;
    }
    if (!j.service && g.slots.size() > 1 &&
        e.slots[i].training_speed < p.options().min_training_speed) {
      *why = fmt::format("{} speed {:.2f} < {:.2f}", j.name, e.slots[i].training_speed,
                         p.options().min_training_speed);
      return false;
    }
  }
  return true;
}

Config MpsConfig(const Planner& p, const std::vector<int>& jobs) {
  Config c;
  c.state.mechanism = Mechanism::kMps;
  if (!p.mps_sm_shares()) {
    c.why = p.gpu().name + " has no MPS SM limits (Volta or newer)";
    return c;
  }
  double mem = 0;
  for (int j : jobs) {
    c.state.slots.push_back({j, 1, -1});
    mem += p.job(j).mem_bytes;
  }
  if (mem > p.gpu_mem_bytes()) {
    c.why = fmt::format("jobs need {:.1f} GiB of {:.1f} GiB", mem / (1 << 30),
                        p.gpu_mem_bytes() / (1 << 30));
    return c;
  }
  // Services first get the least share that meets their target with every
  // co-runner at full duty; training jobs split the rest by their duty.
  double used = 0, train_util = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!p.job(jobs[i]).service) {
      train_util += p.job(jobs[i]).gpu_util;
      continue;
    }
    const double s = MinServiceShare(p, c.state, i);
    if (s == 0) {
      c.why = p.job(jobs[i]).name + " misses its SLO at any MPS share";
      return c;
    }
    c.state.slots[i].share = s;
    used += s;
  }
  if (used > 1 + 1e-9) {
    c.why = fmt::format("services need {:.0f} % of the SMs", 100 * used);
    return c;
  }
  const double rest = 1 - used;
  double service_total = used;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (p.job(jobs[i]).service) {
      // No training job: services share the spare SMs in proportion.
      if (train_util == 0 && service_total > 0) {
        c.state.slots[i].share *= 1 / service_total;
      }
    } else {
      c.state.slots[i].share = rest * p.job(jobs[i]).gpu_util / train_util;
      if (c.state.slots[i].share < 0.05) {
        c.why = "no SM share left for " + p.job(jobs[i]).name;
        return c;
      }
    }
  }
  c.load = used + train_util;
  c.ok = Feasible(p, c.state, &c.why);
  return c;
}

Config MigConfig(const Planner& p, const std::vector<int>& jobs) {
  Config c;
  c.state.mechanism = Mechanism::kMig;
  const auto& mig = p.mig_profiles();
  if (mig.empty()) {
    c.why = p.gpu().name + " has no MIG";
    return c;
  }
  int g_used = 0, m_used = 0;
  for (int j : jobs) {
    c.state.slots.push_back({j, 1, -1});
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    const JobProfile& j = p.job(jobs[i]);
    bool placed = false;
    for (size_t k = 0; k < mig.size() && !placed; ++k) {
      if (j.mem_bytes > mig[k].mem_gib * 1024.0 * 1024 * 1024) continue;
      if (g_used + mig[k].compute_slices > kMigComputeSlices ||
          m_used + mig[k].memory_slices > kMigMemorySlices) {
        break;
      }
      GpuState one;
      one.mechanism = Mechanism::kMig;
      one.slots.push_back({jobs[i], 1, static_cast<int>(k)});
      GpuEval e = p.Evaluate(one, nullptr, j.service ? 0 : Planner::kProbeNone);
      const bool ok = j.service ? e.slots[0].p99_ms <= p.options().slo_headroom * j.slo_ms
                                : e.slots[0].training_speed >= p.options().min_training_speed;
      if (!ok) continue;
      c.state.slots[i].mig = static_cast<int>(k);
      g_used += mig[k].compute_slices;
      m_used += mig[k].memory_slices;
      placed = true;
    }
    if (!placed) {
      c.why = j.name + " fits no free MIG slice that meets its target";
      return c;
    }
  }
  c.load = static_cast<double>(g_used) / kMigComputeSlices;
  c.ok = Feasible(p, c.state, &c.why);
  return c;
}

Config TimeSliceConfig(const Planner& p, const std::vector<int>& jobs) {
  Config c;
  c.state.mechanism = Mechanism::kTimeSlice;
  double duty = 0;
  for (int j : jobs) {
    c.state.slots.push_back({j, 1, -1});
    duty += p.PlanDuty(j);
  }
  c.load = duty;
  c.ok = Feasible(p, c.state, &c.why);
  return c;
}

}  // namespace

Config BestConfig(const Planner& p, const std::vector<int>& jobs) {
  if (jobs.size() == 1) {
    Config c;
    c.state.mechanism = Mechanism::kExclusive;
    c.state.slots.push_back({jobs[0], 1, -1});
    c.ok = Feasible(p, c.state, &c.why);
    c.load = p.PlanDuty(jobs[0]);
    return c;
  }
  if (static_cast<int>(jobs.size()) > p.options().max_jobs_per_gpu) {
    Config c;
    c.why = fmt::format("more than {} jobs", p.options().max_jobs_per_gpu);
    return c;
  }
  Config best;
  std::string why;
  for (auto f : {&MpsConfig, &MigConfig, &TimeSliceConfig}) {
    Config c = f(p, jobs);
    if (!c.ok) {
      if (why.empty()) why = c.why;
      continue;
    }
    // Prefer the configuration leaving the most room: least load.
    if (!best.ok || c.load < best.load) best = std::move(c);
  }
  if (!best.ok) best.why = why;
  return best;
}

}  // namespace frugal::share
