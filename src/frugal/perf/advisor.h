// The GPU / cloud-instance advisor (Ceer): prices a training job on every
// catalog instance type and instance count, finds the Pareto frontier of
// (hours, cost), and recommends the cheapest configuration meeting a
// deadline, or the fastest within a budget. It also prices the two naive
// rules users follow — the cheapest instance, and the newest GPU — so the
// saving is visible. Each GPU type's per-op times are predicted once. An
// instance that cannot be priced (no on-demand price in the catalog, or a
// GPU the time model cannot predict) is not a configuration: its family is
// listed once in Advice::skipped with the reason.
// Stateless; thread-safe given a thread-safe model.
#ifndef FRUGAL_PERF_ADVISOR_H_
#define FRUGAL_PERF_ADVISOR_H_

#include <map>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/graph/op_graph.h"
#include "frugal/hw/catalog.h"
#include "frugal/perf/op_time_model.h"

namespace frugal {

struct JobSpec {
  double samples = 0;        // per epoch. REQUIRES: > 0
  double epochs = 1;         // REQUIRES: > 0
  int64_t batch_per_gpu = 1;  // REQUIRES: >= 1
};

struct AdviseOptions {
  std::vector<Provider> providers;  // empty: all
  int max_instances = 4;            // instances of one type, 1..max
  std::optional<double> deadline_hours;
  std::optional<double> budget_usd;
  bool fused = false;  // price torch.compile-style kernel fusion (fusion.h)
  // GPUs the caller rules out (a precision they cannot run), with the
  // one-line reason listed under `skipped`.
  std::map<std::string, std::string> skip_gpus;
};

struct ConfigResult {
  std::string instance;
  Provider provider = Provider::kAws;
  std::string gpu;
  int instances = 1;
  int gpus = 1;
  double iteration_ms = 0;
  double hours = 0;
  std::optional<double> cost_usd;  // always set: unpriced instances are skipped
  bool fits = false;
  bool pareto = false;
  std::string links;
  // Set by the plan search (plan/plan_search.h); empty / 0 for plain DDP.
  std::string plan;       // "TP 2 x PP 1 x DP 8, ZeRO-1, no checkpointing"
  std::string precision;  // "amp-bf16"
  double gpu_hours = 0;
  double mfu = 0;
  double memory_bytes = 0;  // per GPU, the fullest
};

// Instances of one family left out for one reason.
struct SkippedFamily {
  Provider provider = Provider::kAws;
  std::string family;                  // the catalog family, else the instance
  std::vector<std::string> instances;  // catalog order
  std::string reason;                  // one line, no trailing period
};

struct Advice {
  std::vector<ConfigResult> configs;  // priced ones only; by cost, then hours
  int recommended = -1;               // index into configs; -1: none
  std::string reason;                 // why (or why nothing meets the goal)
  int cheapest_instance_rule = -1;    // naive rule: cheapest instance type
  int newest_gpu_rule = -1;           // naive rule: newest GPU
  std::vector<SkippedFamily> skipped;  // by provider, family, reason
  std::vector<std::string> notes;
};

// `step` is the training graph at batch_per_gpu, `step_memory_bytes` its
// memory per GPU. InvalidArgument for a bad job; FailedPrecondition when the
// model fits on no catalog GPU.
Result<Advice> Advise(const OpTimeModel& model, const OpGraph& step,
                      int64_t step_memory_bytes, const Catalog& catalog, const JobSpec& job,
                      const AdviseOptions& options);

// Whether `options` asks for provider `p` (empty list: all).
bool ProviderWanted(const AdviseOptions& options, Provider p);

// Instances left out, grouped per (provider, family, reason) in the order
// first met; Sorted() orders the groups by provider, family and reason.
class SkipList {
 public:
  void Add(const InstanceSpec& inst, const std::string& reason);
  std::vector<SkippedFamily> Sorted() &&;

 private:
  std::vector<SkippedFamily> families_;
  std::map<std::tuple<Provider, std::string, std::string>, size_t> index_;
};

// FailedPrecondition "no catalog instance could be priced ...", listing
// every skipped family and its reason.
Status NothingPriced(const std::vector<SkippedFamily>& skipped);

// Sorts `advice->configs` by cost then hours, marks the Pareto frontier,
// picks the recommendation for the deadline / budget (with the reason) and
// the two naive rules. Shared by Advise and the plan search.
void FinishAdvice(const Catalog& catalog, const AdviseOptions& options, Advice* advice);

// Checks the job and options; InvalidArgument naming the flag.
Status CheckAdviseInputs(const JobSpec& job, const AdviseOptions& options);

// Rank of a GPU architecture by release (kepler 0 ... hopper 7); -1 unknown.
int ArchitectureRank(const std::string& architecture);

}  // namespace frugal

#endif  // FRUGAL_PERF_ADVISOR_H_
