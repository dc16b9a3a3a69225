// The efficiency model: predicts how far below a GPU's *sustained* roofline
// an op lands, so that a GPU's scale comes from its figures and the trees
// learn only shape effects (waves of tiles, launch-bound sizes, L2 fit)
// that carry over from GPU to GPU.
//
// Sustained rates. On the GPUs it was trained on, the model keeps what
// their kernels reached: the median FP32 FLOP/s of large GEMMs (linear and
// bmm of at least 10 GFLOP) and the median bytes/s of large elementwise
// launches (at least 100 MB), each the best over the measurement campaigns
// (CSV files) of that GPU — a campaign run throttled does not set the card's
// level — and, for linear and bmm, each op type's own best (RatesFor). For
// any other GPU it derives them from catalog figures with a rule fitted to
// the trained GPUs:
//   sustained FLOP/s = rho * benchmarked FP32 GEMM FLOP/s, where the catalog
//                      has a public benchmark's figure for the GPU (or for
//                      the same chip on another board, scaled to this
//                      board's peak), else
//                    = min(gamma * nameplate FP32 peak, kappa * board power)
//   sustained bytes/s = beta[memory class] * nameplate memory bandwidth
// kappa (FLOP/s per watt) is the power limit: a 70 W card cannot hold its
// boost clock through a long GEMM, whatever its nameplate says. gamma and
// kappa minimise the squared log error of the rule over the trained GPUs
// (grid search); rho is the median ratio of measured to benchmarked FLOP/s
// over the trained GPUs that have a benchmark figure (used from two such
// GPUs on: a benchmark's best square torch.mm lands near the same fraction
// of what a GPU sustains on real layers, where peak and power do not);
// beta is the median achieved bandwidth fraction of the
// trained GPUs of the same memory class (MemoryClass), or of all of them
// when none shares it.
//
// Target: ln(latency / sustained roofline) for launches above the GPU's
// latency floor, boosters per op type over EfficiencyFeatures; the
// prediction is max(floor, sustained roofline * exp(tree)), and never under
// the nameplate roofline (efficiency <= 1).
//
// Kernel families. cuBLAS and cuDNN run different kernels before and after
// Volta (maxwell_* against volta_* / ampere_*), and their shape effects do
// not carry over: on the Pascal cards measured, GEMMs running over 128 ms
// reach 0.4-0.7 of their GPU's median rate, on the Volta-or-later ones
// 0.9-1.0. Trees pooled over both taught a T4 held out of training the
// Pascal slowdown (its long linears over-predicted by 40-80%). So for GEMM
// and convolution (the cuBLAS / cuDNN op types), a family with at least two
// trained GPUs has its own boosters, fitted on its GPUs' rows only, and its
// GPUs use them; every other case uses the boosters fitted on all GPUs
// ("any"): normalisations and elementwise ops, which run PyTorch's own
// kernels on every architecture, and a family measured on one GPU only,
// whose own trees would learn that GPU rather than the family (a Pascal
// card held out with one Pascal card in training: bmm 11 -> 29% error).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string_view>

#include "frugal/base/stats.h"
#include "frugal/perf/boosters.h"
#include "frugal/perf/op_time_model.h"

