#include "frugal/share/workload.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "frugal/base/csv_table.h"
#include "frugal/base/file_io.h"

namespace frugal::share {

std::string DefaultAlibabaTrace() {
  return SharedDataDir() +
         "/traces/alibaba-gpu-v2023/openb_pod_list_default.csv";
}

Result<std::vector<double>> ReadPodLifetimes(const std::string& path) {
  Result<std::string> text = ReadFileToString(path);
  if (!text.ok()) {
    return NotFound(path + ": cannot read the Alibaba trace for training durations (" +
                    text.status().message() + "); give --trace FILE");
  }
  FRUGAL_ASSIGN_OR_RETURN(
      CsvTable t, ParseCsvTable(std::move(*text), path, {"creation_time", "deletion_time"}));
  const int c_create = t.Column("creation_time"), c_delete = t.Column("deletion_time");
  constexpr int64_t kMaxTime = int64_t{1} << 40;
  std::vector<double> out;
  for (const CsvTable::Row& row : t.rows) {
    if (row.fields[c_create].empty() || row.fields[c_delete].empty()) continue;  // running
    FRUGAL_ASSIGN_OR_RETURN(int64_t a,
                            ParseIntField(t, row, c_create, "creation_time", 0, kMaxTime));
    FRUGAL_ASSIGN_OR_RETURN(int64_t b,
                            ParseIntField(t, row, c_delete, "deletion_time", 0, kMaxTime));
    if (b > a) out.push_back(static_cast<double>(b - a));
  }
  if (out.empty()) return InvalidArgument(path + ": no pod with a positive lifetime");
  return out;
}

Result<Workload> GenerateMixed(const MixedOptions& o, const GpuSpec& gpu, CostCache* costs) {
  FRUGAL_ASSIGN_OR_RETURN(std::vector<double> lifetimes,
                          ReadPodLifetimes(o.trace.empty() ? DefaultAlibabaTrace() : o.trace));
  SplitMix64 rng(o.seed * 0x51ED27 + 17);
  Workload w;
  w.horizon_s = o.horizon_s;
  static const char* kServiceModels[] = {"resnet50", "mobilenet_v2", "inception_v3",
                                         "vgg16",    "bert",         "vit_base_patch16_224"};
  for (int i = 0; i < o.services; ++i) {
    InferenceService s;
    s.model = kServiceModels[rng.Below(std::size(kServiceModels))];
    s.name = fmt::format("svc{:02d}-{}", i, s.model);
    s.seq = s.model == std::string("bert") ? 128 : 0;
    s.batch_sizes = {1, 2, 4, 8};
    if (rng.Uniform() < 0.5) s.batch_sizes.push_back(16);
    FRUGAL_ASSIGN_OR_RETURN(StepCost one, costs->Inference(s.model, 1, s.seq, gpu));
    FRUGAL_ASSIGN_OR_RETURN(StepCost top, costs->Inference(s.model, s.max_batch(), s.seq, gpu));
    // SLO 2-5 x the solo latency of a full batch; the batcher waits at most
    // a fifth of it.
    const double k = 2 + 3 * rng.Uniform();
    s.slo_p99_ms = std::round(k * top.total_ms() * 10) / 10;
    s.max_queue_delay_ms = std::round(s.slo_p99_ms / 5 * 10) / 10;
    // Peak load of 5-30 % of a GPU at batch 1, at most 60 req/s.
    const double u = 0.05 + 0.25 * rng.Uniform();
    const double peak = std::min(60.0, u * 1000 / one.total_ms());
    s.arrivals.kind = ArrivalKind::kPoisson;
    s.arrivals.diurnal_amplitude = std::round((0.3 + 0.4 * rng.Uniform()) * 100) / 100;
    s.arrivals.rate_rps = std::round(peak / (1 + s.arrivals.diurnal_amplitude) * 100) / 100;
    s.arrivals.peak_hour = std::round((10 + 10 * rng.Uniform()) * 10) / 10;
    s.start_s = 0;
    s.end_s = o.horizon_s;
    w.services.push_back(std::move(s));
  }
  static const char* kTrainModels[] = {"resnet50", "vgg16", "mobilenet_v2", "inception_v3",
                                       "bert"};
  static const int64_t kBatches[] = {16, 32, 64};
  double t = 0;
  for (int i = 0;; ++i) {
    t += rng.Exp(3600 / o.training_per_hour);
    if (t >= o.horizon_s) break;
    TrainingJob j;
    j.model = kTrainModels[rng.Below(std::size(kTrainModels))];
    j.name = fmt::format("train{:03d}-{}", i, j.model);
    j.batch = kBatches[rng.Below(3)];
    j.seq = j.model == std::string("bert") ? 128 : 0;
    j.arrival_s = std::round(t);
    const double life = lifetimes[rng.Below(static_cast<int64_t>(lifetimes.size()))];
    j.duration_s = std::clamp(life, o.min_duration_s, o.max_duration_s);
    j.gpu_util = std::round((0.3 + 0.7 * rng.Uniform()) * 100) / 100;
    w.training.push_back(std::move(j));
  }
  return w;
}

}  // namespace frugal::share
