// A static plan: every job of a workload at once on at most N GPUs, placed
// by a sharing policy (services first, heaviest first, then training jobs
// in arrival order). Per GPU: jobs, mechanism, shares / MIG slices,
// predicted p99 (services, at peak rate) and training speed. A job that
// cannot be placed is an `unschedulable` outcome with its reason, not an
// error.
#ifndef FRUGAL_SHARE_PLAN_H_
#define FRUGAL_SHARE_PLAN_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "frugal/share/sharing_policy.h"

namespace frugal::share {

struct PlannedJob {
  std::string name;
  bool service = false;
  double share = 1;
  std::string mig;  // profile name under MIG
  double mem_gib = 0;
  double p99_ms = 0, slo_ms = 0;  // services
  double speed = 1;               // training: whole-iteration speed vs alone
};
struct PlannedGpu {
  int index = 0;
  Mechanism mechanism = Mechanism::kExclusive;
  std::vector<PlannedJob> jobs;
};
struct Unschedulable {
  std::string name;
  std::string reason;
};
struct SharePlan {
  std::string policy;
  std::string gpu;
  int gpus_allowed = 0;
  int gpus_used = 0;
  std::vector<PlannedGpu> gpus;
  std::vector<Unschedulable> unschedulable;
};

SharePlan PlanWorkload(const Planner& p, SharingPolicy& policy, int gpus);
nlohmann::json PlanToJson(const SharePlan& plan);

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_PLAN_H_