namespace frugal {
namespace {

constexpr double kLargeGemmFlops = 1e10;
constexpr double kLargeStreamBytes = 1e8;
constexpr size_t kMinCampaignRows = 20;
constexpr double kThrottledCampaign = 0.5;

constexpr const char* kPreVoltaFamily = "pre-volta";
constexpr const char* kVoltaFamily = "volta+";

constexpr const char* kAnyFamily = "any";
constexpr size_t kMinFamilyGpus = 2;

const char* KernelFamily(const GpuFeatures& g) {
  return PreVolta(g.architecture) ? kPreVoltaFamily : kVoltaFamily;
}

// linear or bmm by name (the GEMM op types with their own rates).
Result<PerfOp> GemmOpNamed(const std::string& name) {
  for (PerfOp op : {PerfOp::kLinear, PerfOp::kBmm}) {
    if (name == PerfOpName(op)) return op;
  }
  return InvalidArgument("efficiency: '" + name + "' is not a GEMM op type (linear, bmm)");
}

bool IsStreamOp(PerfOp op) {
  return !IsHeavyPerfOp(op) && op != PerfOp::kSoftmax &&
         op != PerfOp::kLayerNorm;
}

// The best per-campaign median of `v` (by source), or NaN when no campaign
// has enough rows.
double BestCampaignMedian(const std::map<int32_t, std::vector<double>>& v) {
  double best = std::numeric_limits<double>::quiet_NaN();
  for (const auto& [source, xs] : v) {
    if (xs.size() < kMinCampaignRows) continue;
    const double m = Median(xs);
    if (!(m <= best)) best = m;  // also replaces NaN
  }
  return best;
}

// GPUs whose DRAM reaches a similar fraction of its nameplate bandwidth:
// HBM behind a Volta-or-later memory controller ("hbm-volta+"; NVIDIA's V100
// whitepaper: over 95% DRAM utilisation against about 76% on Pascal's
// GP100), every other stated memory ("other"), or "" when the catalog does
// not state the memory type.
std::string MemoryClass(const GpuFeatures& g) {
  if (g.memory_type.empty()) return "";
  return g.memory_type.rfind("HBM", 0) == 0 && !PreVolta(g.architecture)
             ? "hbm-volta+"
                                                          : "other";
}

// Beyond this multiple of the trained GPUs' largest nameplate FLOP/s per
// watt, the power term extrapolates past anything measured.
constexpr double kPowerExtrapolation = 2.0;

// Trained GPUs with a benchmark figure needed before rho is used.
constexpr size_t kMinBenchmarkedGpus = 2;

struct Rule {
  double gamma = 0.8;
  double kappa = 0;  // FLOP/s per W; 0 = no power term
  // The trained GPUs' largest nameplate FLOP/s per W and lowest sustained
  // fraction of peak (0 when unknown).
  double max_flops_per_w = 0;
  double min_fraction = 0;
  // Measured over benchmarked FP32 GEMM FLOP/s (median over the trained
  // GPUs with a benchmark figure) and how many they were; 0 = not used.
  double rho = 0;
  int rho_gpus = 0;
  double beta = 0.8;  // GPUs of a memory class no trained GPU has
  std::map<std::string, double> beta_by_class;
  // Per GEMM op type (linear, bmm): the median over the trained GPUs of its
  // own rate over the GPU's GEMM rate; absent = 1.
  std::map<PerfOp, double> op_ratio;
};

// What a trained GPU's kernels reached: its GEMM rate (the best campaign
// over every GEMM op type) and bandwidth, and each GEMM op type's own rate.
struct Measured {
  SustainedRates rates;
  std::map<PerfOp, double> gemm_flops;
};

class EfficiencyModel final : public OpTimeModel {
 public:
  const char* name() const override { return "efficiency"; }

  Status Train(const std::vector<TrainRow>& all_rows,
               const TrainOptions& options) override {
    families_.clear();
    measured_.clear();
    floors_.Fit(all_rows);
    FRUGAL_RETURN_IF_ERROR(FitRates(all_rows));
    std::vector<TrainRow> kept;
    kept.reserve(all_rows.size());
    for (const auto& r : all_rows) {
      if (!throttled_.count({r.gpu->name, r.source})) kept.push_back(r);
    }
    std::vector<TrainRow> rows = Subsample(kept, options);
    std::map<PerfOp, std::vector<const TrainRow*>> by_op = RowsAboveFloor(rows, floors_);
    if (by_op.empty()) return InvalidArgument("efficiency: no training rows");
    const size_t nf = EfficiencyFeatureNames().size();
    for (const auto& [op, members] : by_op) {
      std::map<std::string, std::pair<GpuFeatures, SustainedRates>> gpus;
      struct Data {
        std::vector<float> x, y;
        std::set<std::string> gpus;
      };
      std::map<std::string, Data> by_family;
      for (const auto* r : members) {
        auto it = gpus.find(r->gpu->name);
        if (it == gpus.end()) {
          FRUGAL_ASSIGN_OR_RETURN(GpuFeatures g, GpuFeaturesOf(*r->gpu));
          it = gpus.emplace(r->gpu->name, std::pair{g, RatesFor(g, op)}).first;
        }
        const auto& [g, rates] = it->second;
        const std::vector<float> f = EfficiencyFeatures(r->shape, g, rates);
        const auto y = static_cast<float>(
            std::log(r->latency_ms / SustainedRooflineMs(r->shape, rates)));
        for (std::string_view family : {kAnyFamily, KernelFamily(g)}) {
          if (family != kAnyFamily && !IsHeavyPerfOp(op)) continue;
          Data& d = by_family[std::string(family)];
          d.x.insert(d.x.end(), f.begin(), f.end());
          d.y.push_back(y);
          d.gpus.insert(g.name);
        }
      }
      for (const auto& [family, d] : by_family) {
        if (family != kAnyFamily && d.gpus.size() < kMinFamilyGpus) continue;
        FRUGAL_RETURN_IF_ERROR(families_[family].Fit(op, d.x, nf, d.y, options));
      }
    }
    return Status::Ok();
  }

