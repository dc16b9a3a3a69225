#include "frugal/perf/advisor.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "frugal/perf/iteration.h"

namespace frugal {
namespace {

constexpr const char* kArchitectures[] = {"kepler", "maxwell", "pascal", "volta",
                                          "turing", "ampere",  "ada",    "hopper",
                                          "blackwell"};

void MarkPareto(std::vector<ConfigResult>& configs) {
  for (ConfigResult& c : configs) {
    if (!c.fits || !c.cost_usd) continue;
    c.pareto = true;
    for (const ConfigResult& d : configs) {
      if (&d == &c || !d.fits || !d.cost_usd) continue;
      const bool no_worse = d.hours <= c.hours && *d.cost_usd <= *c.cost_usd;
      const bool better = d.hours < c.hours || *d.cost_usd < *c.cost_usd;
      if (no_worse && better) {
        c.pareto = false;
        break;
      }
    }
  }
}

// Index of the best config satisfying `ok` under `less`; -1 if none.
template <typename Ok, typename Less>
int Best(const std::vector<ConfigResult>& configs, Ok ok, Less less) {
  int best = -1;
  for (size_t i = 0; i < configs.size(); ++i) {
    const ConfigResult& c = configs[i];
    if (!c.fits || !c.cost_usd || !ok(c)) continue;
    if (best < 0 || less(c, configs[best])) best = static_cast<int>(i);
  }
  return best;
}

bool Cheaper(const ConfigResult& a, const ConfigResult& b) {
  return *a.cost_usd != *b.cost_usd ? *a.cost_usd < *b.cost_usd : a.hours < b.hours;
}
bool Faster(const ConfigResult& a, const ConfigResult& b) {
  return a.hours != b.hours ? a.hours < b.hours : *a.cost_usd < *b.cost_usd;
}

std::string Describe(const ConfigResult& c) {
  return fmt::format("{} x {} ({} x {}{}{}): {:.2f} h, ${:.2f}", c.instances, c.instance, c.gpus,
                     c.gpu, c.precision.empty() ? "" : ", " + c.precision,
                     c.plan.empty() ? "" : ", " + c.plan, c.hours, c.cost_usd.value_or(0));
}

void Recommend(const AdviseOptions& o, Advice& a) {
  const auto& cs = a.configs;
  auto in_deadline = [&](const ConfigResult& c) {
    return !o.deadline_hours || c.hours <= *o.deadline_hours;
  };
  auto in_budget = [&](const ConfigResult& c) {
    return !o.budget_usd || *c.cost_usd <= *o.budget_usd;
  };
  auto both = [&](const ConfigResult& c) { return in_deadline(c) && in_budget(c); };
  if (o.deadline_hours) {
    a.recommended = Best(cs, both, Cheaper);
    if (a.recommended >= 0) {
      a.reason = fmt::format("cheapest configuration finishing within {:.2f} h{}",
                             *o.deadline_hours,
                             o.budget_usd ? fmt::format(" and ${:.2f}", *o.budget_usd) : "");
    }
  } else if (o.budget_usd) {
    a.recommended = Best(cs, both, Faster);
    if (a.recommended >= 0) {
      a.reason = fmt::format("fastest configuration within ${:.2f}", *o.budget_usd);
    }
  } else {
    a.recommended = Best(cs, both, Cheaper);
    a.reason = "cheapest configuration (no deadline or budget given)";
  }
  if (a.recommended < 0) {
    const int fastest = Best(cs, [](const ConfigResult&) { return true; }, Faster);
    const int cheapest = Best(cs, [](const ConfigResult&) { return true; }, Cheaper);
    a.reason = "no configuration meets";
    if (o.deadline_hours) a.reason += fmt::format(" the deadline of {:.3g} h", *o.deadline_hours);
    if (o.deadline_hours && o.budget_usd) a.reason += " and";
    if (o.budget_usd) a.reason += fmt::format(" the budget of ${:.6g}", *o.budget_usd);
    if (fastest >= 0) a.reason += "; fastest: " + Describe(cs[fastest]);
    if (cheapest >= 0) a.reason += "; cheapest: " + Describe(cs[cheapest]);
  }
}

}  // namespace

int ArchitectureRank(const std::string& architecture) {
  for (int i = 0; i < static_cast<int>(std::size(kArchitectures)); ++i) {
    if (architecture == kArchitectures[i]) return i;
  }
  return -1;
}

Result<Advice> Advise(const OpTimeModel& model, const OpGraph& step,
                      int64_t step_memory_bytes, const Catalog& catalog, const JobSpec& job,
                      const AdviseOptions& options) {
  FRUGAL_RETURN_IF_ERROR(CheckAdviseInputs(job, options));
  Advice advice;
  std::map<std::string, std::vector<OpTimePrediction>> op_times;  // by GPU
  std::map<std::string, std::string> unpriceable;                 // GPU -> why
  SkipList skipped;
  auto skip = [&](const InstanceSpec& inst, const std::string& reason) {
    skipped.Add(inst, reason);
  };
  for (const InstanceSpec& inst : catalog.instances()) {
    if (!ProviderWanted(options, inst.provider)) continue;
    const GpuSpec* gpu = catalog.FindGpu(inst.gpu);
    if (gpu == nullptr) {
      skip(inst, "GPU " + inst.gpu + " is not in the catalog");
      continue;
    }
    if (auto r = options.skip_gpus.find(gpu->name); r != options.skip_gpus.end()) {
      skip(inst, r->second);
      continue;
    }
    if (!inst.price_usd_per_hour) {
      skip(inst, "no on-demand price in the catalog");
      continue;
    }
    if (auto u = unpriceable.find(gpu->name); u != unpriceable.end()) {
      skip(inst, u->second);
      continue;
    }
    auto it = op_times.find(gpu->name);
    if (it == op_times.end()) {
      Result<std::vector<OpTimePrediction>> t = PredictOps(model, step, *gpu, options.fused);
      if (!t.ok()) {
        const std::string why = gpu->name + " cannot be timed: " + t.status().message();
        unpriceable[gpu->name] = why;
        skip(inst, why);
        continue;
      }
      it = op_times.emplace(gpu->name, std::move(t).value()).first;
    }
    for (int m = 1; m <= options.max_instances; ++m) {
      IterationOptions io;
      io.gpus = inst.gpu_count * m;
      io.links = LinksFor(*gpu, &inst, m);
      FRUGAL_ASSIGN_OR_RETURN(IterationPrediction p,
                              IterationFromOpTimes(step, it->second, step_memory_bytes, *gpu, io));
      ConfigResult c;
      c.instance = inst.name;
      c.provider = inst.provider;
      c.gpu = gpu->name;
      c.instances = m;
      c.gpus = io.gpus;
      c.iteration_ms = p.iteration_ms;
      const double iterations =
          std::ceil(job.samples * job.epochs / (static_cast<double>(io.gpus) * job.batch_per_gpu));
      c.hours = iterations * p.iteration_ms / 3.6e6;
      c.cost_usd = c.hours * *inst.price_usd_per_hour * m;
      c.fits = p.fits;
      c.links = io.gpus > 1 ? io.links.description : "";
      advice.configs.push_back(std::move(c));
    }
  }
  advice.skipped = std::move(skipped).Sorted();
  if (advice.configs.empty()) return NothingPriced(advice.skipped);
  if (std::none_of(advice.configs.begin(), advice.configs.end(),
                   [](const ConfigResult& c) { return c.fits; })) {
    return FailedPrecondition(fmt::format(
        "the model needs {:.1f} GiB per GPU at batch {} and fits on no catalog GPU; "
        "lower --batch or split it across GPUs with `frugal place`",
        static_cast<double>(step_memory_bytes) / (1024.0 * 1024 * 1024), job.batch_per_gpu));
  }
  FinishAdvice(catalog, options, &advice);
  return advice;
}

bool ProviderWanted(const AdviseOptions& o, Provider p) {
  return o.providers.empty() ||
         std::find(o.providers.begin(), o.providers.end(), p) != o.providers.end();
}

void SkipList::Add(const InstanceSpec& inst, const std::string& reason) {
  const std::string family = inst.family.empty() ? inst.name : inst.family;
  auto [it, added] =
      index_.emplace(std::make_tuple(inst.provider, family, reason), families_.size());
  if (added) families_.push_back({inst.provider, family, {}, reason});
  families_[it->second].instances.push_back(inst.name);
}

std::vector<SkippedFamily> SkipList::Sorted() && {
  std::sort(families_.begin(), families_.end(),
            [](const SkippedFamily& a, const SkippedFamily& b) {
              return std::tie(a.provider, a.family, a.reason) <
                     std::tie(b.provider, b.family, b.reason);
            });
  return std::move(families_);
}

Status NothingPriced(const std::vector<SkippedFamily>& skipped) {
  std::string why;
  for (const SkippedFamily& f : skipped) {
    why += fmt::format("; {} {}: {}", ProviderName(f.provider), f.family, f.reason);
  }
  return FailedPrecondition("no catalog instance could be priced for the chosen providers" +
                            why);
}

Status CheckAdviseInputs(const JobSpec& job, const AdviseOptions& options) {
  if (!(job.samples > 0) || !std::isfinite(job.samples)) {
    return InvalidArgument("--samples must be > 0");
  }
  if (!(job.epochs > 0) || !std::isfinite(job.epochs)) return InvalidArgument("--epochs must be > 0");
  if (job.batch_per_gpu < 1) return InvalidArgument("--batch must be >= 1");
  if (options.max_instances < 1) return InvalidArgument("--max-instances must be >= 1");
  if (options.deadline_hours && !(*options.deadline_hours > 0)) {
    return InvalidArgument("--deadline must be > 0 hours");
  }
  if (options.budget_usd && !(*options.budget_usd > 0)) {
    return InvalidArgument("--budget must be > 0 USD");
  }
  return Status::Ok();
}

void FinishAdvice(const Catalog& catalog, const AdviseOptions& options, Advice* out) {
  Advice& advice = *out;
  std::stable_sort(advice.configs.begin(), advice.configs.end(),
                   [](const ConfigResult& a, const ConfigResult& b) {
                     const double ca = a.cost_usd.value_or(INFINITY);
                     const double cb = b.cost_usd.value_or(INFINITY);
                     return ca != cb ? ca < cb : a.hours < b.hours;
                   });
  MarkPareto(advice.configs);
  Recommend(options, advice);
  auto single = [](const ConfigResult& c) { return c.instances == 1; };
  advice.cheapest_instance_rule = Best(
      advice.configs, single, [&](const ConfigResult& a, const ConfigResult& b) {
        // Cheapest hourly price: cost per hour of the whole instance.
        return *a.cost_usd / a.hours < *b.cost_usd / b.hours;
      });
  advice.newest_gpu_rule = Best(
      advice.configs, single, [&](const ConfigResult& a, const ConfigResult& b) {
        const int ra = ArchitectureRank(catalog.FindGpu(a.gpu)->architecture);
        const int rb = ArchitectureRank(catalog.FindGpu(b.gpu)->architecture);
        if (ra != rb) return ra > rb;
        return Faster(a, b);
      });
}

}  // namespace frugal
