// `frugal advise`: which instance type and how many, for a training job's
// deadline or budget, against the naive rules.
#include <cstdio>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "cli_util.h"
#include "frugal/perf/advisor.h"
#include "model_args.h"
#include "verbs.h"

namespace frugal::cli {
namespace {

struct AdviseArgs {
  ModelArgs model;
  double samples = 0;
  double epochs = 1;
  double deadline = 0;  // hours; 0 = none
  double budget = 0;    // USD; 0 = none
  std::string providers = "aws,gcp,azure";
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
  return j;
}

std::string Row(const ConfigResult& c, const char* mark) {
  return fmt::format("{:<2}{:<26} {:>2} {:>3} x {:<16} {:>10.2f} {:>11} {:>6} {}\n", mark,
                     c.instance, c.instances, c.gpus, c.gpu, c.hours,
                     c.cost_usd ? fmt::format("{:.2f}", *c.cost_usd) : "no price",
                     c.fits ? "yes" : "NO", c.pareto ? "pareto" : "");
}

void PrintText(const AdviseArgs& a, const Advice& adv) {
  std::string s = fmt::format(
      "{:<2}{:<26} {:>2} {:>9} {:<12} {:>10} {:>11} {:>6}\n", "", "INSTANCE", "N", "GPUS", "",
      "HOURS", "COST_USD", "FITS");
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
    s += fmt::format("recommended: {} x {} ({} x {}), {:.2f} h, ${:.2f} — {}\n", r.instances,
                     r.instance, r.gpus, r.gpu, r.hours, *r.cost_usd, adv.reason);
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
  Result<LoadedModel> m = LoadModel(a.model);
  if (!m.ok()) return ReportError(m.status());
  if (m->s.measured) {
    return ReportError(InvalidArgument(
        a.model.model + ": its op times were measured on one GPU and its profiled ops cannot "
                        "be re-priced on others; advise compares GPUs (use predict)"));
  }
  if (m->s.batch <= 0) {
    return ReportError(InvalidArgument(a.model.model + ": the graph does not record its "
                                                       "batch, so steps per epoch are unknown"));
  }
  // GPUs that cannot run the precision are skipped; the others' notes kept.
  std::vector<std::string> notes = m->s.notes;
  for (const GpuSpec& g : m->catalog.gpus()) {
    std::string note;
    if (Status st = CheckPrecisionSupported(g, m->s.precision, &note); !st.ok()) {
      opts.skip_gpus[g.name] = st.message();
    } else if (!note.empty()) {
      notes.push_back(note);
    }
  }
  PrintNotes(m->s.notes);
  JobSpec job;
  job.samples = a.samples;
  job.epochs = a.epochs;
  job.batch_per_gpu = m->s.batch;
  Result<Advice> adv =
      Advise(*m->perf, m->s.step, m->s.memory.total_bytes, m->catalog, job, opts);
  if (!adv.ok()) return ReportError(adv.status().WithPrefix(a.model.model));
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
               {"mode", m->s.training ? "training" : "inference"},
               {"precision", PrecisionName(m->s.precision)},
               {"samples", a.samples},
               {"epochs", a.epochs},
               {"perf_model", m->perf->name()},
               {"configs", std::move(configs)},
               {"recommended", pick(adv->recommended)},
               {"reason", adv->reason},
               {"cheapest_instance_rule", pick(adv->cheapest_instance_rule)},
               {"newest_gpu_rule", pick(adv->newest_gpu_rule)},
               {"skipped", std::move(skipped)},
               {"notes", adv->notes}});
  } else {
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
      ->required()
      ->check(NumberIn(0, 1e15, true));
  sub.add_option("--epochs", a->epochs, "Epochs")
      ->capture_default_str()
      ->check(NumberIn(0, 1e6, true));
  sub.add_option("--deadline", a->deadline, "Finish within HOURS: cheapest that does")
      ->check(NumberIn(0, 1e6, true));
  sub.add_option("--budget", a->budget, "Spend at most USD: fastest that does")
      ->check(NumberIn(0, 1e12, true));
  sub.add_option("--providers", a->providers, "Comma list of aws, gcp, azure")
      ->capture_default_str();
  sub.add_option("--max-instances", a->max_instances, "Instances of one type, 1..N")
      ->capture_default_str()
      ->check(IntIn(1, 1024));
  sub.add_option("--top", a->top, "Rows besides the Pareto frontier")
      ->capture_default_str()
      ->check(IntIn(0, 1000000));
  sub.callback([a, exit_code] { *exit_code = RunAdvise(*a); });
}

}  // namespace frugal::cli
