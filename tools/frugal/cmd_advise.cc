// `frugal advise`: which instance type and how many, for a training job's
// deadline or budget, against the naive rules.
#include <unistd.h>

#include <atomic>
#include <future>
#include <thread>

#include <cstdio>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "cli_util.h"
#include "frugal/perf/advisor.h"
#include "frugal/plan/plan_search.h"
#include "model_args.h"
#include "verbs.h"

namespace frugal::cli {
namespace {

struct AdviseArgs {
  ModelArgs model;
  double samples = 0;
  double tokens = 0;
  int64_t global_batch = 0;  // 0: none
  double epochs = 1;
  double deadline = 0;  // hours; 0 = none
  double budget = 0;    // USD; 0 = none
  std::string providers = "aws,gcp,azure";
  std::vector<std::string> instance_types;  // --instance, repeatable
  int max_instances = 4;
  int top = 15;
};

nlohmann::json ConfigJson(const ConfigResult& c, int index, const Advice& a) {
  nlohmann::json j{{"instance", c.instance},
                   {"provider", ProviderName(c.provider)},
                   {"gpu", c.gpu},
                   {"instances", c.instances},
                   {"gpus", c.gpus},
                   {"iteration_ms", c.iteration_ms},
                   {"hours", c.hours},
                   {"cost_usd", c.cost_usd ? nlohmann::json(*c.cost_usd) : nlohmann::json()},
                   {"fits", c.fits},
                   {"pareto", c.pareto},
                   {"recommended", index == a.recommended}};
  if (!c.links.empty()) j["links"] = c.links;
  j["plan"] = c.plan;
  j["precision"] = c.precision;
  j["gpu_hours"] = c.gpu_hours;
  j["mfu"] = c.mfu;
  j["memory_bytes"] = c.memory_bytes;
  return j;
}

std::string Row(const ConfigResult& c, const char* mark) {
  return fmt::format("{:<2}{:<26} {:>2} {:>3} x {:<16} {:>10.2f} {:>11} {:>10.0f} {:>5.1f}% {:<6} {} {}\n",
                     mark, c.instance, c.instances, c.gpus, c.gpu, c.hours,
                     c.cost_usd ? fmt::format("{:.2f}", *c.cost_usd) : "no price", c.gpu_hours,
                     100 * c.mfu, c.pareto ? "pareto" : "", c.precision, c.plan);
}

void PrintText(const AdviseArgs& a, const Advice& adv) {
  std::string s = fmt::format(
      "{:<2}{:<26} {:>2} {:>9} {:<12} {:>10} {:>11} {:>10} {:>6} {:<6} {}\n", "", "INSTANCE",
      "N", "GPUS", "", "HOURS", "COST_USD", "GPU_HOURS", "MFU", "", "PRECISION, PLAN");
  int shown = 0;
  for (size_t i = 0; i < adv.configs.size(); ++i) {
    const ConfigResult& c = adv.configs[i];
    const bool rec = static_cast<int>(i) == adv.recommended;
    if (!rec && !c.pareto && shown >= a.top) continue;
    s += Row(c, rec ? "*" : "");
    ++shown;
  }
  s += fmt::format("({} configurations priced; showing the Pareto frontier, the "
                   "recommendation (*) and the cheapest)\n\n",
                   adv.configs.size());
  if (adv.recommended >= 0) {
    const ConfigResult& r = adv.configs[adv.recommended];
    s += fmt::format("recommended: {} x {} ({} x {}), {}, {}: {:.2f} h, ${:.2f}, {:.0f} GPU-hours, "
                     "MFU {:.1f}% — {}\n",
                     r.instances, r.instance, r.gpus, r.gpu, r.precision, r.plan, r.hours,
                     *r.cost_usd, r.gpu_hours, 100 * r.mfu, adv.reason);
    auto compare = [&](const char* rule, int idx) {
      if (idx < 0) return;
      const ConfigResult& c = adv.configs[idx];
      auto pct = [](double ours, double theirs) {
        return fmt::format("{:+.0f}%", 100 * (ours / theirs - 1));
      };
      s += fmt::format("  vs {:<18} {} ({} x {}): {:.2f} h, ${:.2f}; recommendation: cost {}, "
                       "time {}{}\n",
                       rule, c.instance, c.gpus, c.gpu, c.hours, *c.cost_usd,
                       pct(*r.cost_usd, *c.cost_usd), pct(r.hours, c.hours),
                       a.deadline > 0 && c.hours > a.deadline ? " (the rule misses the deadline)"
                       : a.budget > 0 && *c.cost_usd > a.budget ? " (the rule breaks the budget)"
                                                                : "");
    };
    compare("cheapest instance:", adv.cheapest_instance_rule);
    compare("newest GPU:", adv.newest_gpu_rule);
  }
  for (const SkippedFamily& f : adv.skipped) {
    s += fmt::format("skipped: {} {} ({} instance type{}): {}\n", ProviderName(f.provider),
                     f.family, f.instances.size(), f.instances.size() == 1 ? "" : "s", f.reason);
  }
  for (const std::string& n : adv.notes) s += "note: " + n + "\n";
  std::fputs(s.c_str(), stdout);
}

// A progress line on stderr when it is a terminal and the search is slow.
class Progress {
 public:
  void operator()(size_t done, size_t total) {
    if (!tty_) return;
    std::fprintf(stderr, "\rpricing plans: %zu of %zu instance types", done, total);
    if (done == total) std::fputs("\n", stderr);
  }

