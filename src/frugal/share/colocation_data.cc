#include "frugal/share/colocation_data.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <tuple>

#include "frugal/base/csv_table.h"
#include "frugal/base/file_io.h"

namespace frugal::share {
namespace {

// "('ResNet-18 (batch size 16)', 1)" -> name, scale.
bool ParseGavelKey(const std::string& key, std::string* name, int* scale) {
  if (key.size() < 7 || key.compare(0, 2, "('") != 0 || key.back() != ')')
    return false;
  const size_t q = key.rfind("', ");
  if (q == std::string::npos || q < 2) return false;
  *name = key.substr(2, q - 2);
  const std::string s = key.substr(q + 3, key.size() - q - 4);
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *scale);
  return ec == std::errc() && p == s.data() + s.size() && *scale > 0 &&
         !name->empty();
}

// "ResNet-18 (batch size 16)" -> family "ResNet-18", batch 16; no batch: 1.
ColoJob GavelJob(const std::string& name, double solo) {
  ColoJob j;
  j.model = name;
  j.family = name;
  j.batch = 1;
  j.solo_tput = solo;
  const std::string tag = " (batch size ";
  const size_t p = name.find(tag);
  if (p != std::string::npos && name.back() == ')') {
    j.family = name.substr(0, p);
    const std::string b =
        name.substr(p + tag.size(), name.size() - p - tag.size() - 1);
    double v = 0;
    const auto [e, ec] = std::from_chars(b.data(), b.data() + b.size(), v);
    if (ec == std::errc() && e == b.data() + b.size() && v > 0) j.batch = v;
  }
  return j;
}

bool FiniteNonNegative(const nlohmann::json& v) {
  return v.is_number() && std::isfinite(v.get<double>()) &&
         v.get<double>() >= 0;
}

// Indices of `names` in the table's header; ParseCsvTable checked that
// every one is there.
std::vector<int> Columns(const CsvTable& csv, const std::vector<std::string>& names) {
  std::vector<int> idx;
  for (const std::string& n : names) idx.push_back(csv.Column(n));
  return idx;
}

Result<double> Number(std::string_view s, const std::string& path, int line,
                      const std::string& column) {
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() ||
      !std::isfinite(v)) {
    return InvalidArgument(fmt::format(
        "{}:{}: {} '{}' is not a finite number", path, line, column, s));
  }
  if (v < 0) {
    return InvalidArgument(
        fmt::format("{}:{}: {} {} is negative", path, line, column, v));
  }
  return v;
}

// Lucid jobs are keyed by (model, dataset, batch, amp).
using LucidKey = std::tuple<std::string, std::string, std::string, std::string>;

}  // namespace

const char* GavelCatalogGpu(const std::string& key) {
  if (key == "k80") return "K80";
  if (key == "p100") return "P100-PCIE-16GB";
  if (key == "v100") return "V100-SXM2-16GB";
  return nullptr;
}

