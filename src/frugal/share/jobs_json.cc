#include "frugal/share/jobs_json.h"

#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "frugal/base/file_io.h"

namespace frugal::share {
namespace {
namespace fs = std::filesystem;
constexpr double kMaxTimeS = 365 * 86400.0;
constexpr size_t kMaxServices = 1000;
constexpr size_t kMaxTraining = 20000;
using nlohmann::json;

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  Status Error(const std::string& where, const std::string& what) const {
    return InvalidArgument(fmt::format("{}: {}: {}", path_, where, what));
  }

  Status Keys(const json& j, const std::string& where, std::set<std::string> allowed) const {
    if (!j.is_object()) return Error(where, "expected an object");
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!allowed.count(it.key())) {
        std::string names;
        for (const auto& a : allowed) names += (names.empty() ? "" : ", ") + a;
        return Error(where + "." + it.key(), "unknown field (expected " + names + ")");
      }
    }
    return Status::Ok();
  }

  Status Number(const json& j, const std::string& where, const char* key, double lo,
                bool required, double* out) const {
    if (!j.contains(key)) {
      return required ? Error(where, std::string("missing field '") + key + "'") : Status::Ok();
    }
    const json& v = j.at(key);
    const std::string w = where + "." + key;
    if (!v.is_number()) return Error(w, "expected a number");
    const double x = v.get<double>();
    if (!std::isfinite(x)) return Error(w, "not finite");
    if (x < lo) return Error(w, fmt::format("must be >= {}, got {}", lo, x));
    *out = x;
    return Status::Ok();
  }

  Status Int(const json& j, const std::string& where, const char* key, int64_t lo, int64_t hi,
             bool required, int64_t* out) const {
    if (!j.contains(key)) {
      return required ? Error(where, std::string("missing field '") + key + "'") : Status::Ok();
    }
    const json& v = j.at(key);
    const std::string w = where + "." + key;
    if (!v.is_number_integer()) return Error(w, "expected an integer");
    const int64_t x = v.get<int64_t>();
    if (x < lo || x > hi) return Error(w, fmt::format("must be in [{}, {}], got {}", lo, hi, x));
    *out = x;
    return Status::Ok();
  }

  Status String(const json& j, const std::string& where, const char* key, bool required,
                std::string* out) const {
    if (!j.contains(key)) {
      return required ? Error(where, std::string("missing field '") + key + "'") : Status::Ok();
    }
    if (!j.at(key).is_string() || j.at(key).get<std::string>().empty()) {
      return Error(where + "." + key, "expected a non-empty string");
    }
    *out = j.at(key).get<std::string>();
    return Status::Ok();
  }

  // A relative file is taken from the JOBS.json folder when it is not in
  // the working directory.
  std::string Anchor(const std::string& p) const {
    std::error_code ec;
    if (fs::path(p).is_absolute() || fs::exists(p, ec)) return p;
    const fs::path rel = fs::path(path_).parent_path() / p;
    return fs::exists(rel, ec) ? rel.string() : p;
  }

  Status Arrivals(const json& j, const std::string& where, ArrivalSpec* a) const {
    if (!j.is_object()) return Error(where, "expected an object");
    std::string kind = "poisson";
    FRUGAL_RETURN_IF_ERROR(String(j, where, "kind", false, &kind));
    // Each kind takes its own fields: one of another kind is an error, not ignored.
    if (kind == "poisson") {
      a->kind = ArrivalKind::kPoisson;
      FRUGAL_RETURN_IF_ERROR(Keys(j, where, {"kind", "rate_rps", "diurnal_amplitude", "peak_hour"}));
    } else if (kind == "bursty") {
      a->kind = ArrivalKind::kBursty;
      FRUGAL_RETURN_IF_ERROR(Keys(j, where, {"kind", "rate_rps", "diurnal_amplitude", "peak_hour",
                                             "on_s", "off_s"}));
    } else if (kind == "trace") {
      a->kind = ArrivalKind::kTrace;
      FRUGAL_RETURN_IF_ERROR(Keys(j, where, {"kind", "file"}));
    } else {
      return Error(where + ".kind", "unknown kind '" + kind + "' (poisson, bursty, trace)");
    }
    if (a->kind == ArrivalKind::kTrace) {
      FRUGAL_RETURN_IF_ERROR(String(j, where, "file", true, &a->file));
      a->file = Anchor(a->file);
      return ReadTimes(a);
    }
    FRUGAL_RETURN_IF_ERROR(Number(j, where, "rate_rps", 0, true, &a->rate_rps));
    if (a->rate_rps > 1e5) return Error(where + ".rate_rps", "above 100000 req/s");
    FRUGAL_RETURN_IF_ERROR(Number(j, where, "diurnal_amplitude", 0, false, &a->diurnal_amplitude));
    if (a->diurnal_amplitude >= 1) return Error(where + ".diurnal_amplitude", "must be < 1");
    FRUGAL_RETURN_IF_ERROR(Number(j, where, "peak_hour", 0, false, &a->peak_hour));
    if (a->peak_hour >= 24) return Error(where + ".peak_hour", "must be < 24");
    if (a->kind == ArrivalKind::kBursty) {
      FRUGAL_RETURN_IF_ERROR(Number(j, where, "on_s", 1e-3, true, &a->on_s));
      FRUGAL_RETURN_IF_ERROR(Number(j, where, "off_s", 0, true, &a->off_s));
    }
    return Status::Ok();
  }

  Status ReadTimes(ArrivalSpec* a) const {
    Result<std::string> text = ReadFileToString(a->file);
    if (!text.ok()) return text.status().WithPrefix(path_);
    std::istringstream in(*text);
    std::string line;
    int64_t n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (line.empty() || line[0] == '#') continue;
      size_t used = 0;
      double t = 0;
      try {
        t = std::stod(line, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      while (used < line.size() && std::isspace(static_cast<unsigned char>(line[used]))) ++used;
      if (used == 0 || used != line.size() || !std::isfinite(t)) {
        return InvalidArgument(fmt::format("{}:{}: expected a timestamp in seconds", a->file, n));
      }
      if (t < 0) return InvalidArgument(fmt::format("{}:{}: negative timestamp", a->file, n));
      if (!a->times_s.empty() && t < a->times_s.back()) {
        return InvalidArgument(fmt::format("{}:{}: timestamps must be ascending", a->file, n));
      }
      a->times_s.push_back(t);
    }
    if (a->times_s.empty()) return InvalidArgument(a->file + ": no timestamps");
    return Status::Ok();
  }

  std::string Model(const std::string& m) const {
    return m.find('/') != std::string::npos || m.find('.') != std::string::npos ? Anchor(m) : m;
  }

 private:
  std::string path_;
};