  Result<std::vector<double>> PredictMs(std::span<const OpShape> shapes,
                                        const GpuSpec& gpu) const override {
    if (families_.empty())
      return FailedPrecondition("efficiency model is not trained");
    FRUGAL_ASSIGN_OR_RETURN(GpuFeatures g, GpuFeaturesOf(gpu));
    std::vector<double> out(shapes.size(), 0.0);
    const std::map<PerfOp, std::vector<size_t>> by_op = IndicesByOp(shapes);
    const size_t nf = EfficiencyFeatureNames().size();
    for (const auto& [op, idx] : by_op) {
      const SustainedRates rates = RatesFor(g, op);
      std::vector<float> x;
      x.reserve(idx.size() * nf);
      for (size_t i : idx) {
        std::vector<float> f = EfficiencyFeatures(shapes[i], g, rates);
        x.insert(x.end(), f.begin(), f.end());
      }
      FRUGAL_ASSIGN_OR_RETURN(std::vector<float> pred,
                              BoostersFor(g, op).Predict("efficiency", op, x, nf));
      const double floor = floors_.For(op, gpu.name);
      for (size_t j = 0; j < idx.size(); ++j) {
        const OpShape& s = shapes[idx[j]];
        const OpWork w = WorkOf(s);
        const double t = SustainedRooflineMs(s, rates) *
                         std::exp(static_cast<double>(pred[j]));
        out[idx[j]] = std::max({floor, t, RooflineCoreMs(w.flops, w.bytes, g)});
      }
    }
    return out;
  }

  nlohmann::json ToJson(bool binary) const override {
    nlohmann::json gpus = nlohmann::json::object();
    for (const auto& [name, r] : measured_) {
      nlohmann::json m = nlohmann::json::object();
      if (r.rates.flops > 0) m["sustained_fp32_tflops"] = r.rates.flops / 1e12;
      if (r.rates.bw_bps > 0) m["sustained_mem_bw_gbps"] = r.rates.bw_bps / 1e9;
      for (const auto& [op, flops] : r.gemm_flops)
        m["sustained_fp32_tflops_by_op"][PerfOpName(op)] = flops / 1e12;
      gpus[name] = m;
    }
    nlohmann::json op_ratio = nlohmann::json::object();
    for (const auto& [op, ratio] : rule_.op_ratio) op_ratio[PerfOpName(op)] = ratio;
    nlohmann::json families = nlohmann::json::object();
    for (const auto& [family, b] : families_) families[family] = b.ToJson(binary);
    return {{"target", "ln(latency_ms / sustained_roofline_ms) above the floor"},
            {"prediction",
             "max(floor_ms, sustained_roofline_ms * exp(tree), roofline_core_ms)"},
            {"rule",
             {{"gamma", rule_.gamma},
              {"kappa_gflops_per_w", rule_.kappa / 1e9},
              {"beta", rule_.beta},
              {"max_trained_gflops_per_w", rule_.max_flops_per_w / 1e9},
              {"min_trained_fraction_of_peak", rule_.min_fraction},
              {"benchmarked_ratio", rule_.rho},
              {"benchmarked_gpus", rule_.rho_gpus},
              {"beta_by_memory_class", rule_.beta_by_class},
              {"gemm_op_ratio", op_ratio}}},
            {"measured", gpus},
            {"throttled_campaigns_left_out", excluded_},
            {"features", EfficiencyFeatureNames()},
            {"floors_ms", floors_.ToJson()},
            {"boosters_by_kernel_family", families}};
  }