Result<ColoDataset> ParseGavel(const std::string& text, const std::string& path,
                               const std::string& gpu) {
  if (!gpu.empty() && GavelCatalogGpu(gpu) == nullptr) {
    return InvalidArgument(
        fmt::format("unknown Gavel GPU '{}' (k80, p100, v100)", gpu));
  }
  FRUGAL_ASSIGN_OR_RETURN(nlohmann::json d, ParseJson(text, path));
  if (!d.is_object())
    return InvalidArgument(fmt::format("{}: expected a JSON object", path));
  ColoDataset out;
  out.source = path;
  for (const char* g : kGavelGpus) {
    if (!gpu.empty() && gpu != g) continue;
    if (!d.contains(g))
      return InvalidArgument(fmt::format("{}: no \"{}\" entry", path, g));
    const nlohmann::json& jobs = d[g];
    if (!jobs.is_object())
      return InvalidArgument(
          fmt::format("{}: \"{}\" is not an object", path, g));
    // Solo throughputs first: pair entries name the other job's key.
    std::map<std::string, ColoJob> solo;
    std::set<std::string> did_not_run;
    for (const auto& [key, v] : jobs.items()) {
      std::string name;
      int scale = 0;
      if (!ParseGavelKey(key, &name, &scale)) {
        return InvalidArgument(fmt::format(
            "{}: {}: key \"{}\" is not ('Name', scale)", path, g, key));
      }
      if (!v.is_object() || !v.contains("null")) {
        return InvalidArgument(fmt::format(
            "{}: {}: {}: no solo (\"null\") throughput", path, g, key));
      }
      const nlohmann::json& s = v["null"];
      if (!FiniteNonNegative(s)) {
        return InvalidArgument(fmt::format(
            "{}: {}: {}: solo throughput {} is not a finite number >= 0", path,
            g, key, s.dump()));
      }
      // 0 alone: the configuration did not run on this GPU (out of memory).
      if (s.get<double>() == 0) {
        did_not_run.insert(key);
      } else if (scale == 1) {
        solo[key] = GavelJob(name, s.get<double>());
      }
    }
    for (const auto& [key, v] : jobs.items()) {
      const auto self = solo.find(key);
      for (const auto& [other, t] : v.items()) {
        if (other == "null") continue;
        if (!t.is_array() || t.size() != 2 || !FiniteNonNegative(t[0]) ||
            !FiniteNonNegative(t[1])) {
          return InvalidArgument(
              fmt::format("{}: {}: {} next to {}: expected two finite "
                          "throughputs >= 0, got {}",
                          path, g, key, other, t.dump()));
        }
        if (self == solo.end())
          continue;  // multi-GPU jobs: no sharing measured
        const auto o = solo.find(other);
        if (o == solo.end() && did_not_run.count(other) > 0) {
          ++out.infeasible[g];
          continue;
        }
        if (o == solo.end()) {
          std::string name;
          int scale = 0;
          if (ParseGavelKey(other, &name, &scale) && scale > 1) continue;
          return InvalidArgument(
              fmt::format("{}: {}: {} next to {}: no solo throughput for it",
                          path, g, key, other));
        }
        const double a = t[0].get<double>(), b = t[1].get<double>();
        if (a == 0 && b == 0) {
          ++out.infeasible[g];
          continue;
        }
        if (a == self->second.solo_tput && b == o->second.solo_tput) {
          ++out.equal_solo[g];
          continue;
        }
        if (!(a / self->second.solo_tput <= kMaxNormTput)) {
          return InvalidArgument(fmt::format(
              "{}: {}: {} next to {}: co-located throughput {} is more than {}x its solo {}", path, g,
              key, other, a, kMaxNormTput, self->second.solo_tput));
        }
        ColoSample s;
        s.self = self->second;
        s.other = o->second;
        s.gpu = g;
        s.norm_tput = a / self->second.solo_tput;
        out.samples.push_back(std::move(s));
      }
    }
    out.infeasible.try_emplace(g, 0);
    out.equal_solo.try_emplace(g, 0);
  }
  return out;
}

Result<ColoDataset> ReadGavel(const std::string& path, const std::string& gpu) {
  if (!gpu.empty() && GavelCatalogGpu(gpu) == nullptr) {
    return InvalidArgument(
        fmt::format("unknown Gavel GPU '{}' (k80, p100, v100)", gpu));
  }
  FRUGAL_ASSIGN_OR_RETURN(std::string text,
                          ReadFileToString(path, int64_t{256} << 20));
  return ParseGavel(text, path, gpu);
}

