#include "frugal/share/plan.h"

#include <algorithm>
#include <numeric>

namespace frugal::share {

SharePlan PlanWorkload(const Planner& p, SharingPolicy& policy, int gpus) {
  SharePlan out;
  out.policy = policy.name();
  out.gpu = p.gpu().name;
  out.gpus_allowed = gpus;
  ClusterState c;
  c.max_gpus = gpus;
  c.where.assign(p.jobs(), -1);
  const int S = static_cast<int>(p.workload().services.size());
  std::vector<int> order(p.jobs());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.begin() + S,
                   [&](int a, int b) { return p.PlanDuty(a) > p.PlanDuty(b); });
  for (int j : order) {
    if (std::string why = p.AloneProblem(j); !why.empty()) {
      out.unschedulable.push_back({p.job(j).name, why});
      continue;
    }
    PlaceResult r = policy.Place(j, &c, p);
    if (!r.placed) out.unschedulable.push_back({p.job(j).name, r.reason});
  }
  for (size_t g = 0; g < c.gpus.size(); ++g) {
    const GpuState& s = c.gpus[g];
    if (s.empty()) continue;
    PlannedGpu pg;
    pg.index = static_cast<int>(g);
    pg.mechanism = s.mechanism;
    GpuEval e = p.Evaluate(s);
    for (size_t k = 0; k < s.slots.size(); ++k) {
      const JobProfile& j = p.job(s.slots[k].job);
      PlannedJob pj;
      pj.name = j.name;
      pj.service = j.service;
      pj.share = s.mechanism == Mechanism::kMps ? s.slots[k].share : 1;
      if (s.mechanism == Mechanism::kMig && s.slots[k].mig >= 0) {
        pj.mig = p.mig_profiles()[s.slots[k].mig].name;
        pj.share = static_cast<double>(p.mig_profiles()[s.slots[k].mig].compute_slices) /
                   kMigComputeSlices;
      }
      pj.mem_gib = j.mem_bytes / (1024.0 * 1024 * 1024);
      pj.p99_ms = e.slots[k].p99_ms;
      pj.slo_ms = j.slo_ms;
      pj.speed = j.service ? e.slots[k].speed : e.slots[k].training_speed;
      pg.jobs.push_back(std::move(pj));
    }
    out.gpus.push_back(std::move(pg));
  }
  out.gpus_used = static_cast<int>(out.gpus.size());
  return out;
}

nlohmann::json PlanToJson(const SharePlan& plan) {
  nlohmann::json gpus = nlohmann::json::array(), un = nlohmann::json::array();
  for (const PlannedGpu& g : plan.gpus) {
    nlohmann::json jobs = nlohmann::json::array();
    for (const PlannedJob& j : g.jobs) {
      nlohmann::json o = {{"name", j.name},
                          {"kind", j.service ? "service" : "training"},
                          {"share", j.share},
                          {"mem_gib", j.mem_gib}};
      if (!j.mig.empty()) o["mig_profile"] = j.mig;
      if (j.service) {
        o["predicted_p99_ms"] = j.p99_ms;
        o["slo_p99_ms"] = j.slo_ms;
        o["meets_slo"] = j.p99_ms <= j.slo_ms;
      } else {
        o["training_speed"] = j.speed;
      }
      jobs.push_back(std::move(o));
    }
    gpus.push_back({{"gpu", g.index}, {"mechanism", MechanismName(g.mechanism)}, {"jobs", jobs}});
  }
  for (const Unschedulable& u : plan.unschedulable) {
    un.push_back({{"name", u.name}, {"outcome", "unschedulable"}, {"reason", u.reason}});
  }
  return {{"policy", plan.policy},      {"gpu", plan.gpu},
          {"gpus_allowed", plan.gpus_allowed}, {"gpus_used", plan.gpus_used},
          {"gpus", gpus},               {"unschedulable", un}};
}

}  // namespace frugal::share
