#include "frugal/share/pod_trace.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "frugal/base/csv_table.h"

namespace frugal::share {
namespace {

constexpr int64_t kMaxTimeS = int64_t{1} << 40;

Result<int64_t> OptionalTime(const CsvTable& t, const CsvTable::Row& row, int col,
                             std::string_view column) {
  if (col < 0 || row.fields[col].empty()) return int64_t{-1};
  return ParseIntField(t, row, col, column, 0, kMaxTimeS);
}

Result<Qos> ParseQos(const CsvTable& t, const CsvTable::Row& row, int col) {
  if (col < 0) return Qos::kUnknown;
  const std::string_view q = row.fields[col];
  if (q.empty()) return Qos::kUnknown;
  if (q == "LS") return Qos::kLs;
  if (q == "BE") return Qos::kBe;
  if (q == "Burstable") return Qos::kBurstable;
  if (q == "Guaranteed") return Qos::kGuaranteed;
  return InvalidArgument(t.Where(row.line) + "unknown qos '" + std::string(q.substr(0, 40)) +
                         "' (LS, BE, Burstable, Guaranteed)");
}

}  // namespace

Result<std::vector<PodSpec>> ReadPodTrace(const std::string& path, GpuModelTable* models,
                                          const TraceReadOptions& options) {
  FRUGAL_ASSIGN_OR_RETURN(
      CsvTable t, ReadCsvTable(path, {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"}));
  const int name = t.Column("name"), cpu = t.Column("cpu_milli"), mem = t.Column("memory_mib");
  const int num = t.Column("num_gpu"), milli = t.Column("gpu_milli"), spec = t.Column("gpu_spec");
  const int qos = t.Column("qos"), phase = t.Column("pod_phase");
  const int created = t.Column("creation_time"), deleted = t.Column("deletion_time");
  const int scheduled = t.Column("scheduled_time");
  std::vector<PodSpec> pods;
  pods.reserve(t.rows.size());
  std::unordered_map<std::string, int> line_of;  // name -> first line
  for (const CsvTable::Row& row : t.rows) {
    PodSpec p;
    p.name = std::string(row.fields[name]);
    if (p.name.empty()) return InvalidArgument(t.Where(row.line) + "missing name");
    if (auto [it, fresh] = line_of.emplace(p.name, row.line); !fresh) {
      return InvalidArgument(t.Where(row.line) + "pod '" + p.name.substr(0, 40) +
                             "' is listed again (first on line " + std::to_string(it->second) + ")");
    }
    FRUGAL_ASSIGN_OR_RETURN(p.cpu_milli, ParseIntField(t, row, cpu, "cpu_milli", 0, int64_t{1} << 40));
    FRUGAL_ASSIGN_OR_RETURN(p.memory_mib, ParseIntField(t, row, mem, "memory_mib", 0, int64_t{1} << 40));
    FRUGAL_ASSIGN_OR_RETURN(int64_t n, ParseIntField(t, row, num, "num_gpu", 0, int64_t{1} << 40));
    if (n > kMaxGpusPerNode) {
      return InvalidArgument(t.Where(row.line) + "num_gpu " + std::to_string(n) +
                             " is absurd: a pod runs on one node, at most " +
                             std::to_string(kMaxGpusPerNode) + " GPUs");
    }
    FRUGAL_ASSIGN_OR_RETURN(int64_t m, ParseIntField(t, row, milli, "gpu_milli", 0, kMilliPerGpu));
    p.num_gpu = static_cast<int>(n);
    p.gpu_milli = static_cast<int>(m);
    if (p.num_gpu > 0 && p.gpu_milli == 0) {
      return InvalidArgument(t.Where(row.line) + "gpu_milli 0 with num_gpu " + std::to_string(n));
    }
    if (p.num_gpu == 0 && p.gpu_milli != 0) {
      return InvalidArgument(t.Where(row.line) + "gpu_milli " + std::to_string(m) + " with num_gpu 0");
    }
    if (p.num_gpu > 1 && p.gpu_milli < kMilliPerGpu) {
      return InvalidArgument(t.Where(row.line) + "gpu_milli " + std::to_string(m) + " on " +
                             std::to_string(n) + " GPUs: only a one-GPU pod may share a GPU");
    }
    if (spec >= 0 && !row.fields[spec].empty()) {
      p.gpu_spec = std::string(row.fields[spec]);
      std::string_view rest = row.fields[spec];
      while (true) {
        const size_t bar = rest.find('|');
        const std::string_view model = rest.substr(0, bar);
        if (model.empty()) {
          return InvalidArgument(t.Where(row.line) + "empty GPU model in gpu_spec '" +
                                 std::string(row.fields[spec].substr(0, 40)) + "'");
        }
        if (std::find(options.known_models.begin(), options.known_models.end(), model) ==
            options.known_models.end()) {
          return InvalidArgument(t.Where(row.line) + "unknown GPU model '" +
                                 std::string(model.substr(0, 40)) + "' in gpu_spec");
        }
        auto id = models->Intern(model);
        if (!id.ok()) return InvalidArgument(t.Where(row.line) + id.status().message());
        p.models |= ModelMask{1} << *id;
        if (bar == std::string_view::npos) break;
        rest.remove_prefix(bar + 1);
      }
    }
    FRUGAL_ASSIGN_OR_RETURN(p.qos, ParseQos(t, row, qos));
    if (phase >= 0) p.phase = std::string(row.fields[phase]);
    FRUGAL_ASSIGN_OR_RETURN(p.creation_time_s, OptionalTime(t, row, created, "creation_time"));
    FRUGAL_ASSIGN_OR_RETURN(p.deletion_time_s, OptionalTime(t, row, deleted, "deletion_time"));
    FRUGAL_ASSIGN_OR_RETURN(p.scheduled_time_s, OptionalTime(t, row, scheduled, "scheduled_time"));
    if (p.creation_time_s >= 0 && p.deletion_time_s >= 0 && p.deletion_time_s < p.creation_time_s) {
      return InvalidArgument(t.Where(row.line) + "deletion_time " + std::to_string(p.deletion_time_s) +
                             " is before creation_time " + std::to_string(p.creation_time_s));
    }
    pods.push_back(std::move(p));
  }
  if (pods.empty()) return InvalidArgument(path + ": no pods");
  return pods;
}

}  // namespace frugal::share
