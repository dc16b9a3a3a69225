// Sharing policies: which jobs share which GPU, with which mechanism and
// shares. The Planner prices a GPU's configuration (memory fit, each
// service's predicted p99 at its peak rate, each training job's speed)
// from the per-op step costs and a SlowdownModel; policies place arriving
// jobs and react to departures on a ClusterState. One registry table
// (sharing_registry.cc); one file per policy in sharing/.
// A Planner is immutable after construction except for its probe cache;
// one per thread.
#ifndef FRUGAL_SHARE_SHARING_POLICY_H_
#define FRUGAL_SHARE_SHARING_POLICY_H_

#include <map>
#include <memory>
#include <utility>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/base/registry.h"
#include "frugal/base/status.h"
#include "frugal/hw/catalog.h"
#include "frugal/share/batch_latency.h"
#include "frugal/share/mechanism.h"
#include "frugal/share/slowdown.h"
#include "frugal/share/workload.h"

namespace frugal::share {

struct Slot {
  int job = -1;      // index: services first, then training jobs
  double share = 1;  // MPS SM share; 1 otherwise
  int mig = -1;      // MIG profile index (Planner::mig_profiles()), or -1
  int mig_pos = -1;  // mig-static: the slice's place in the fixed layout
};

struct GpuState {
  Mechanism mechanism = Mechanism::kExclusive;
  std::vector<Slot> slots;
  bool empty() const { return slots.empty(); }
};

struct ClusterState {
  int max_gpus = 0;  // 0: as many as needed
  std::vector<GpuState> gpus;
  std::vector<int> where;  // job -> GPU index, -1 when not placed
  int64_t migrations = 0;
  std::vector<int> moved;  // jobs moved since the caller last cleared it
  int in_use() const;
  // An empty GPU (reused first, else a new one); -1 at max_gpus.
  int FreeGpu();
  void Remove(int job);
  void Put(int gpu, GpuState state);  // replaces the GPU's state and `where`
};

struct PlannerOptions {
  double min_training_speed = 0.8;  // gshare's floor on co-located / alone speed
  double slo_headroom = 0.9;        // plan services to p99 <= headroom * SLO
  int max_jobs_per_gpu = 4;
  int probe_requests = 2000;  // requests in a p99 probe simulation
  uint64_t seed = 1;
};

// What the Planner knows of a job on the cluster's GPU.
struct JobProfile {
  bool service = false;
  std::string name;
  std::string family;
  // Services: one cost per allowed batch size.
  std::vector<int64_t> batches;
  std::vector<StepCost> batch_cost;
  double plan_rps = 0;  // the peak rate the planner provisions for
  double slo_ms = 0;
  double max_queue_delay_ms = 0;
  // Training: one iteration.
  StepCost iter;
  double gpu_util = 1;
  int64_t batch = 1;
  double mem_bytes = 0;  // the most it holds
};

// The priced configuration of one GPU.
struct SlotEval {
  double speed = 1;   // GPU-work speed vs alone on the whole GPU
  double p99_ms = 0;  // services: predicted p99 at plan_rps
  double training_speed = 1;  // training: whole-iteration speed
  std::vector<double> batch_ms;  // services: co-located batch latencies
  bool ok = true;
  std::string why;  // when !ok
};
struct GpuEval {
  bool ok = true;
  std::string why;
  std::vector<SlotEval> slots;
};

class Planner {
 public:
  static Result<Planner> Create(const Workload& w, const GpuSpec& gpu, CostCache* costs,
                                const SlowdownModel& model, PlannerOptions options = {});

  const GpuSpec& gpu() const { return *gpu_; }
  const Workload& workload() const { return *w_; }
  const PlannerOptions& options() const { return o_; }
  const std::vector<MigProfile>& mig_profiles() const { return mig_; }
  // Whether MPS can cap a client's SMs on this GPU (execution resource
  // provisioning: Volta and newer NVIDIA GPUs).
  bool mps_sm_shares() const;
  const JobProfile& job(int j) const { return jobs_[j]; }
  int jobs() const { return static_cast<int>(jobs_.size()); }
  double gpu_mem_bytes() const;
  double slot_mem_bytes(const GpuState& g, const Slot& s) const;

