#include "frugal/cache/breakdown.h"

#include <algorithm>
#include <unordered_map>

#include "frugal/cache/policies/path_features.h"

namespace frugal::cache {
namespace {

// Key values are interned in order of first appearance (PathInterner).
uint32_t Id(PathInterner& n, const std::string& name) { return static_cast<uint32_t>(n.Id(name)); }

Status ByStage(const RequestTrace& t, std::vector<uint32_t>* ids, std::vector<std::string>* names) {
  PathInterner n;
  std::vector<uint32_t> of_group(std::max<size_t>(t.groups.size(), 1));
  for (size_t g = 0; g < of_group.size(); ++g) {
    const StageGroup sg = g < t.groups.size() ? t.groups[g] : StageGroup{};
    of_group[g] = Id(n, sg.pipeline < 0 && sg.stage < 0
                            ? std::string("untagged")
                            : "pipeline " + std::to_string(sg.pipeline) + " stage " + std::to_string(sg.stage));
  }
  for (const Request& r : t.requests) ids->push_back(of_group[r.group < of_group.size() ? r.group : 0]);
  *names = n.Keys();
  return Status::Ok();
}

Status ByPattern(const RequestTrace& t, std::vector<uint32_t>* ids, std::vector<std::string>* names) {
  if (!t.has_paths) {
    return InvalidArgument(t.source + ": the trace has no file paths to group by pattern "
                           "(use --breakdown stage or day)");
  }
  PathInterner n;
  std::vector<uint32_t> of_object(t.objects.size());
  for (size_t i = 0; i < t.objects.size(); ++i) of_object[i] = Id(n, PathInterner::Pattern(t.objects[i].path));
  for (const Request& r : t.requests) ids->push_back(of_object[r.obj]);
  *names = n.Keys();
  return Status::Ok();
}

Status ByDay(const RequestTrace& t, std::vector<uint32_t>* ids, std::vector<std::string>* names) {
  PathInterner n;
  const int64_t start = t.requests.empty() ? 0 : t.requests.front().time_us;
  constexpr int64_t kDayUs = 86400LL * 1000000;
  for (const Request& r : t.requests) ids->push_back(Id(n, "day " + std::to_string((r.time_us - start) / kDayUs)));
  *names = n.Keys();
  return Status::Ok();
}

constexpr RegistryRow<BreakdownKeyFn> kKeys[] = {
    {"stage", "the (pipeline, stage) that issued the read", ByStage},
    {"pattern", "the file's path pattern (digit runs #; hex, letter-digit and tempfile names *)", ByPattern},
    {"day", "the day of the trace the read falls in, from its first request", ByDay},
};

}  // namespace

std::span<const RegistryRow<BreakdownKeyFn>> BreakdownKeys() { return kKeys; }

Result<Breakdown> MakeBreakdown(const RequestTrace& trace, const std::string& by) {
  Breakdown out;
  out.by = by;
  // Each key kind's ids, then the combinations that occur, numbered in
  // request order (also for one kind, whose ids follow object order).
  std::vector<std::vector<uint32_t>> parts;
  std::vector<std::vector<std::string>> part_names;
  std::vector<std::string> kinds;
  size_t start = 0;
  while (true) {
    const size_t comma = by.find(',', start);
    const std::string kind = by.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const RegistryRow<BreakdownKeyFn>* row = FindRow(BreakdownKeys(), kind);
    if (row == nullptr) {
      return InvalidArgument("unknown breakdown key '" + kind + "' (expected " + RowNames(BreakdownKeys()) +
                             ", or a comma-separated list of them)");
    }
    if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) {
      return InvalidArgument("breakdown key '" + kind + "' given twice in '" + by + "'");
    }
    kinds.push_back(kind);
    parts.emplace_back();
    part_names.emplace_back();
    parts.back().reserve(trace.requests.size());
    FRUGAL_RETURN_IF_ERROR(row->factory(trace, &parts.back(), &part_names.back()));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  out.of_request.resize(trace.requests.size());
  std::unordered_map<std::string, uint32_t> combined;
  std::string key;
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    key.clear();
    for (const auto& p : parts) {
      key.append(reinterpret_cast<const char*>(&p[i]), sizeof(uint32_t));
    }
    auto [it, inserted] = combined.try_emplace(key, static_cast<uint32_t>(out.names.size()));
    if (inserted) {
      std::string name;
      for (size_t k = 0; k < parts.size(); ++k) {
        if (k > 0) name += " · ";
        name += part_names[k][parts[k][i]];
      }
      out.names.push_back(std::move(name));
    }
    out.of_request[i] = it->second;
  }
  return out;
}

}  // namespace frugal::cache
