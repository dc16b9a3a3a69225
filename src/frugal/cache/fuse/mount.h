// `frugal cache mount`: the cache tier as a FUSE file system (libfuse3).
// REMOTE_DIR (any directory: a gcsfuse / s3fs / NFS mount in production) is
// presented at MOUNTPOINT; CacheTier (cache_tier.h) decides what the cache
// directory keeps. MOUNTPOINT/.frugal-stats (not listed) reads the tier's
// counters as JSON; CACHE_DIR/stats.json holds the final ones after the
// mount stops. The only code in frugal that touches libfuse.
// RunMount blocks until SIGINT / SIGTERM / SIGHUP or `fusermount3 -u`.
#ifndef FRUGAL_CACHE_FUSE_MOUNT_H_
#define FRUGAL_CACHE_FUSE_MOUNT_H_

#include <string>

#include <nlohmann/json.hpp>

#include "frugal/base/status.h"
#include "frugal/cache/fuse/cache_tier.h"

namespace frugal::cache::fuse {

inline constexpr const char* kStatsName = ".frugal-stats";

struct MountOptions {
  // The tier's directories, policy, trace and remote emulation;
  // tier.capacity_bytes is set from `capacity`.
  TierOptions tier;
  std::string mountpoint;
  std::string capacity;  // bytes with an optional unit (20GiB), or % of the cache disk
  int max_threads = 16;
  bool quiet = false;  // no start / stop lines on stderr
};

// Checks everything that can be checked before mounting (one-line errors,
// InvalidArgument): REMOTE_DIR a readable directory; MOUNTPOINT an existing
// empty directory outside REMOTE_DIR; CACHE_DIR (made if missing) apart from
// both; capacity > 0 and within the cache disk's free space; the policy
// online. Nothing is mounted when it fails.
Status CheckMountOptions(MountOptions* options);

// Mounts, serves until stopped, unmounts. Errors before the mount is up
// leave nothing mounted.
Status RunMount(MountOptions options);

// The counters of a running mount (MOUNTPOINT/.frugal-stats) or of a
// stopped one (a stats.json file). NotFound / InvalidArgument naming `path`.
Result<nlohmann::json> ReadMountStats(const std::string& path);

}  // namespace frugal::cache::fuse

#endif  // FRUGAL_CACHE_FUSE_MOUNT_H_