  Status FromJson(const nlohmann::json& j) override {
    families_.clear();
    measured_.clear();
    try {
      const auto& r = j.at("rule");
      rule_.gamma = r.at("gamma").get<double>();
      rule_.kappa = r.at("kappa_gflops_per_w").get<double>() * 1e9;
      rule_.beta = r.at("beta").get<double>();
      rule_.max_flops_per_w = r.at("max_trained_gflops_per_w").get<double>() * 1e9;
      rule_.min_fraction = r.at("min_trained_fraction_of_peak").get<double>();
      // Absent in model files written before the benchmark figures.
      rule_.rho = r.value("benchmarked_ratio", 0.0);
      rule_.rho_gpus = r.value("benchmarked_gpus", 0);
      rule_.beta_by_class =
          r.at("beta_by_memory_class").get<std::map<std::string, double>>();
      bool ok = rule_.gamma > 0 && rule_.beta > 0 && rule_.kappa >= 0 &&
                rule_.rho >= 0 && std::isfinite(rule_.rho);
      for (const auto& [c, b] : rule_.beta_by_class) ok = ok && b > 0;
      if (!ok)
        return InvalidArgument("efficiency: rule figures must be positive");
      // Per-op GEMM rates are absent in model files written before them.
      rule_.op_ratio.clear();
      const nlohmann::json ratios = r.value("gemm_op_ratio", nlohmann::json::object());
      for (const auto& [op, ratio] : ratios.items()) {
        FRUGAL_ASSIGN_OR_RETURN(PerfOp o, GemmOpNamed(op));
        const double v = ratio.get<double>();
        if (!(v > 0 && v <= 1))
          return InvalidArgument("efficiency: gemm_op_ratio of " + op + " must be in (0, 1]");
        rule_.op_ratio[o] = v;
      }
      for (const auto& [name, m] : j.at("measured").items()) {
        Measured& s = measured_[name];
        s.rates.flops = m.value("sustained_fp32_tflops", 0.0) * 1e12;
        s.rates.bw_bps = m.value("sustained_mem_bw_gbps", 0.0) * 1e9;
        const nlohmann::json by_op =
            m.value("sustained_fp32_tflops_by_op", nlohmann::json::object());
        for (const auto& [op, tflops] : by_op.items()) {
          FRUGAL_ASSIGN_OR_RETURN(PerfOp o, GemmOpNamed(op));
          const double v = tflops.get<double>() * 1e12;
          if (!(v > 0 && std::isfinite(v)))
            return InvalidArgument("efficiency: measured rate of " + op + " on " + name +
                                   " must be positive");
          s.gemm_flops[o] = v;
        }
      }
    } catch (const nlohmann::json::exception& e) {
      return InvalidArgument(std::string("efficiency: malformed state: ") +
                             e.what());
    }
    // Model files written before the kernel families hold one set of
    // boosters over all GPUs ("boosters"): they load as the "any" family.
    nlohmann::json families;
    if (j.contains("boosters_by_kernel_family")) {
      families = j["boosters_by_kernel_family"];
    } else if (j.contains("boosters")) {
      families = nlohmann::json::object();
      families[kAnyFamily] = j["boosters"];
    }
    if (!j.contains("floors_ms") || !families.is_object()) {
      return InvalidArgument(
          "efficiency: state lacks floors_ms or boosters_by_kernel_family");
    }
    if (j.contains("features") &&
        j["features"] != nlohmann::json(EfficiencyFeatureNames())) {
      return InvalidArgument(
          "efficiency: feature names differ from this build's");
    }
    FRUGAL_RETURN_IF_ERROR(floors_.FromJson("efficiency", j["floors_ms"]));
    for (const auto& [family, b] : families.items()) {
      if (family != kPreVoltaFamily && family != kVoltaFamily && family != kAnyFamily)
        return InvalidArgument("efficiency: unknown kernel family '" + family + "'");
      FRUGAL_RETURN_IF_ERROR(families_[family].FromJson("efficiency", b));
    }
    if (!families_.count(kAnyFamily))
      return InvalidArgument("efficiency: state lacks the 'any' boosters");
    return Status::Ok();
  }

 private:
  static double SustainedRooflineMs(const OpShape& s, const SustainedRates& r) {
    const OpWork w = WorkOf(s);
    return 1e3 * std::max(w.flops / r.flops, w.bytes / r.bw_bps);
  }