  // Duty of a job when alone on the whole GPU: services at `rps`.
  double Duty(int job, double rps) const;
  // Duty of job at its plan rate.
  double PlanDuty(int job) const { return Duty(job, jobs_[job].plan_rps); }

  // Prices `g`. `rps` per job (services; nullptr: plan rates). `probe`:
  // which services get the p99 probe: kProbeAll, kProbeNone (speeds and
  // batch latencies only) or one slot index.
  static constexpr int kProbeAll = -1;
  static constexpr int kProbeNone = -2;
  GpuEval Evaluate(const GpuState& g, const std::vector<double>* rps = nullptr,
                   int probe = kProbeAll) const;

  // Predicted p99 of a service with these batch latencies at its plan rate.
  double ProbeP99(int job, const std::vector<double>& batch_ms) const;

  // Why the job cannot run even alone on a whole GPU; empty when it can.
  std::string AloneProblem(int job) const;

 private:
  const Workload* w_ = nullptr;
  const GpuSpec* gpu_ = nullptr;
  const SlowdownModel* model_ = nullptr;
  PlannerOptions o_;
  std::vector<JobProfile> jobs_;
  std::vector<MigProfile> mig_;
  std::vector<std::vector<double>> probe_arrivals_;  // per service
  // (job, latencies rounded to 0.5 %) -> p99: the probe is deterministic in
  // its key, so caching changes no result.
  mutable std::map<std::pair<int, std::vector<int64_t>>, double> probe_cache_;
};

struct PlaceResult {
  bool placed = false;
  std::string reason;  // when not placed
};

class SharingPolicy {
 public:
  virtual ~SharingPolicy() = default;
  virtual const char* name() const = 0;
  // Places `job`; may re-plan other GPUs (count moved jobs in migrations).
  virtual PlaceResult Place(int job, ClusterState* c, const Planner& p) = 0;
  // After `job` left (already removed from `c`).
  virtual void AfterDeparture(int /*job*/, ClusterState* /*c*/, const Planner& /*p*/) {}
  // Whether placements honour PlannerOptions' targets (min_training_speed,
  // slo_headroom); policies that place by request alone do not.
  virtual bool uses_targets() const { return false; }
  // Whether jobs it places can be time-sliced or share SMs, so that the
  // slowdown model prices them; MIG slices and whole GPUs do not interfere.
  virtual bool co_locates() const { return true; }
  // Why the policy cannot run on the planner's GPU (its mechanism does not
  // exist there); "" when it can.
  virtual std::string CannotRun(const Planner& /*p*/) const { return ""; }
};

using SharingPolicyFactory = std::unique_ptr<SharingPolicy> (*)();

std::unique_ptr<SharingPolicy> NewExclusivePolicy();
std::unique_ptr<SharingPolicy> NewGandivaPackPolicy();
std::unique_ptr<SharingPolicy> NewMpsObliviousPolicy();
std::unique_ptr<SharingPolicy> NewMigStaticPolicy();
std::unique_ptr<SharingPolicy> NewGshareSharingPolicy();

std::span<const RegistryRow<SharingPolicyFactory>> SharingPolicies();
Result<std::unique_ptr<SharingPolicy>> NewSharingPolicy(std::string_view name);
// "all" or "a,b": the named policies, in table order for "all".
Result<std::vector<std::string>> ParseSharingPolicyList(std::string_view spec);

// Shared by policies: the smallest MPS share (5 % steps) at which service
// slot `i` of `g` meets its target, given the other slots; 0 when none.
double MinServiceShare(const Planner& p, GpuState g, size_t i);

// gshare's configuration search for the jobs of one GPU: the best feasible
// mechanism and shares, or nullopt-like (ok = false) with the reason.
struct Config {
  bool ok = false;
  GpuState state;
  double load = 0;  // share of the GPU the jobs need (higher: tighter)
  std::string why;
};
Config BestConfig(const Planner& p, const std::vector<int>& jobs);

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_SHARING_POLICY_H_
