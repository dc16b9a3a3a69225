// The co-location interference model: how fast a job runs next to another
// one on the same GPU, as a fraction of its solo throughput (the normalised
// throughput, 1 = no slowdown). Fit on measured pairs (Gavel's and Lucid's,
// see colocation_data.h) with gradient-boosted trees over what is known
// before the two jobs meet: each job's solo throughput and batch, its GPU
// utilisation and memory where measured, whether it runs in mixed precision,
// Ceer's compute-bound time share where the model is one frugal can build,
// the GPU's catalog specs, and, when the co-runner is a job the training
// pairs measured, its profile (CoRunnerProfile: how much it slowed its partners).
// A linear least-squares model over the solo features is the floor it is
// judged against (LinearBaseline).
//
// Profiles are cross-fitted: a training row of family G sees profiles
// computed without any pair involving G, exactly what a held-out family
// sees at evaluation, so the trees learn how far to trust them and what to
// do when the co-runner is new (same-family pairs have no profile).
//
// The serving simulator asks "how fast does training job T run next to
// service S on this GPU": a ColoJob describes either side; an inference
// service fills what it can (gpu_util, mem_gib, compute_share and its solo
// batch rate). Fields it cannot give are left empty and the trees take the
// branch they learnt for missing values.
//
// An InterferenceModel is a value: Fit/Load build it, Predict is const and
// safe to call from many threads once built (each call builds its own
// xgboost input). Fits are single-threaded and seeded: deterministic.
#ifndef FRUGAL_SHARE_INTERFERENCE_H_
#define FRUGAL_SHARE_INTERFERENCE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/hw/catalog.h"

namespace frugal::share {

// One job as the model sees it. Only solo_tput and batch are required.
struct ColoJob {
  std::string family;  // "ResNet-50", "Transformer", "LM"; held out as one
  std::string model;   // a configuration: "ResNet-50 (batch size 32)"
  double batch = 1;    // samples per step; REQUIRES: > 0
  // Throughput alone on the GPU it is co-located on (steps or samples per
  // second; one unit per data set, the model uses ratios and logs of it).
  // REQUIRES: > 0 and finite.
  double solo_tput = 0;
  std::optional<double> gpu_util;  // SM utilisation alone, percent 0..100
  std::optional<double> mem_gib;   // device memory alone, GiB
  std::optional<double>
      compute_share;  // Ceer: compute-bound share of step time, 0..1
  bool amp = false;   // mixed precision
};

// The most a job's co-located throughput may be of its solo one: a job
// running at more than 10x its solo speed next to another is not a
// measurement of sharing (Lucid's fastest is 1.5x), and labels that large
// overflow the trees' float labels.
inline constexpr double kMaxNormTput = 10;

// A measured pair: `self` ran at norm_tput x its solo throughput next to
// `other` on `gpu` (a catalog name, or empty when the data set does not say).
struct ColoSample {
  ColoJob self;
  ColoJob other;
  std::string gpu;
  double norm_tput = 0;
};

// What the training pairs say about a job as a co-runner on one GPU: the
// mean normalised throughput of the jobs that ran next to it (pressure: low
// = it slows others down), its own mean normalised throughput
// (sensitivity), how far below their own mean its partners ran next to it
// (excess), and the partners themselves, for a nearest-neighbour estimate.
struct CoRunnerProfile {
  struct Partner {
    double log_solo_tput = 0;
    double log_batch = 0;
    double gpu_util = 0;   // NaN when not measured
    double norm_tput = 0;  // the partner's, next to this job
  };
  double pressure = 0;
  double sensitivity = 0;
  double excess = 0;
  int pairs = 0;
  std::vector<Partner> partners;
};

// The features the trees use, in order (kFeatureNames). Missing values are
// NaN. GPU figures are 0 when `gpu` is null; the profile features are NaN
// when `other_profile` is null (a co-runner the training pairs never saw).
inline constexpr int kNumFeatures = 23;
extern const char* const kFeatureNames[kNumFeatures];
std::vector<float> PairFeatures(const ColoJob& self, const ColoJob& other,
                                const GpuSpec* gpu,
                                const CoRunnerProfile* other_profile = nullptr);

struct InterferenceOptions {
  int trees = 100;
  int max_depth = 2;
  double learning_rate = 0.05;
  uint64_t seed = 1;
};

class InterferenceModel {
 public:
  InterferenceModel();
  ~InterferenceModel();
  InterferenceModel(InterferenceModel&&) noexcept;
  InterferenceModel& operator=(InterferenceModel&&) noexcept;