  // Measured rates of the trained GPUs, then the rule over them.
  Status FitRates(const std::vector<TrainRow>& rows) {
    throttled_.clear();
    excluded_ = nlohmann::json::array();
    std::map<std::string, std::map<int32_t, std::vector<double>>> gemm, stream;
    std::map<std::pair<std::string, int32_t>, PerfOp> campaign_op;
    std::map<std::string, const GpuSpec*> specs;
    for (const auto& r : rows) {
      const OpWork w = WorkOf(r.shape);
      specs[r.gpu->name] = r.gpu;
      const double per_s = 1e3 / r.latency_ms;
      if ((r.shape.op == PerfOp::kLinear || r.shape.op == PerfOp::kBmm) &&
          w.flops >= kLargeGemmFlops) {
        gemm[r.gpu->name][r.source].push_back(w.flops * per_s);
        campaign_op[{r.gpu->name, r.source}] = r.shape.op;
      } else if (IsStreamOp(r.shape.op) && w.bytes >= kLargeStreamBytes) {
        stream[r.gpu->name][r.source].push_back(w.bytes * per_s);
      }
    }
    struct Point {
      double peak, tdp, sustained, benchmarked;
    };
    std::vector<Point> compute;
    std::vector<double> bw_frac;
    std::map<std::string, std::vector<double>> bw_frac_by_class;
    for (const auto& [name, spec] : specs) {
      Result<GpuFeatures> g = GpuFeaturesOf(*spec);
      if (!g.ok()) continue;
      Measured measured;
      SustainedRates& m = measured.rates;
      if (auto it = gemm.find(name); it != gemm.end()) {
        const double c = BestCampaignMedian(it->second);
        if (std::isfinite(c)) {
          // A campaign whose large GEMMs ran at under half the GPU's best
          // was throttled (NeuSight's random-shape P4 linears: about 1 of
          // its 4 TFLOP/s): its rows would teach the trees that long
          // kernels are slow on every GPU, so they are left out.
          for (const auto& [source, xs] : it->second) {
            if (xs.size() < kMinCampaignRows) continue;
            const double median = Median(xs);
            const PerfOp op = campaign_op[{name, source}];
            const double ratio = median / c;
            if (ratio < kThrottledCampaign) {
              throttled_[{name, source}] = ratio;
              excluded_.push_back({{"gpu", name},
                                   {"op", PerfOpName(op)},
                                   {"gemm_rate_vs_best", ratio}});
              continue;
            }
            double& own = measured.gemm_flops[op];
            own = std::max(own, median);
          }
          m.flops = c;
          compute.push_back({g->peak_flops, g->tdp_w, c, g->benchmarked_flops});
        }
      }
      if (auto it = stream.find(name); it != stream.end()) {
        const double b = BestCampaignMedian(it->second);
        if (std::isfinite(b)) {
          m.bw_bps = b;
          bw_frac.push_back(b / g->mem_bw_bps);
          if (std::string c = MemoryClass(*g); !c.empty())
            bw_frac_by_class[c].push_back(b / g->mem_bw_bps);
        }
      }
      if (m.flops > 0 || m.bw_bps > 0) measured_[name] = measured;
    }
    rule_ = Rule{};
    rule_.beta_by_class.clear();
    std::map<PerfOp, std::vector<double>> op_ratios;
    for (const auto& [name, m] : measured_) {
      for (const auto& [op, flops] : m.gemm_flops) op_ratios[op].push_back(flops / m.rates.flops);
    }
    for (const auto& [op, v] : op_ratios) rule_.op_ratio[op] = Median(v);
    if (!bw_frac.empty()) rule_.beta = Median(bw_frac);
    for (const auto& [c, v] : bw_frac_by_class) rule_.beta_by_class[c] = Median(v);
    if (compute.empty()) return Status::Ok();
    // Grid search: gamma in [0.2, 1], kappa in [5, 2000] GFLOP/s per W
    // (log steps) or no power term.
    double best = std::numeric_limits<double>::infinity();
    auto loss = [&](double gamma, double kappa) {
      double sum = 0;
      for (const Point& p : compute) {
        double pred = gamma * p.peak;
        if (kappa > 0 && p.tdp > 0) pred = std::min(pred, kappa * p.tdp);
        sum += std::pow(std::log(pred / p.sustained), 2);
      }
      return sum;
    };
    std::vector<double> rho;
    for (const Point& p : compute) {
      if (p.benchmarked > 0) rho.push_back(p.sustained / p.benchmarked);
    }
    if (rho.size() >= kMinBenchmarkedGpus) {
      rule_.rho = Median(rho);
      rule_.rho_gpus = static_cast<int>(rho.size());
    }
    for (const Point& p : compute) {
      if (p.tdp > 0) rule_.max_flops_per_w = std::max(rule_.max_flops_per_w, p.peak / p.tdp);
      const double f = p.sustained / p.peak;
      rule_.min_fraction = rule_.min_fraction > 0 ? std::min(rule_.min_fraction, f) : f;
    }
    for (int gi = 0; gi <= 160; ++gi) {
      const double gamma = 0.2 + 0.005 * gi;
      for (int ki = -1; ki <= 600; ++ki) {
        const double kappa = ki < 0 ? 0 : 5e9 * std::pow(400.0, ki / 600.0);
        const double l = loss(gamma, kappa);
        if (l < best - 1e-12) {
          best = l;
          rule_.gamma = gamma;
          rule_.kappa = kappa;
        }
      }
    }
    return Status::Ok();
  }

