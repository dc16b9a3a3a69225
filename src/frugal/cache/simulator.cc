#include "frugal/cache/simulator.h"

#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <memory>
#include <span>
#include <thread>

#include "frugal/cache/policy.h"
#include "frugal/cache/policy_registry.h"
#include "frugal/cache/trace_reader.h"

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
  if (!std::isfinite(value)) return InvalidArgument(bad + ": not a finite number");
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

namespace {

// One policy's pass: feeds it requests in order and keeps the counts.
class Replayer {
 public:
  Replayer(std::unique_ptr<CachePolicy> p, const RequestTrace& trace, const std::string& policy,
           int64_t cache_bytes, const Breakdown* breakdown)
      : p_(std::move(p)), groups_(std::max<size_t>(trace.groups.size(), 1)), breakdown_(breakdown),
        cells_(breakdown != nullptr ? breakdown->names.size() : 0) {
    res_.policy = policy;
    res_.cache_bytes = cache_bytes;
    res_.cache_fraction = trace.footprint_bytes > 0 ? static_cast<double>(cache_bytes) /
                                                          static_cast<double>(trace.footprint_bytes)
                                                    : 0;
  }

  void Run(std::span<const Request> reqs, int64_t first) {
    const int64_t n = static_cast<int64_t>(reqs.size());
    for (int64_t k = 0; k < n; ++k) Step(reqs[k], first + k);
  }

  SimulationResult Finish(const SimulationOptions& options) && {
    res_.bytes_written_to_cache = p_->admitted_bytes() + write_hit_bytes_;
    res_.miss_ratio = res_.reads > 0 ? 1.0 - static_cast<double>(res_.hits) / static_cast<double>(res_.reads) : 0;
    res_.byte_miss_ratio = res_.read_bytes > 0 ? 1.0 - static_cast<double>(res_.hit_bytes) /
                                                           static_cast<double>(res_.read_bytes)
                                               : 0;
    res_.pipeline_speedup = PipelineSpeedup(groups_, options.throughput);
    res_.report = p_->Report();
    if (breakdown_ != nullptr) {
      res_.breakdown_by = breakdown_->by;
      for (size_t k = 0; k < cells_.size(); ++k) res_.breakdown.push_back({breakdown_->names[k], cells_[k]});
    }
    return std::move(res_);
  }

 private:
  void Step(const Request& r, int64_t i) {
    switch (r.kind) {
      case RequestKind::kRead: {
        const int64_t before = p_->admitted_bytes();
        const bool hit = p_->Access(r, i);
        GroupIo& g = groups_[r.group];
        g.admitted_bytes += p_->admitted_bytes() - before;
        ++res_.reads;
        res_.read_bytes += r.bytes;
        if (hit) {
          ++res_.hits;
          res_.hit_bytes += r.bytes;
          g.hit_bytes += r.bytes;
        } else {
          g.miss_bytes += r.bytes;
        }
        if (breakdown_ != nullptr) {
          BreakdownCell& c = cells_[breakdown_->of_request[static_cast<size_t>(i)]];
          ++c.reads;
          c.read_bytes += r.bytes;
          c.hits += hit;
          c.hit_bytes += hit ? r.bytes : 0;
        }
        break;
      }
      case RequestKind::kWrite: {
        const int64_t before = p_->admitted_bytes();
        const bool hit = p_->Access(r, i);
        groups_[r.group].written_bytes += r.bytes;
        int64_t admitted = p_->admitted_bytes() - before;
        if (hit) {
          write_hit_bytes_ += r.bytes;
          admitted += r.bytes;
        }
        groups_[r.group].admitted_bytes += admitted;
        break;
      }
      case RequestKind::kRename:
      case RequestKind::kDelete:
        p_->Apply(r, i);
        break;
    }
  }

  std::unique_ptr<CachePolicy> p_;
  std::vector<GroupIo> groups_;
  SimulationResult res_;
  int64_t write_hit_bytes_ = 0;
  const Breakdown* breakdown_;
  std::vector<BreakdownCell> cells_;
};

Result<Replayer> MakeReplayer(const RequestTrace& trace, const std::string& policy,
                              int64_t cache_bytes, const SimulationOptions& options) {
  PolicyOptions po;
  po.capacity_bytes = cache_bytes;
  po.trace = &trace;
  po.seed = options.seed;
  po.model_path = options.model_path;
  FRUGAL_ASSIGN_OR_RETURN(auto p, MakePolicy(policy, po));
  return Replayer(std::move(p), trace, policy, cache_bytes, options.breakdown);
}

}  // namespace

Result<SimulationResult> SimulateOne(const RequestTrace& trace, const std::string& policy,
                                     int64_t cache_bytes, const SimulationOptions& options) {
  if (options.breakdown != nullptr && options.breakdown->of_request.size() != trace.requests.size()) {
    return InvalidArgument("the breakdown was made for another trace (" +
                           std::to_string(options.breakdown->of_request.size()) + " requests, not " +
                           std::to_string(trace.requests.size()) + ")");
  }
  FRUGAL_ASSIGN_OR_RETURN(Replayer rp, MakeReplayer(trace, policy, cache_bytes, options));
  rp.Run(trace.requests, 0);
  return std::move(rp).Finish(options);
}