 private:
  bool tty_ = isatty(fileno(stderr)) != 0;
};

int RunAdvise(const AdviseArgs& a) {
  AdviseOptions opts;
  opts.fused = a.model.fused;
  std::stringstream ss(a.providers);
  std::string p;
  while (std::getline(ss, p, ',')) {
    auto prov = ParseProvider(p);
    if (!prov) return ReportError(InvalidArgument("unknown provider '" + p + "' (aws, gcp, azure)"));
    opts.providers.push_back(*prov);
  }
  if (a.deadline > 0) opts.deadline_hours = a.deadline;
  if (a.budget > 0) opts.budget_usd = a.budget;
  opts.max_instances = a.max_instances;
  if ((a.samples > 0) == (a.tokens > 0)) {
    return ReportUsage("give --samples N or --tokens N (one of them)");
  }
  // --precision takes a comma list here: the precisions the search may use.
  std::vector<std::string> precision_names;
  {
    std::stringstream ps(a.model.precision);
    std::string item;
    while (std::getline(ps, item, ',')) precision_names.push_back(item);
  }
  ModelArgs first = a.model;
  if (!precision_names.empty()) first.precision = precision_names.front();
  // The op-time model loads while the step graphs are built.
  auto perf = std::async(std::launch::async,
                         [spec = first.perf_model] { return OpenOpTimeModel(spec); });
  Result<LoadedModel> m = LoadedModel{};
  {
    Result<LoadedStep> step = LoadStep(first, {});
    if (!step.ok()) return ReportError(step.status());
    m->s = std::move(step).value();
    Result<Catalog> catalog =
        LoadCatalog(first.catalog.empty() ? DefaultCatalogPath() : first.catalog);
    if (!catalog.ok()) return ReportError(catalog.status());
    m->catalog = std::move(catalog).value();
  }
  if (m->s.measured) {
    return ReportError(InvalidArgument(
        a.model.model + ": its op times were measured on one GPU and its profiled ops cannot "
                        "be re-priced on others; advise compares GPUs (use predict)"));
  }
  if (m->s.batch <= 0) {
    return ReportError(InvalidArgument(a.model.model + ": the graph does not record its "
                                                       "batch, so steps per epoch are unknown"));
  }
  if (!m->s.training) {
    return ReportError(InvalidArgument("advise prices training jobs; --infer cannot apply "
                                       "(use predict --infer)"));
  }
  const int64_t seq = m->s.forward.seq_len;
  if (a.tokens > 0 && seq <= 0) {
    return ReportError(InvalidArgument(a.model.model + ": --tokens needs a sequence model "
                                                       "(an HF config); give --samples"));
  }
  if (a.global_batch > 0 && a.global_batch % m->s.batch != 0) {
    return ReportError(InvalidArgument(fmt::format(
        "--global-batch {} is not a multiple of --batch {} (the micro-batch per GPU)",
        a.global_batch, m->s.batch)));
  }
  PlanSearchJob job;
  job.samples = (a.tokens > 0 ? a.tokens / static_cast<double>(seq) : a.samples) * a.epochs;
  if (a.global_batch > 0 && static_cast<double>(a.global_batch) > job.samples) {
    return ReportError(InvalidArgument(fmt::format(
        "--global-batch {} is more samples than the whole job trains on ({:.0f}: {} x --epochs {}); "
        "one optimizer step cannot take more",
        a.global_batch, job.samples, a.tokens > 0 ? "--tokens / sequence length" : "--samples", a.epochs)));
  }
  if (a.global_batch > 0) job.global_batch = a.global_batch;
  PlanSearchOptions po;
  po.advise = opts;
  for (const std::string& t : a.instance_types) {
    Result<const InstanceSpec*> inst = m->catalog.LookupInstance(t);
    if (!inst.ok()) return ReportError(inst.status().WithPrefix("--instance"));
    po.instance_types.push_back((*inst)->name);
  }
  if (precision_names.empty()) precision_names.push_back(PrecisionName(m->s.precision));
  std::vector<std::string> notes = m->s.notes;
  PrintNotes(m->s.notes);
  for (const std::string& name : precision_names) {
    Precision prec;
    if (!ParsePrecision(name, &prec)) {
      return ReportUsage("unknown --precision '" + name + "' (expected a comma list of " +
                         PrecisionList() + ")");
    }
    po.precisions.push_back({name, [prec, &notes](const GpuSpec& g) -> Result<double> {
                               std::string note;
                               FRUGAL_RETURN_IF_ERROR(CheckPrecisionSupported(g, prec, &note));
                               if (!note.empty() &&
                                   std::find(notes.begin(), notes.end(), note) == notes.end()) {
                                 notes.push_back(note);
                               }
                               // No peak: priced if the model can time it, MFU left out.
                               return PeakTflops(g, prec).value_or(0);
                             }});
  }
  Progress progress;
  po.progress = std::ref(progress);
  // Every (precision, TP) step, built on all cores before the search.
  using Built = Result<std::shared_ptr<const CandidateStep>>;
  auto build = [&](size_t prec, int tp) -> Built {
    auto c = std::make_shared<CandidateStep>();
    LoadedStep s;
    if (tp == 1 && prec == 0) {
      s = m->s;
    } else {
      StepRequest req;
      req.tensor_parallel = tp;
      ModelArgs args = a.model;
      args.precision = precision_names[prec];
      FRUGAL_ASSIGN_OR_RETURN(s, LoadStep(args, req));
    }
    c->step = std::move(s.step);
    c->memory = std::move(s.memory);
    c->all_reduces = std::move(s.tp_all_reduces);
    c->model_forward_flops = s.model_forward_flops;
    c->micro_batch = s.batch;
    c->seq_len = seq;
    return std::shared_ptr<const CandidateStep>(std::move(c));
  };
  std::vector<std::pair<size_t, int>> variants;
  for (size_t i = 0; i < precision_names.size(); ++i) {
    for (int tp : po.tp) variants.emplace_back(i, tp);
  }
  std::vector<Built> built(variants.size(), Built(Internal("not built")));
  {
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t k = next++; k < variants.size(); k = next++) {
        built[k] = build(variants[k].first, variants[k].second);
      }
    };
    const unsigned threads = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
  }
  StepSource source = [&](size_t prec, int tp) -> Built {
    for (size_t k = 0; k < variants.size(); ++k) {
      if (variants[k] == std::make_pair(prec, tp)) return built[k];
    }
    return build(prec, tp);
  };
  {
    Result<std::unique_ptr<OpTimeModel>> model = perf.get();
    if (!model.ok()) return ReportError(model.status());
    m->perf = std::move(model).value();
  }
  Result<PlanAdvice> plans = SearchPlans(*m->perf, source, m->catalog, job, po);
  if (!plans.ok()) return ReportError(plans.status().WithPrefix(a.model.model));
  Advice* adv = &plans->advice;
  adv->notes.insert(adv->notes.begin(), notes.begin(), notes.end());
  if (a.model.json) {
    nlohmann::json configs = nlohmann::json::array();
    for (size_t i = 0; i < adv->configs.size(); ++i) {
      configs.push_back(ConfigJson(adv->configs[i], static_cast<int>(i), *adv));
    }
    nlohmann::json skipped = nlohmann::json::array();
    for (const SkippedFamily& f : adv->skipped) {
      skipped.push_back({{"provider", ProviderName(f.provider)},
                         {"family", f.family},
                         {"instances", f.instances},
                         {"reason", f.reason}});
    }
    auto pick = [&](int i) {
      return i < 0 ? nlohmann::json() : ConfigJson(adv->configs[i], i, *adv);
    };
    PrintJson({{"model", a.model.model},
               {"batch_per_gpu", m->s.batch},
               {"global_batch", a.global_batch > 0 ? nlohmann::json(a.global_batch)
                                                   : nlohmann::json()},
               {"seq_len", seq},
               {"mode", "training"},
               {"samples", job.samples / a.epochs},
               {"tokens", a.tokens > 0 ? nlohmann::json(a.tokens) : nlohmann::json()},
               {"precision", precision_names.front()},
               {"precisions", precision_names},
               {"epochs", a.epochs},
               {"perf_model", m->perf->name()},
               {"plans_priced", plans->plans_priced},
               {"configs", std::move(configs)},
               {"recommended", pick(adv->recommended)},
               {"closest", plans->closest ? ConfigJson(*plans->closest, -2, *adv)
                                          : nlohmann::json()},
               {"reason", adv->reason},
               {"deadline_h", a.deadline > 0 ? nlohmann::json(a.deadline) : nlohmann::json()},
               {"budget_usd", a.budget > 0 ? nlohmann::json(a.budget) : nlohmann::json()},
               {"cheapest_instance_rule", pick(adv->cheapest_instance_rule)},
               {"newest_gpu_rule", pick(adv->newest_gpu_rule)},
               {"skipped", std::move(skipped)},
               {"notes", adv->notes}});
  } else if (!adv->configs.empty()) {
    PrintText(a, *adv);
  }
  if (adv->recommended < 0) {
    return ReportError(FailedPrecondition(adv->reason));
  }
  return 0;
}

}  // namespace

