#include "frugal/cache/simulator.h"

#include <atomic>
#include <charconv>
#include <cmath>
#include <thread>

#include "frugal/cache/policy_registry.h"

namespace frugal::cache {
namespace {

std::string Trim(std::string s) {
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

Result<int64_t> ParseOneSize(const std::string& item, int64_t footprint) {
  const std::string bad = "bad cache size '" + item + "'";
  if (item.empty()) return InvalidArgument("empty cache size in the list");
  double value = 0;
  auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
  if (ec != std::errc() || p == item.data()) {
    return InvalidArgument(bad + " (expected e.g. 10%, 536870912 or 512MiB)");
  }
  const std::string unit(p, item.data() + item.size());
  double bytes;
  if (unit == "%") {
    bytes = std::floor(static_cast<double>(footprint) * value / 100.0);
  } else {
    static const struct { const char* name; double mult; } kUnits[] = {
        {"", 1}, {"B", 1}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
        {"TiB", 1099511627776.0}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}};
    double mult = -1;
    for (const auto& u : kUnits) {
      if (unit == u.name) mult = u.mult;
    }
    if (mult < 0) return InvalidArgument(bad + ": unknown unit '" + unit + "'");
    bytes = std::floor(value * mult);
  }
  if (!(bytes >= 1)) {
    return InvalidArgument("cache size must be > 0 bytes, got '" + item + "'" +
                           (unit == "%" ? " (" + std::to_string(static_cast<int64_t>(bytes)) +
                                              " bytes of a " + std::to_string(footprint) +
                                              "-byte footprint)"
                                        : ""));
  }
  if (bytes > 9e18) return InvalidArgument(bad + ": too large");
  return static_cast<int64_t>(bytes);
}

}  // namespace

Result<std::vector<int64_t>> ParseCacheSizes(const std::string& text, int64_t footprint_bytes) {
  std::vector<int64_t> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item = Trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    FRUGAL_ASSIGN_OR_RETURN(int64_t b, ParseOneSize(item, footprint_bytes));
    out.push_back(b);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

Result<SimulationResult> SimulateOne(const RequestTrace& trace, const std::string& policy,
                                     int64_t cache_bytes, const SimulationOptions& options) {
  PolicyOptions po;
  po.capacity_bytes = cache_bytes;
  po.trace = &trace;
  po.seed = options.seed;
  po.model_path = options.model_path;
  FRUGAL_ASSIGN_OR_RETURN(auto p, MakePolicy(policy, po));
  SimulationResult res;
  res.policy = policy;
  res.cache_bytes = cache_bytes;
  res.cache_fraction = trace.footprint_bytes > 0
                           ? static_cast<double>(cache_bytes) / static_cast<double>(trace.footprint_bytes)
                           : 0;
  std::vector<GroupIo> groups(std::max<size_t>(trace.groups.size(), 1));
  int64_t write_hit_bytes = 0;
  const auto& reqs = trace.requests;
  const int64_t n = static_cast<int64_t>(reqs.size());
  for (int64_t i = 0; i < n; ++i) {
    const Request& r = reqs[i];
    switch (r.kind) {
      case RequestKind::kRead: {
        const int64_t before = p->admitted_bytes();
        const bool hit = p->Access(r, i);
        groups[r.group].admitted_bytes += p->admitted_bytes() - before;
        ++res.reads;
        res.read_bytes += r.bytes;
        if (hit) {
          ++res.hits;
          res.hit_bytes += r.bytes;
          groups[r.group].hit_bytes += r.bytes;
        } else {
          groups[r.group].miss_bytes += r.bytes;
        }
        break;
      }
      case RequestKind::kWrite: {
        const int64_t before = p->admitted_bytes();
        const bool hit = p->Access(r, i);
        groups[r.group].written_bytes += r.bytes;
        int64_t admitted = p->admitted_bytes() - before;
        if (hit) {
          write_hit_bytes += r.bytes;
          admitted += r.bytes;
        }
        groups[r.group].admitted_bytes += admitted;
        break;
      }
      case RequestKind::kRename:
        p->Rename(r, i);
        break;
      case RequestKind::kDelete:
        p->Delete(r.obj);
        break;
    }
  }
  res.bytes_written_to_cache = p->admitted_bytes() + write_hit_bytes;
  res.miss_ratio = res.reads > 0 ? 1.0 - static_cast<double>(res.hits) / static_cast<double>(res.reads) : 0;
  res.byte_miss_ratio = res.read_bytes > 0 ? 1.0 - static_cast<double>(res.hit_bytes) /
                                                       static_cast<double>(res.read_bytes)
                                           : 0;
  res.pipeline_speedup = PipelineSpeedup(groups, options.throughput);
  res.report = p->Report();
  return res;
}

Result<std::vector<SimulationResult>> Simulate(const RequestTrace& trace,
                                               const SimulationOptions& options) {
  std::vector<std::string> names;
  for (const std::string& n : options.policies) {
    if (n == "all") {
      for (const auto& row : Policies()) names.push_back(row.name);
    } else {
      if (FindRow(Policies(), n) == nullptr) {
        return InvalidArgument("unknown policy '" + n + "' (expected " + RowNames(Policies()) +
                               ", or all)");
      }
      names.push_back(n);
    }
  }
  if (names.empty()) return InvalidArgument("no policy given");
  if (options.cache_bytes.empty()) return InvalidArgument("no cache size given");
  for (int64_t b : options.cache_bytes) {
    if (b <= 0) return InvalidArgument("cache size must be > 0 bytes, got " + std::to_string(b));
  }
  struct Job {
    std::string policy;
    int64_t bytes;
  };
  std::vector<Job> jobs;
  for (const auto& n : names) {
    for (int64_t b : options.cache_bytes) jobs.push_back({n, b});
  }
  std::vector<Result<SimulationResult>> out(jobs.size(), Result<SimulationResult>(Internal("not run")));
  int threads = options.threads > 0 ? options.threads
                                    : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::min<int>(threads, static_cast<int>(jobs.size()));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t j; (j = next.fetch_add(1)) < jobs.size();) {
      out[j] = SimulateOne(trace, jobs[j].policy, jobs[j].bytes, options);
    }
  };
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  std::vector<SimulationResult> results;
  for (auto& r : out) {
    if (!r.ok()) return r.status();
    results.push_back(std::move(r).value());
  }
  return results;
}

nlohmann::json ResultToJson(const SimulationResult& r) {
  nlohmann::json j = {{"policy", r.policy},
                      {"cache_bytes", r.cache_bytes},
                      {"cache_fraction", r.cache_fraction},
                      {"reads", r.reads},
                      {"hits", r.hits},
                      {"read_bytes", r.read_bytes},
                      {"hit_bytes", r.hit_bytes},
                      {"miss_ratio", r.miss_ratio},
                      {"byte_miss_ratio", r.byte_miss_ratio},
                      {"bytes_written_to_cache", r.bytes_written_to_cache},
                      {"pipeline_speedup", r.pipeline_speedup}};
  if (!r.report.is_null()) j["model"] = r.report;
  return j;
}

}  // namespace frugal::cache