namespace {

// options.threads (0: one per core), at most one per job, at least 1.
int SimulationThreads(const SimulationOptions& options, size_t jobs) {
  const int want = options.threads > 0 ? options.threads
                                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, std::min<int>(want, static_cast<int>(jobs)));
}

}  // namespace

Status CheckTouchesBytes(const RequestTrace& trace, const std::string& path) {
  if (trace.footprint_bytes > 0) return Status::Ok();
  return InvalidArgument(path + ": the trace touches no bytes (no reads or writes of any size)");
}

bool CanSimulateStreamed(const std::string& path, const std::string& format,
                         const std::vector<std::string>& policies) {
  if (policies.empty()) return false;
  for (const std::string& p : policies) {
    if (p == "all" || FindRow(Policies(), p) == nullptr || IsOfflinePolicy(p)) return false;
  }
  return IsOracleGeneral(path, format);
}

Result<StreamedSimulation> SimulateStreamed(const std::string& path,
                                            const std::vector<std::string>& policies,
                                            const std::string& sizes,
                                            const SimulationOptions& options) {
  if (options.breakdown != nullptr) return InvalidArgument("a streamed simulation takes no breakdown");
  if (policies.empty()) return InvalidArgument("no policy given");
  for (const std::string& policy : policies) {
    if (FindRow(Policies(), policy) == nullptr || IsOfflinePolicy(policy)) {
      return InvalidArgument("policy '" + policy + "' cannot be simulated streamed (expected an online policy of " +
                             RowNames(Policies()) + ")");
    }
  }
  StreamedSimulation out;
  const auto load_start = std::chrono::steady_clock::now();
  FRUGAL_ASSIGN_OR_RETURN(StreamedTrace st, StreamedTrace::Open(path));
  out.load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();
  FRUGAL_RETURN_IF_ERROR(CheckTouchesBytes(st.trace(), path));
  FRUGAL_ASSIGN_OR_RETURN(std::vector<int64_t> bytes, ParseCacheSizes(sizes, st.trace().footprint_bytes));
  const auto sim_start = std::chrono::steady_clock::now();
  struct Cell {
    const std::string* policy;
    int64_t bytes;
  };
  std::vector<Cell> todo;
  for (const std::string& policy : policies) {
    for (int64_t b : bytes) todo.push_back({&policy, b});
  }
  const int threads = SimulationThreads(options, todo.size());
  // One replay of the file per group of `threads` cells, each block handed
  // to the group's cells side by side: only a group's policy state is held
  // at a time (as Simulate holds one cell per thread), and the file is
  // read ceil(cells / threads) times. A cell's counters change at every
  // request, so each cell gets cache lines of its own.
  struct alignas(128) Slot {
    Replayer rp;
  };
  for (size_t g = 0; g < todo.size(); g += static_cast<size_t>(threads)) {
    std::vector<Slot> group;
    for (size_t j = g; j < std::min(todo.size(), g + static_cast<size_t>(threads)); ++j) {
      FRUGAL_ASSIGN_OR_RETURN(Replayer rp, MakeReplayer(st.trace(), *todo[j].policy, todo[j].bytes, options));
      group.push_back(Slot{std::move(rp)});
    }
    FRUGAL_RETURN_IF_ERROR(st.Replay([&group](std::span<const Request> block, int64_t first) {
      std::vector<std::thread> pool;
      for (size_t j = 1; j < group.size(); ++j) {
        pool.emplace_back([&group, j, block, first] { group[j].rp.Run(block, first); });
      }
      group[0].rp.Run(block, first);
      for (std::thread& t : pool) t.join();
    }));
    for (Slot& c : group) out.results.push_back(std::move(c.rp).Finish(options));
  }
  out.simulate_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - sim_start).count();
  out.requests = st.requests();
  out.trace = st.trace();
  return out;
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
  const int threads = SimulationThreads(options, jobs.size());
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
  if (!r.breakdown_by.empty()) {
    nlohmann::json rows = nlohmann::json::array();
    auto ratio = [](int64_t a, int64_t b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0; };
    for (const BreakdownRow& b : r.breakdown) {
      const BreakdownCell& c = b.cell;
      rows.push_back({{"key", b.key},
                      {"reads", c.reads},
                      {"hits", c.hits},
                      {"read_bytes", c.read_bytes},
                      {"hit_bytes", c.hit_bytes},
                      {"byte_miss_ratio", c.read_bytes > 0 ? 1.0 - ratio(c.hit_bytes, c.read_bytes) : 0.0},
                      {"byte_miss_contribution", ratio(c.read_bytes - c.hit_bytes, r.read_bytes)}});
    }
    j["breakdown"] = {{"by", r.breakdown_by}, {"rows", std::move(rows)}};
  }
  return j;
}

}  // namespace frugal::cache