void SetupAdvise(CLI::App& sub, int* exit_code) {
  auto a = std::make_shared<AdviseArgs>();
  AddModelArgs(&sub, &a->model);
  sub.add_option("--samples", a->samples, "Training samples per epoch")
      ->check(NumberIn(0, 1e15, true));
  sub.add_option("--tokens", a->tokens,
                 "Training tokens per epoch (LLM pre-training): samples = tokens / --seq")
      ->check(NumberIn(0, 1e18, true));
  sub.add_option("--global-batch", a->global_batch,
                 "Samples per optimizer step over all GPUs (the recipe's batch); --batch is "
                 "then the micro-batch per GPU")
      ->check(IntIn(1, int64_t{1} << 40));
  sub.add_option("--epochs", a->epochs, "Epochs")
      ->capture_default_str()
      ->check(NumberIn(0, 1e6, true));
  sub.add_option("--deadline", a->deadline, "Finish within HOURS: cheapest that does")
      ->check(NumberIn(0, 1e6, true));
  sub.add_option("--budget", a->budget, "Spend at most USD: fastest that does")
      ->check(NumberIn(0, 1e12, true));
  sub.add_option("--providers", a->providers, "Comma list of aws, gcp, azure")
      ->capture_default_str();
  sub.add_option("--instance", a->instance_types,
                 "Only this catalog instance type (repeatable; default: every type)");
  sub.add_option("--max-instances", a->max_instances, "Instances of one type, 1..N")
      ->capture_default_str()
      ->check(IntIn(1, 1024));
  sub.add_option("--top", a->top, "Rows besides the Pareto frontier")
      ->capture_default_str()
      ->check(IntIn(0, 1000000));
  sub.callback([a, exit_code] { *exit_code = RunAdvise(*a); });
}

}  // namespace frugal::cli