int64_t LineOf(std::string_view text, size_t byte) {
  int64_t line = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i) line += text[i] == '\n';
  return line;
}

}  // namespace

Result<Workload> ParseJobsJson(std::string_view text, const std::string& path) {
  size_t error_byte = 0;
  Result<json> parsed = ParseJson(std::string(text), path, &error_byte);
  if (!parsed.ok() && error_byte > 0) {
    return InvalidArgument(fmt::format("{}:{}: malformed JSON (byte {})", path,
                                       LineOf(text, error_byte - 1), error_byte));
  }
  if (!parsed.ok()) return parsed.status();
  json j = std::move(*parsed);
  Reader r(path);
  FRUGAL_RETURN_IF_ERROR(r.Keys(j, "$", {"format", "version", "horizon_s", "services", "training"}));
  if (j.contains("format") && j["format"] != kJobsFormat) {
    return r.Error("$.format", std::string("expected \"") + kJobsFormat + "\"");
  }
  if (j.contains("version") && j["version"] != 1) return r.Error("$.version", "expected 1 (the only version)");
  Workload w;
  FRUGAL_RETURN_IF_ERROR(r.Number(j, "$", "horizon_s", 1, false, &w.horizon_s));
  if (w.horizon_s > kMaxTimeS) return r.Error("$.horizon_s", "above a year (31536000 s)");
  std::set<std::string> names;
  if (j.contains("services")) {
    if (!j["services"].is_array()) return r.Error("$.services", "expected an array");
    if (j["services"].size() > kMaxServices) {
      return r.Error("$.services", fmt::format("more than {} services", kMaxServices));
    }
    for (size_t i = 0; i < j["services"].size(); ++i) {
      const json& s = j["services"][i];
      const std::string where = fmt::format("$.services[{}]", i);
      FRUGAL_RETURN_IF_ERROR(r.Keys(s, where, {"name", "model", "seq", "batch_sizes",
                                              "max_queue_delay_ms", "slo_p99_ms", "arrivals",
                                              "start_s", "end_s"}));
      InferenceService v;
      FRUGAL_RETURN_IF_ERROR(r.String(s, where, "name", true, &v.name));
      FRUGAL_RETURN_IF_ERROR(r.String(s, where, "model", true, &v.model));
      v.model = r.Model(v.model);
      FRUGAL_RETURN_IF_ERROR(r.Int(s, where, "seq", 1, 1 << 20, false, &v.seq));
      if (s.contains("batch_sizes")) {
        const json& b = s["batch_sizes"];
        if (!b.is_array() || b.empty()) {
          return r.Error(where + ".batch_sizes", "expected a non-empty array");
        }
        v.batch_sizes.clear();
        for (size_t k = 0; k < b.size(); ++k) {
          const std::string bw = fmt::format("{}.batch_sizes[{}]", where, k);
          if (!b[k].is_number_integer() || b[k].get<int64_t>() < 1 || b[k].get<int64_t>() > 4096) {
            return r.Error(bw, "expected an integer in [1, 4096]");
          }
          if (!v.batch_sizes.empty() && b[k].get<int64_t>() <= v.batch_sizes.back()) {
            return r.Error(bw, "batch sizes must be ascending");
          }
          v.batch_sizes.push_back(b[k].get<int64_t>());
        }
      }
      FRUGAL_RETURN_IF_ERROR(r.Number(s, where, "max_queue_delay_ms", 0, false, &v.max_queue_delay_ms));
      FRUGAL_RETURN_IF_ERROR(r.Number(s, where, "slo_p99_ms", 0, true, &v.slo_p99_ms));
      if (v.slo_p99_ms <= 0) return r.Error(where + ".slo_p99_ms", "must be > 0");
      if (v.max_queue_delay_ms > kMaxTimeS * 1e3) {
        return r.Error(where + ".max_queue_delay_ms", "above a year (31536000000 ms)");
      }
      if (!s.contains("arrivals")) return r.Error(where, "missing field 'arrivals'");
      FRUGAL_RETURN_IF_ERROR(r.Arrivals(s["arrivals"], where + ".arrivals", &v.arrivals));
      v.end_s = w.horizon_s;
      FRUGAL_RETURN_IF_ERROR(r.Number(s, where, "start_s", 0, false, &v.start_s));
      FRUGAL_RETURN_IF_ERROR(r.Number(s, where, "end_s", 0, false, &v.end_s));
      if (v.end_s <= v.start_s) return r.Error(where + ".end_s", "must be after start_s");
      if (v.end_s > kMaxTimeS) return r.Error(where + ".end_s", "above a year (31536000 s)");
      if (v.start_s >= w.horizon_s) {
        return r.Error(where + ".start_s",
                       fmt::format("at or after horizon_s ({:g} s): the service would never run",
                                   w.horizon_s));
      }
      // Services end at the horizon at the latest.
      v.end_s = std::min(v.end_s, w.horizon_s);
      if (!names.insert(v.name).second) return r.Error(where + ".name", "duplicate name '" + v.name + "'");
      w.services.push_back(std::move(v));
    }
  }
  if (j.contains("training")) {
    if (!j["training"].is_array()) return r.Error("$.training", "expected an array");
    if (j["training"].size() > kMaxTraining) {
      return r.Error("$.training", fmt::format("more than {} training jobs", kMaxTraining));
    }
    for (size_t i = 0; i < j["training"].size(); ++i) {
      const json& t = j["training"][i];
      const std::string where = fmt::format("$.training[{}]", i);
      FRUGAL_RETURN_IF_ERROR(r.Keys(t, where, {"name", "model", "batch", "seq", "arrival_s",
                                              "duration_s", "gpu_util"}));
      TrainingJob v;
      FRUGAL_RETURN_IF_ERROR(r.String(t, where, "name", true, &v.name));
      FRUGAL_RETURN_IF_ERROR(r.String(t, where, "model", true, &v.model));
      v.model = r.Model(v.model);
      FRUGAL_RETURN_IF_ERROR(r.Int(t, where, "batch", 1, 1 << 16, true, &v.batch));
      FRUGAL_RETURN_IF_ERROR(r.Int(t, where, "seq", 1, 1 << 20, false, &v.seq));
      FRUGAL_RETURN_IF_ERROR(r.Number(t, where, "arrival_s", 0, false, &v.arrival_s));
      FRUGAL_RETURN_IF_ERROR(r.Number(t, where, "duration_s", 0, true, &v.duration_s));
      if (v.duration_s <= 0) return r.Error(where + ".duration_s", "must be > 0");
      if (v.duration_s > kMaxTimeS || v.arrival_s > kMaxTimeS) {
        return r.Error(where, "arrival_s and duration_s must be at most a year (31536000 s)");
      }
      FRUGAL_RETURN_IF_ERROR(r.Number(t, where, "gpu_util", 0, false, &v.gpu_util));
      if (v.gpu_util <= 0 || v.gpu_util > 1) return r.Error(where + ".gpu_util", "must be in (0, 1]");
      if (!names.insert(v.name).second) return r.Error(where + ".name", "duplicate name '" + v.name + "'");
      w.training.push_back(std::move(v));
    }
  }
  if (w.services.empty() && w.training.empty()) return r.Error("$", "no services and no training jobs");
  return w;
}

