// `frugal share interference fit|eval`: the co-location interference model
// fit on Gavel's or Lucid's measured pairs, and its leave-one-group-out
// evaluation against the linear floor.
#include <fmt/format.h>
#include <sys/stat.h>

#include <memory>
#include <optional>
#include <string>

#include "cli_util.h"
#include "frugal/hw/catalog.h"
#include "frugal/share/colocation_data.h"
#include "frugal/share/interference.h"
#include "share_verbs.h"

namespace frugal::cli {
namespace {

using namespace frugal::share;  // NOLINT: one module per file here

struct InterferenceArgs {
  std::string data = "gavel";
  std::string gpu;
  std::string out;
  std::string holdout;  // empty: family for Gavel, model for Lucid
  std::string catalog;
  bool per_gpu = false;  // train on the evaluated GPU's pairs only
  bool json = false;
  InterferenceOptions trees;
};

struct LoadedData {
  std::string kind;        // "gavel" or "lucid"
  bool published = false;  // the shared data set the published floors are for
  ColoDataset set;
  Catalog gpus;  // catalog view keyed by the data's GPU names (DataGpus)
};

Result<Catalog> OpenCatalog(const InterferenceArgs& a);
Result<Catalog> DataGpus(const Catalog& full);

// The data set and the catalog GPUs it names; Gavel's pairs of `read_gpu`
// only ("" = all three).
Result<LoadedData> LoadData(const InterferenceArgs& a, const std::string& read_gpu) {
  LoadedData d;
  std::string path = a.data;
  if (a.data == "gavel") {
    path = DefaultGavelPath();
    d.published = true;
  } else if (a.data == "lucid") {
    path = DefaultLucidDir();
    d.published = true;
  }
  struct stat st {};
  const bool is_dir = ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  d.kind =
      a.data == "lucid" || (a.data != "gavel" && is_dir) ? "lucid" : "gavel";
  if (d.kind == "lucid") {
    if (!a.gpu.empty()) {
      return InvalidArgument(std::string(kUsagePrefix) +
                             "--gpu applies to Gavel data only");
    }
    if (a.per_gpu) {
      return InvalidArgument(std::string(kUsagePrefix) +
                             "--per-gpu applies to Gavel data only (Lucid names no GPU)");
    }
    if (a.data == "lucid" && !is_dir) {
      return NotFound(fmt::format(
          "{}: no such directory (Lucid's data is read from ../shared; "
          "set FRUGAL_SHARE_DATA to its folder)",
          path));
    }
    FRUGAL_ASSIGN_OR_RETURN(d.set, ReadLucid(path));
  } else {
    if (!a.gpu.empty() && GavelCatalogGpu(a.gpu) == nullptr) {
      return InvalidArgument(fmt::format("unknown Gavel GPU '{}' (k80, p100, v100)", a.gpu));
    }
    FRUGAL_ASSIGN_OR_RETURN(d.set, ReadGavel(path, read_gpu));
  }
  if (d.set.samples.empty()) {
    return InvalidArgument(
        fmt::format("{}: no co-located pairs", d.set.source));
  }
  FRUGAL_ASSIGN_OR_RETURN(Catalog full, OpenCatalog(a));
  FRUGAL_ASSIGN_OR_RETURN(d.gpus, DataGpus(full));
  return d;
}

// The linear floors the issue quotes for the shared data sets.
std::optional<double> PublishedFloor(const LoadedData& d,
                                     const std::string& gpu) {
  if (!d.published) return std::nullopt;
  if (d.kind == "lucid") return 0.079;
  if (gpu == "k80") return 0.066;
  if (gpu == "p100") return 0.095;
  if (gpu == "v100") return 0.205;
  return std::nullopt;
}

Result<Catalog> OpenCatalog(const InterferenceArgs& a) {
  return LoadCatalog(a.catalog.empty() ? DefaultCatalogPath() : a.catalog);
}

// A catalog view keyed by the data's GPU names (k80 -> K80, ...).
Result<Catalog> DataGpus(const Catalog& full) {
  CatalogData data;
  for (const char* key : kGavelGpus) {
    const GpuSpec* g = full.FindGpu(GavelCatalogGpu(key));
    if (g == nullptr)
      return NotFound(fmt::format("catalog has no {}", GavelCatalogGpu(key)));
    GpuSpec s = *g;
    s.name = key;
    s.aliases.clear();
    s.default_for.clear();
    s.sources.clear();
    data.gpus.push_back(std::move(s));
  }
  return Catalog::Build(std::move(data));
}

int RunFit(const InterferenceArgs& a) {
  Result<LoadedData> d = LoadData(a, a.gpu);
  if (!d.ok()) return ReportError(d.status());
  const std::string source =
      fmt::format("frugal share interference fit --data {}{}: {}", a.data,
                  a.gpu.empty() ? "" : " --gpu " + a.gpu, d->set.source);
  Result<InterferenceModel> m =
      InterferenceModel::Fit(d->set.samples, &d->gpus, source, a.trees);
  if (!m.ok()) return ReportError(m.status());
  Status st = m->Save(a.out);
  if (!st.ok()) return ReportError(st);
  int eq = 0, inf = 0;
  for (const auto& [g, n] : d->set.equal_solo) eq += n;
  for (const auto& [g, n] : d->set.infeasible) inf += n;
  if (a.json) {
    PrintJson({{"out", a.out},
               {"data", d->kind},
               {"source", d->set.source},
               {"samples", d->set.samples.size()},
               {"excluded_equal_solo", eq},
               {"excluded_infeasible", inf}});
  } else {
    fmt::print(
        "fit {} trees on {} co-located samples from {} ({} equal-to-solo and "
        "{} "
        "infeasible entries skipped) -> {}\n",
        a.trees.trees, d->set.samples.size(), d->set.source, eq, inf, a.out);
  }
  return 0;
}

int RunEval(const InterferenceArgs& a) {
  // Pooled, the trees of a fold learn from every GPU's pairs; --gpu then
  // only picks the GPU reported. Per GPU, only its pairs are read.
  Result<LoadedData> d = LoadData(a, a.per_gpu ? a.gpu : "");
  if (!d.ok()) return ReportError(d.status());
  EvalOptions o;
  std::string holdout =
      a.holdout.empty() ? (d->kind == "lucid" ? "model" : "family") : a.holdout;
  o.holdout = holdout == "model" ? Holdout::kModel : Holdout::kFamily;
  o.pool_gpus = !a.per_gpu;
  o.only_gpu = a.gpu;
  o.trees = a.trees;
  Result<EvalResult> r = EvaluateHoldout(d->set.samples, &d->gpus, o);
  if (!r.ok()) return ReportError(r.status().WithPrefix(d->set.source));

  nlohmann::json rows = nlohmann::json::array();
  for (const GroupScore& s : r->per_gpu) {
    const std::string name = s.gpu.empty() ? d->kind : s.gpu;
    const std::optional<double> pub = PublishedFloor(*d, s.gpu);
    const double floor = pub ? *pub : s.floor_mae;
    const auto eq = d->set.equal_solo.find(s.gpu);
    const auto inf = d->set.infeasible.find(s.gpu);
    rows.push_back({{"gpu", name},
                    {"samples", s.samples},
                    {"excluded_equal_solo",
                     eq == d->set.equal_solo.end() ? 0 : eq->second},
                    {"excluded_infeasible",
                     inf == d->set.infeasible.end() ? 0 : inf->second},
                    {"mae", s.mae},
                    {"within_0_1", s.within_0_1},
                    {"floor_mae", s.floor_mae},
                    {"floor_within_0_1", s.floor_within_0_1},
                    {"job_mean_mae", s.job_mean_mae},
                    {"published_floor",
                     pub ? nlohmann::json(*pub) : nlohmann::json(nullptr)},
                    {"target_mae", 0.7 * floor},
                    {"ratio_to_floor", s.mae / floor},
                    {"met", s.mae <= 0.7 * floor}});
  }
  if (a.json) {
    PrintJson({{"data", d->kind},
               {"source", d->set.source},
               {"holdout", holdout},
               {"pool_gpus", o.pool_gpus},
               {"groups", r->groups},
               {"results", rows}});
    return 0;
  }
  fmt::print(
      "{}: leave-one-{}-out over {} {} ({})\n", d->set.source, holdout,
      r->groups.size(), holdout == "family" ? "families" : "models",
      o.pool_gpus ? "trees train on every GPU's pairs" : "per-GPU training");
  fmt::print(
      "{:<6} {:>7} {:>8} {:>8} {:>8} {:>9} {:>9} {:>9} {:>8} {:>6} {:>4}\n",
      "gpu", "samples", "excluded", "mae", "<=0.1", "floor", "floor<=.1",
      "published", "target", "ratio", "met");
  for (const auto& row : rows) {
    const std::string pub =
        row["published_floor"].is_null()
            ? "-"
            : fmt::format("{:.3f}", row["published_floor"].get<double>());
    fmt::print(
        "{:<6} {:>7} {:>8} {:>8.3f} {:>7.1f}% {:>9.3f} {:>8.1f}% {:>9} "
        "{:>8.3f} {:>6.2f} {:>4}\n",
        row["gpu"].get<std::string>(), row["samples"].get<int>(),
        row["excluded_equal_solo"].get<int>(), row["mae"].get<double>(),
        100 * row["within_0_1"].get<double>(), row["floor_mae"].get<double>(),
        100 * row["floor_within_0_1"].get<double>(), pub,
        row["target_mae"].get<double>(), row["ratio_to_floor"].get<double>(),
        row["met"].get<bool>() ? "yes" : "no");
  }
  return 0;
}

void AddCommon(CLI::App* c, InterferenceArgs* a) {
  c->add_option("--data", a->data,
                "gavel, lucid (the shared data sets), a Gavel JSON file or a "
                "Lucid folder")
      ->capture_default_str();
  c->add_option("--gpu", a->gpu,
                "Gavel only: one GPU (k80, p100, v100); default all three");
  c->add_option("--catalog", a->catalog, "GPU catalog (default: data/catalog)");
  c->add_option("--trees", a->trees.trees, "Boosting rounds")
      ->capture_default_str()
      ->check(IntIn(1, 5000));
  c->add_option("--depth", a->trees.max_depth, "Tree depth")
      ->capture_default_str()
      ->check(IntIn(1, 16));
  c->add_option("--eta", a->trees.learning_rate, "Learning rate")
      ->capture_default_str()
      ->check(NumberIn(0, 1, true));
  c->add_option("--seed", a->trees.seed, "Learner seed")->capture_default_str();
  c->add_flag("--json", a->json, "Machine-readable output");
}

}  // namespace

void SetupShareInterference(CLI::App& share, int* exit_code) {
  CLI::App* sub = share.add_subcommand(
      "interference",
      "Co-location interference model: fit on measured pairs, evaluate");
  sub->require_subcommand(1);

  auto fa = std::make_shared<InterferenceArgs>();
  CLI::App* fit =
      sub->add_subcommand("fit", "Fit the model on a data set and write it");
  AddCommon(fit, fa.get());
  fit->add_option("-o,--out", fa->out, "Model file to write (JSON)")
      ->required();
  fit->callback([fa, exit_code] { *exit_code = RunFit(*fa); });

  auto ea = std::make_shared<InterferenceArgs>();
  CLI::App* eval = sub->add_subcommand(
      "eval",
      "Leave-one-family/model-out MAE per GPU: the trees vs the linear floor");
  AddCommon(eval, ea.get());
  eval->add_option("--holdout", ea->holdout,
                   "family (Gavel default) or model (Lucid default)")
      ->check(CLI::IsMember({"family", "model"}));
  eval->add_flag("--per-gpu", ea->per_gpu,
                 "Gavel: train only on the evaluated GPU's pairs");
  eval->callback([ea, exit_code] { *exit_code = RunEval(*ea); });
}

}  // namespace frugal::cli
