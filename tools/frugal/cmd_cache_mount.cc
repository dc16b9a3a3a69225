// `frugal cache mount` and `frugal cache stats`: the cache tier as a FUSE
// file system in front of a remote directory, and its counters.
#include <cstdio>
#include <memory>
#include <string>

#include "cli_util.h"
#include "frugal/cache/fuse/mount.h"
#include "verbs.h"

namespace frugal::cli {
namespace {

int RunStats(const std::string& path, bool json) {
  auto stats = cache::fuse::ReadMountStats(path);
  if (!stats.ok()) return ReportError(stats.status());
  const nlohmann::json& s = stats.value();
  if (json) {
    PrintJson(s);
    return 0;
  }
  auto num = [&](const char* key) { return fmt::format("{}", s.value(key, nlohmann::json(0)).dump()); };
  auto gib = [&](const char* key) {
    return fmt::format("{:.3f} GiB", s.value(key, int64_t{0}) / 1073741824.0);
  };
  PrintTable({"counter", "value"},
             {{"policy", s.value("policy", "")},
              {"capacity", gib("capacity_bytes")},
              {"in use", gib("used_bytes")},
              {"files tracked / cached", num("files_tracked") + " / " + num("files_cached")},
              {"read opens", num("read_opens")},
              {"hits / misses", num("hits") + " / " + num("misses")},
              {"hit ratio", fmt::format("{:.4f}", s.value("hit_ratio", 0.0))},
              {"byte miss ratio (as simulated)", fmt::format("{:.4f}", s.value("byte_miss_ratio", 0.0))},
              {"admissions / evictions", num("admissions") + " / " + num("evictions")},
              {"read from cache", gib("bytes_read_from_cache")},
              {"read from remote", gib("bytes_read_from_remote")},
              {"filled from remote", gib("bytes_filled_from_remote")},
              {"written to remote", gib("bytes_written_to_remote")},
              {"served from cache", fmt::format("{:.4f}", s.value("byte_hit_ratio", 0.0))},
              {"remote errors", num("remote_errors")},
              {"uptime", fmt::format("{:.1f} s", s.value("uptime_s", 0.0))}});
  return 0;
}

}  // namespace

void AddCacheMount(CLI::App& cache, int* exit_code) {
  auto m = std::make_shared<cache::fuse::MountOptions>();
  CLI::App* mount = cache.add_subcommand(
      "mount",
      "Mount REMOTE_DIR at MOUNTPOINT through a cache tier (FUSE); runs until Ctrl-C, SIGTERM or "
      "fusermount3 -u");
  mount->add_option("REMOTE_DIR", m->tier.remote_dir, "The remote copy (any directory)")->required();
  mount->add_option("MOUNTPOINT", m->mountpoint, "An existing empty directory")->required();
  mount->add_option("--cache-dir", m->tier.cache_dir, "Directory of the cache tier (local disk)")->required();
  mount->add_option("--capacity", m->capacity, "Cache capacity: bytes (20GiB) or % of the cache disk")
      ->required();
  mount->add_option("--policy", m->tier.policy, "Any online policy of `frugal cache list`")
      ->capture_default_str();
  mount->add_option("--model", m->tier.model_path,
                    "Warm-start smartcache from a model file (frugal cache train)");
  mount->add_option("--seed", m->tier.seed, "Seed for randomised and learned policies")->capture_default_str();
  mount->add_option("--max-files", m->tier.max_files, "Files the policy tracks; later ones pass through")
      ->capture_default_str()
      ->check(IntIn(1, int64_t{1} << 31));
  mount->add_option("--trace-out", m->tier.trace_out, "Record every request as a frugal binary trace (.frt)");
  mount->add_option("--remote-mbps", m->tier.remote_mb_per_s,
                    "Emulated remote bandwidth, MB/s (1e6 bytes) per direction; 0 = unthrottled")
      ->capture_default_str()
      ->check(NumberIn(0, 1e6));
  mount->add_option("--remote-latency-ms", m->tier.remote_latency_ms,
                    "Emulated latency per remote request, ms")
      ->capture_default_str()
      ->check(NumberIn(0, 60000));
  mount->add_option("--threads", m->max_threads, "FUSE worker threads")
      ->capture_default_str()
      ->check(IntIn(1, 1024));
  mount->add_flag("--quiet", m->quiet, "No start and stop lines on stderr");
  mount->callback([m, exit_code] {
    const Status st = cache::fuse::RunMount(*m);
    *exit_code = st.ok() ? 0 : ReportError(st);
  });

  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* stats = cache.add_subcommand(
      "stats", "Counters of a mounted cache tier (MOUNTPOINT) or of a stopped one (CACHE_DIR/stats.json)");
  stats->add_option("PATH", *path, "MOUNTPOINT or a stats.json file")->required();
  stats->add_flag("--json", *json, "Machine-readable output");
  stats->callback([path, json, exit_code] { *exit_code = RunStats(*path, *json); });
}

}  // namespace frugal::cli