Result<Workload> ReadJobsJson(const std::string& path) {
  FRUGAL_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseJobsJson(text, path);
}

json JobsToJson(const Workload& w) {
  json services = json::array(), training = json::array();
  for (const InferenceService& s : w.services) {
    json a = {{"kind", ArrivalKindName(s.arrivals.kind)}};
    if (s.arrivals.kind == ArrivalKind::kTrace) {
      a["file"] = s.arrivals.file;
    } else {
      a["rate_rps"] = s.arrivals.rate_rps;
      if (s.arrivals.kind == ArrivalKind::kPoisson) {
        a["diurnal_amplitude"] = s.arrivals.diurnal_amplitude;
        a["peak_hour"] = s.arrivals.peak_hour;
      } else {
        a["on_s"] = s.arrivals.on_s;
        a["off_s"] = s.arrivals.off_s;
      }
    }
    json o = {{"name", s.name}, {"model", s.model}};
    if (s.seq > 0) o["seq"] = s.seq;
    o["batch_sizes"] = s.batch_sizes;
    o["max_queue_delay_ms"] = s.max_queue_delay_ms;
    o["slo_p99_ms"] = s.slo_p99_ms;
    o["arrivals"] = a;
    o["start_s"] = s.start_s;
    o["end_s"] = s.end_s;
    services.push_back(std::move(o));
  }
  for (const TrainingJob& t : w.training) {
    json o = {{"name", t.name}, {"model", t.model}, {"batch", t.batch}};
    if (t.seq > 0) o["seq"] = t.seq;
    o["arrival_s"] = t.arrival_s;
    o["duration_s"] = t.duration_s;
    o["gpu_util"] = t.gpu_util;
    training.push_back(std::move(o));
  }
  return {{"format", kJobsFormat}, {"version", 1}, {"horizon_s", w.horizon_s},
          {"services", std::move(services)}, {"training", std::move(training)}};
}

}  // namespace frugal::share
