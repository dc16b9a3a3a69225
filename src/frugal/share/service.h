// Inference services and their request arrivals. A service serves one model
// at a set of allowed batch sizes with dynamic batching (max batch, max
// queueing delay) and has a p99 latency SLO. Arrivals are Poisson with an
// optional diurnal rate, bursty on/off (a two-state process with exponential
// on and off periods, Poisson at rate_rps while on), or a file of
// timestamps. Generation is deterministic for a seed (splitmix64, the same
// stream on every platform). Values; thread-compatible.
#ifndef FRUGAL_SHARE_SERVICE_H_
#define FRUGAL_SHARE_SERVICE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "frugal/base/rng.h"
#include "frugal/base/status.h"

namespace frugal::share {

enum class ArrivalKind { kPoisson, kBursty, kTrace };
const char* ArrivalKindName(ArrivalKind k);  // poisson, bursty, trace

struct ArrivalSpec {
  ArrivalKind kind = ArrivalKind::kPoisson;
  double rate_rps = 10;  // poisson: mean rate; bursty: rate while on
  // poisson: rate(t) = rate_rps * (1 + amplitude * cos(2 pi (t - peak) / day)),
  // peak at peak_hour. REQUIRES: 0 <= amplitude < 1.
  double diurnal_amplitude = 0;
  double peak_hour = 14;
  double on_s = 10;   // bursty: mean on period
  double off_s = 30;  // bursty: mean off period
  std::string file;   // trace: one timestamp (s, ascending) per line
  std::vector<double> times_s;  // trace: the timestamps, read by jobs_json
};

// The instantaneous rate at time t, requests/s (trace: its mean rate).
double RateAt(const ArrivalSpec& a, double t_s);
// The highest rate over [from_s, to_s) (bursty: the on rate).
double PeakRate(const ArrivalSpec& a, double from_s, double to_s);
// The mean rate over [from_s, to_s).
double MeanRate(const ArrivalSpec& a, double from_s, double to_s);

// Arrival times in [from_s, to_s), ascending. At most max_requests.
std::vector<double> GenerateArrivals(const ArrivalSpec& a, double from_s, double to_s,
                                     uint64_t seed, int64_t max_requests = 50'000'000);

struct InferenceService {
  std::string name;
  std::string model;  // bundled model name (resnet50, bert, ...) or a path
  int64_t seq = 0;    // HF models: sequence length (0: the model's own)
  std::vector<int64_t> batch_sizes{1, 2, 4, 8, 16, 32};  // ascending
  double max_queue_delay_ms = 5;  // the batcher waits at most this for a fuller batch
  double slo_p99_ms = 50;
  ArrivalSpec arrivals;
  double start_s = 0;
  double end_s = 86400;
  int64_t max_batch() const { return batch_sizes.empty() ? 1 : batch_sizes.back(); }
};

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_SERVICE_H_
