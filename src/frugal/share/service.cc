#include "frugal/share/service.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace frugal::share {

const char* ArrivalKindName(ArrivalKind k) {
  switch (k) {
    case ArrivalKind::kPoisson: return "poisson";
    case ArrivalKind::kBursty: return "bursty";
    case ArrivalKind::kTrace: return "trace";
  }
  return "?";
}

namespace {
constexpr double kDay = 86400;

double TraceMean(const ArrivalSpec& a) {
  if (a.times_s.size() < 2) return 0;
  const double span = a.times_s.back() - a.times_s.front();
  return span > 0 ? (a.times_s.size() - 1) / span : 0;
}
}  // namespace

double RateAt(const ArrivalSpec& a, double t) {
  switch (a.kind) {
    case ArrivalKind::kPoisson:
      return a.rate_rps * (1 + a.diurnal_amplitude *
                                   std::cos(2 * std::numbers::pi * (t - a.peak_hour * 3600) / kDay));
    case ArrivalKind::kBursty:
      return a.rate_rps * a.on_s / (a.on_s + a.off_s);
    case ArrivalKind::kTrace:
      return TraceMean(a);
  }
  return 0;
}

double PeakRate(const ArrivalSpec& a, double from, double to) {
  switch (a.kind) {
    case ArrivalKind::kPoisson: {
      if (a.diurnal_amplitude == 0) return a.rate_rps;
      double peak = std::max(RateAt(a, from), RateAt(a, to));
      // The daily maximum lies inside the window when a peak time does.
      const double p0 = a.peak_hour * 3600;
      for (double k = std::floor((from - p0) / kDay); p0 + k * kDay < to; ++k) {
        if (p0 + k * kDay >= from) peak = a.rate_rps * (1 + a.diurnal_amplitude);
      }
      return peak;
    }
    case ArrivalKind::kBursty:
      return a.rate_rps;
    case ArrivalKind::kTrace: {
      // The busiest 10 s window.
      double best = 0;
      size_t j = 0;
      for (size_t i = 0; i < a.times_s.size(); ++i) {
        while (a.times_s[i] - a.times_s[j] > 10) ++j;
        best = std::max(best, static_cast<double>(i - j + 1) / 10);
      }
      return best;
    }
  }
  return 0;
}

double MeanRate(const ArrivalSpec& a, double from, double to) {
  if (a.kind != ArrivalKind::kPoisson || a.diurnal_amplitude == 0 || to <= from) {
    return RateAt(a, from);
  }
  const double w = 2 * std::numbers::pi / kDay, p0 = a.peak_hour * 3600;
  const double integral = (to - from) + a.diurnal_amplitude / w *
                                            (std::sin(w * (to - p0)) - std::sin(w * (from - p0)));
  return a.rate_rps * integral / (to - from);
}

std::vector<double> GenerateArrivals(const ArrivalSpec& a, double from, double to,
                                     uint64_t seed, int64_t max_requests) {
  std::vector<double> out;
  SplitMix64 rng(seed);
  switch (a.kind) {
    case ArrivalKind::kPoisson: {
      // Thinning against the peak rate.
      const double peak = PeakRate(a, from, to);
      if (peak <= 0) break;
      for (double t = from + rng.Exp(1 / peak); t < to; t += rng.Exp(1 / peak)) {
        if (a.diurnal_amplitude == 0 || rng.Uniform() * peak < RateAt(a, t)) {
          out.push_back(t);
          if (static_cast<int64_t>(out.size()) >= max_requests) break;
        }
      }
      break;
    }
    case ArrivalKind::kBursty: {
      if (a.rate_rps <= 0) break;
      double t = from;
      bool on = rng.Uniform() < a.on_s / (a.on_s + a.off_s);
      while (t < to && static_cast<int64_t>(out.size()) < max_requests) {
        const double end = std::min(to, t + rng.Exp(on ? a.on_s : a.off_s));
        if (on) {
          for (double x = t + rng.Exp(1 / a.rate_rps); x < end; x += rng.Exp(1 / a.rate_rps)) {
            out.push_back(x);
          }
        }
        t = end;
        on = !on;
      }
      break;
    }
    case ArrivalKind::kTrace:
      for (double x : a.times_s) {
        if (x >= from && x < to) out.push_back(x);
      }
      break;
  }
  if (static_cast<int64_t>(out.size()) > max_requests) out.resize(max_requests);
  return out;
}

}  // namespace frugal::share