  // Fits the trees to `samples`; `gpus` resolves each sample's gpu name
  // (null for names it lacks: the GPU features are then 0). `source` is
  // recorded in the saved file. InvalidArgument for no samples or a sample
  // whose target or solo throughput is not finite and positive.
  static Result<InterferenceModel> Fit(const std::vector<ColoSample>& samples,
                                       const Catalog* gpus,
                                       const std::string& source,
                                       const InterferenceOptions& options = {});

  // Normalised throughput of `self` next to `other` on `gpu`, clamped to
  // [0, 1.2] (measured pairs slightly above 1 exist: Lucid's noise). The
  // co-runner's profile is found by (gpu->name, other.model) among the
  // training jobs (gpu null: the name ""); a job it never saw (an inference
  // service, a new model) is predicted from its solo features alone.
  double PredictNormalizedTput(const ColoJob& self, const ColoJob& other,
                               const GpuSpec* gpu) const;
  double PredictNormalizedTput(const ColoJob& self, const ColoJob& other,
                               const GpuSpec& gpu) const {
    return PredictNormalizedTput(self, other, &gpu);
  }
  // The same from a feature row (PairFeatures).
  double PredictFeatures(const std::vector<float>& row) const;

  // A model file is JSON: format, source, options, the GPU figures used
  // and the training samples. Load refits on them, which the seeded
  // single-threaded fit makes exact, so no xgboost binary blob is kept.
  Status Save(const std::string& path) const;
  static Result<InterferenceModel> Load(const std::string& path);

  const std::string& source() const { return source_; }
  size_t training_rows() const { return samples_.size(); }
  // The profile of `model` on `gpu` ("" for data without a GPU), or null.
  const CoRunnerProfile* FindProfile(const std::string& gpu,
                                const std::string& model) const;

 private:
  struct Trees;
  static Result<InterferenceModel> FitResolved(
      std::vector<ColoSample> samples, std::map<std::string, GpuSpec> gpus,
      const std::string& source, const InterferenceOptions& options);

  std::string source_;
  InterferenceOptions options_;
  std::vector<ColoSample> samples_;
  std::map<std::string, GpuSpec> gpus_;  // the training samples' GPUs, by name
  std::map<std::pair<std::string, std::string>, CoRunnerProfile>
      profiles_;  // (gpu, model)
  std::unique_ptr<Trees> trees_;
};

// The floor: ordinary least squares (with an intercept) over the solo
// features that every training sample has: log solo throughputs and batches
// of both jobs, and their GPU utilisation, memory and AMP flag where the
// data set measures them for all jobs.
class LinearBaseline {
 public:
  static Result<LinearBaseline> Fit(const std::vector<ColoSample>& samples);
  double Predict(const ColoSample& s) const;

 private:
  std::vector<int> features_;  // indices into PairFeatures
  std::vector<double> coef_;   // intercept first
};

// Leave-one-group-out evaluation: every sample of group g (by self's family
// or model) is predicted by models fit without any sample whose self or
// other belongs to g.
enum class Holdout { kFamily, kModel };
const char* HoldoutName(Holdout h);

struct EvalOptions {
  Holdout holdout = Holdout::kFamily;
  // Gavel: also train on the other GPUs' pairs (GPU specs are features).
  bool pool_gpus = true;
  // "": score every GPU's samples; else only this GPU's (the others still
  // train the pooled trees).
  std::string only_gpu;
  InterferenceOptions trees;
};

struct GroupScore {
  std::string gpu;  // the rows' gpu ("" for Lucid)
  int samples = 0;
  double mae = 0;         // ours
  double within_0_1 = 0;  // share of |error| <= 0.1
  double floor_mae = 0;   // LinearBaseline, same protocol
  double floor_within_0_1 = 0;
  // Not a model: each pair predicted by the mean normalised throughput of
  // the same job over its other pairs on this GPU (held-out pairs included).
  // How far a job's own identity goes; what no solo feature supplies.
  double job_mean_mae = 0;
};

struct EvalResult {
  std::vector<GroupScore> per_gpu;  // sorted by gpu name
  std::vector<std::string> groups;  // the held-out groups, sorted
};

// Evaluates on `samples`, reporting per distinct gpu. REQUIRES: at least two
// groups, else InvalidArgument.
Result<EvalResult> EvaluateHoldout(const std::vector<ColoSample>& samples,
                                   const Catalog* gpus,
                                   const EvalOptions& options);

// The bundled model, fit on Gavel's pairs (models/share/README.md).
std::string DefaultInterferenceModelPath();

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_INTERFERENCE_H_