  // The boosters of `g`'s kernel family for `op` where it has its own, else
  // the ones fitted on all GPUs (a trained or loaded model always has them).
  const OpBoosters& BoostersFor(const GpuFeatures& g, PerfOp op) const {
    auto own = families_.find(KernelFamily(g));
    if (IsHeavyPerfOp(op) && own != families_.end() && own->second.Has(op))
      return own->second;
    return families_.at(kAnyFamily);
  }

  // The sustained FLOP/s of a GPU without measurements: its public benchmark
  // figure where it has one, which carries what peak and power do not (of
  // the trained GPUs, V100 sustains 0.95 of its peak and A100 PCIe 0.80,
  // both 250 W cards), else a figure of the same chip on another board
  // scaled to its peak (V100 PCIe from V100 SXM2), else the peak / power
  // rule.
  double RuleFlops(const GpuFeatures& g) const {
    if (rule_.rho > 0 && g.benchmarked_flops > 0) return rule_.rho * g.benchmarked_flops;
    if (rule_.rho > 0 && g.same_chip_benchmarked_flops > 0) {
      return rule_.rho * g.same_chip_benchmarked_flops;
    }
    double flops = rule_.gamma * g.peak_flops;
    if (rule_.kappa > 0 && g.tdp_w > 0) {
      flops = std::min(flops, rule_.kappa * g.tdp_w);
      // A card far more efficient per watt than any trained one (L4: 420
      // GFLOP/s per W at 4 nm against at most 116) would be capped by a
      // power figure fitted to older processes: bound it below by the
      // lowest fraction of peak a trained GPU sustained.
      if (rule_.max_flops_per_w > 0 &&
          g.peak_flops / g.tdp_w > kPowerExtrapolation * rule_.max_flops_per_w) {
        flops = std::max(flops, rule_.min_fraction * g.peak_flops);
      }
    }
    return flops;
  }

  // The rates `op` runs at on `g`: a GEMM op type (linear, bmm) at its own
  // rate where the GPU was trained on it, else at the GPU's GEMM rate times
  // the op type's ratio. torch.bmm and linear run different cuBLAS calls
  // (strided-batched and plain GEMM), whose rates differ by GPU (bmm over
  // linear: 1.15 on P100, 0.85 on V100): the trees learn each op type's
  // shape effects against its own rate.
  SustainedRates RatesFor(const GpuFeatures& g, PerfOp op) const {
    SustainedRates r;
    r.flops = RuleFlops(g);
    auto beta = rule_.beta_by_class.find(MemoryClass(g));
    r.bw_bps = (beta == rule_.beta_by_class.end() ? rule_.beta : beta->second) *
               g.mem_bw_bps;
    auto m = measured_.find(g.name);
    if (m != measured_.end()) {
      if (m->second.rates.flops > 0) r.flops = m->second.rates.flops;
      if (m->second.rates.bw_bps > 0) r.bw_bps = m->second.rates.bw_bps;
    }
    if (auto ratio = rule_.op_ratio.find(op); ratio != rule_.op_ratio.end()) {
      r.flops *= ratio->second;
      if (m != measured_.end()) {
        if (auto own = m->second.gemm_flops.find(op); own != m->second.gemm_flops.end())
          r.flops = own->second;
      }
    }
    return r;
  }

  Rule rule_;
  std::map<std::string, Measured> measured_;  // trained GPUs
  // Training only: campaigns (GPU, source) left out as throttled, and
  // their description for the model file.
  std::map<std::pair<std::string, int32_t>, double> throttled_;
  nlohmann::json excluded_ = nlohmann::json::array();
  LatencyFloors floors_;
  std::map<std::string, OpBoosters> families_;  // by KernelFamily
};

}  // namespace

std::unique_ptr<OpTimeModel> NewEfficiencyModel() {
  return std::make_unique<EfficiencyModel>();
}

}  // namespace frugal
