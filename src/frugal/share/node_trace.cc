#include "frugal/share/node_trace.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "frugal/base/csv_table.h"

namespace frugal::share {

Result<std::vector<NodeSpec>> ReadNodeList(const std::string& path, GpuModelTable* models,
                                           const TraceReadOptions& options) {
  FRUGAL_ASSIGN_OR_RETURN(CsvTable t,
                          ReadCsvTable(path, {"cpu_milli", "memory_mib", "gpu", "model"}));
  int name_col = t.Column("sn");
  if (name_col < 0) name_col = t.Column("name");
  const int cpu = t.Column("cpu_milli"), mem = t.Column("memory_mib");
  const int gpu = t.Column("gpu"), model = t.Column("model");
  std::vector<NodeSpec> nodes;
  nodes.reserve(t.rows.size());
  std::unordered_map<std::string, int> line_of;  // name -> first line
  for (const CsvTable::Row& row : t.rows) {
    NodeSpec n;
    n.name = name_col >= 0 ? std::string(row.fields[name_col])
                           : "node-" + std::to_string(nodes.size());
    if (auto [it, fresh] = line_of.emplace(n.name, row.line); !fresh) {
      return InvalidArgument(t.Where(row.line) + "node '" + n.name.substr(0, 40) +
                             "' is listed again (first on line " + std::to_string(it->second) + ")");
    }
    FRUGAL_ASSIGN_OR_RETURN(n.cpu_milli, ParseIntField(t, row, cpu, "cpu_milli", 0, int64_t{1} << 40));
    FRUGAL_ASSIGN_OR_RETURN(n.memory_mib, ParseIntField(t, row, mem, "memory_mib", 0, int64_t{1} << 40));
    FRUGAL_ASSIGN_OR_RETURN(int64_t g, ParseIntField(t, row, gpu, "gpu", 0, 1 << 20));
    if (g > kMaxGpusPerNode) {
      return InvalidArgument(t.Where(row.line) + "gpu " + std::to_string(g) + ": at most " +
                             std::to_string(kMaxGpusPerNode) + " GPUs per node");
    }
    n.num_gpus = static_cast<int>(g);
    const std::string_view m = row.fields[model];
    if (n.num_gpus > 0) {
      if (m.empty()) return InvalidArgument(t.Where(row.line) + "missing model of a GPU node");
      if (std::find(options.known_models.begin(), options.known_models.end(), m) ==
          options.known_models.end()) {
        return InvalidArgument(t.Where(row.line) + "unknown GPU model '" + std::string(m) + "'");
      }
      auto id = models->Intern(m);
      if (!id.ok()) return InvalidArgument(t.Where(row.line) + id.status().message());
      n.model = *id;
    }
    nodes.push_back(std::move(n));
  }
  if (nodes.empty()) return InvalidArgument(path + ": no nodes");
  return nodes;
}

}  // namespace frugal::share