Result<ColoDataset> ParseLucid(const std::string& colocate_csv,
                               const std::string& single_csv,
                               const std::string& colocate_path,
                               const std::string& single_path) {
  const std::vector<std::string> single_cols = {"model", "dataset", "batchsize", "amp",
                                                "speed", "gpu_util", "gmem"};
  FRUGAL_ASSIGN_OR_RETURN(CsvTable single, ParseCsvTable(single_csv, single_path, single_cols));
  const std::vector<int> sc = Columns(single, single_cols);
  std::map<LucidKey, ColoJob> jobs;
  for (size_t r = 0; r < single.rows.size(); ++r) {
    const auto& f = single.rows[r].fields;
    const int line = single.rows[r].line;
    FRUGAL_ASSIGN_OR_RETURN(double batch,
                            Number(f[sc[2]], single_path, line, "batchsize"));
    FRUGAL_ASSIGN_OR_RETURN(double amp,
                            Number(f[sc[3]], single_path, line, "amp"));
    FRUGAL_ASSIGN_OR_RETURN(double speed,
                            Number(f[sc[4]], single_path, line, "speed"));
    FRUGAL_ASSIGN_OR_RETURN(double util,
                            Number(f[sc[5]], single_path, line, "gpu_util"));
    FRUGAL_ASSIGN_OR_RETURN(double gmem,
                            Number(f[sc[6]], single_path, line, "gmem"));
    if (f[sc[0]].empty()) {
      return InvalidArgument(
          fmt::format("{}:{}: empty model", single_path, line));
    }
    if (batch <= 0 || speed <= 0) {
      return InvalidArgument(fmt::format(
          "{}:{}: batchsize and speed must be > 0", single_path, line));
    }
    if (util > 100 || (amp != 0 && amp != 1)) {
      return InvalidArgument(
          fmt::format("{}:{}: gpu_util must be <= 100 and amp 0 or 1",
                      single_path, line));
    }
    ColoJob j;
    j.family = std::string(f[sc[0]]);
    j.model = j.family;
    j.batch = batch;
    j.solo_tput = speed;
    j.gpu_util = util;
    j.mem_gib = gmem / 1024.0;
    j.amp = amp != 0;
    jobs[{std::string(f[sc[0]]), std::string(f[sc[1]]), std::string(f[sc[2]]),
          std::string(f[sc[3]])}] = j;
  }
  const std::vector<std::string> colo_cols = {"model1", "dataset1", "batchsize1", "amp1",
                                              "speed1", "model2", "dataset2", "batchsize2",
                                              "amp2", "speed2"};
  FRUGAL_ASSIGN_OR_RETURN(CsvTable colo, ParseCsvTable(colocate_csv, colocate_path, colo_cols));
  const std::vector<int> cc = Columns(colo, colo_cols);
  ColoDataset out;
  out.source = colocate_path + " + " + single_path;
  for (size_t r = 0; r < colo.rows.size(); ++r) {
    const auto& f = colo.rows[r].fields;
    const int line = colo.rows[r].line;
    const ColoJob* pair[2] = {nullptr, nullptr};
    double speed[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      const int o = k * 5;
      const LucidKey key{std::string(f[cc[o]]), std::string(f[cc[o + 1]]),
                         std::string(f[cc[o + 2]]), std::string(f[cc[o + 3]])};
      const auto it = jobs.find(key);
      if (it == jobs.end()) {
        return InvalidArgument(fmt::format(
            "{}:{}: job {} {} batch {} amp {} has no row in {}",
            colocate_path, line, f[cc[o]], f[cc[o + 1]], f[cc[o + 2]],
            f[cc[o + 3]], single_path));
      }
      pair[k] = &it->second;
      FRUGAL_ASSIGN_OR_RETURN(speed[k],
                              Number(f[cc[o + 4]], colocate_path, line,
                                     k == 0 ? "speed1" : "speed2"));
      if (speed[k] > kMaxNormTput) {
        return InvalidArgument(fmt::format("{}:{}: {} {} is more than {}x the solo speed", colocate_path,
                                           line, k == 0 ? "speed1" : "speed2", speed[k], kMaxNormTput));
      }
    }
    for (int k = 0; k < 2; ++k) {
      ColoSample s;
      s.self = *pair[k];
      s.other = *pair[1 - k];
      s.norm_tput = speed[k];
      out.samples.push_back(std::move(s));
    }
  }
  out.infeasible[""] = 0;
  out.equal_solo[""] = 0;
  return out;
}

Result<ColoDataset> ReadLucid(const std::string& dir) {
  const std::string colo = dir + "/colocate_info.csv";
  const std::string single = dir + "/single_data.csv";
  FRUGAL_ASSIGN_OR_RETURN(std::string c,
                          ReadFileToString(colo, int64_t{256} << 20));
  FRUGAL_ASSIGN_OR_RETURN(std::string s,
                          ReadFileToString(single, int64_t{256} << 20));
  return ParseLucid(c, s, colo, single);
}

namespace {
std::string ShareDataDir() {
  const char* env = std::getenv("FRUGAL_SHARE_DATA");
  return env != nullptr && *env != '\0' ? env : SharedDataDir() + "/share";
}
}  // namespace

std::string DefaultGavelPath() {
  return ShareDataDir() + "/gavel/simulation_throughputs.json";
}
std::string DefaultLucidDir() { return ShareDataDir() + "/lucid"; }

}  // namespace frugal::share
