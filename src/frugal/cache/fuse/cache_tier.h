// CacheTier: the cache tier behind `frugal cache mount`, without libfuse.
// It presents REMOTE_DIR file by file: a read-open asks the policy
// (whole-file granularity, as in the simulator); a resident file is served
// from its copy in CACHE_DIR/objects, a miss the policy admits is copied
// from the remote once and then served locally, any other read goes to the
// remote. Writes are write-through: every byte reaches the remote file
// before the call returns, so the remote copy is always complete and a
// crash of the daemon loses nothing; a written file the policy admits is
// kept in the cache from the bytes written (no second remote read).
// Renames, deletes and truncations are applied to the remote first and
// then to the tier (a deleted file's cache copy is freed at once). A copy
// whose remote file changed behind the mount (size or mtime) is dropped at
// the next open and refilled, never served. Every
// request is recorded in frugal's binary trace format when a trace path is
// given, so a mounted run can be replayed by `cache simulate`.
//
// Paths are the mount's, absolute ("/dir/file"). File operations return 0
// or a byte count, or -errno (the remote's own errno on remote failures).
// Thread-safe: the policy, the name table and the trace are behind one
// mutex; data moves outside it.
#ifndef FRUGAL_CACHE_FUSE_CACHE_TIER_H_
#define FRUGAL_CACHE_FUSE_CACHE_TIER_H_

#include <sys/stat.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "frugal/base/status.h"
#include "frugal/cache/fuse/remote_link.h"
#include "frugal/cache/policy.h"
#include "frugal/cache/request_trace.h"
#include "frugal/cache/trace_writer.h"

namespace frugal::cache::fuse {

struct TierOptions {
  std::string remote_dir;  // REQUIRES: an existing directory
  std::string cache_dir;   // REQUIRES: an existing directory; objects/ and tmp/ are made
  int64_t capacity_bytes = 0;  // REQUIRES: > 0
  std::string policy = "lru";  // any online registered policy
  std::string model_path;      // smartcache warm start; empty = none
  uint64_t seed = 1;
  int64_t max_files = int64_t{1} << 20;  // files the policy tracks; later ones pass through
  double remote_mb_per_s = 0;  // 0 = unthrottled
  double remote_latency_ms = 0;
  std::string trace_out;  // frugal binary trace of every request; empty = none
};

// An open file. Owned by the tier between Open/Create and Release.
struct TierHandle;

class CacheTier : private ResidencyObserver {
 public:
  // Checks the options, empties CACHE_DIR/objects and tmp (the tier starts
  // cold) and opens the trace. InvalidArgument naming the problem.
  static Result<std::unique_ptr<CacheTier>> Create(const TierOptions& options);
  ~CacheTier() override;

  // open(2) / creat(2) of `path` with `flags` (O_ACCMODE, O_TRUNC, O_APPEND...).
  int Open(const std::string& path, int flags, TierHandle** handle);
  int Create(const std::string& path, int flags, mode_t mode, TierHandle** handle);
  int64_t Read(TierHandle* h, char* buf, size_t size, off_t offset);
  int64_t Write(TierHandle* h, const char* buf, size_t size, off_t offset);
  int Fsync(TierHandle* h, bool datasync);
  int Release(TierHandle* h);

  int Unlink(const std::string& path);
  int Rename(const std::string& from, const std::string& to, unsigned int flags);
  int Truncate(const std::string& path, off_t size);

  std::string RemotePath(const std::string& path) const { return options_.remote_dir + path; }

  // Counters since the mount began, and the policy's residency.
  nlohmann::json Stats() const;
  // Flushes the trace and writes CACHE_DIR/stats.json. Idempotent.
  Status Close();

 private:
  enum class Fill : uint8_t { kNone, kPending, kFilling, kFilled };
  struct FileState {
    Fill fill = Fill::kNone;
    // The remote file's size and mtime the cache copy matches: a copy of a
    // file changed behind the mount is dropped at the next open, not served.
    int64_t copy_size = -1;
    int64_t copy_mtime_ns = 0;
    uint32_t generation = 0;
    int32_t writers = 0;
    bool shared_write = false;  // two writers overlapped: staging is incomplete
  };

  explicit CacheTier(const TierOptions& options);
  Status Init();

  // ResidencyObserver, called by the policy under mu_.
  void Admitted(uint32_t obj, int64_t size) override;
  void Dropped(uint32_t obj) override;

  // Under mu_: the id of `path`, a new one when `create` (or when the file
  // existed before the mount), or -1 when the tier tracks no more files.
  int64_t ObjectLocked(const std::string& path, bool create);
  bool AccessLocked(RequestKind kind, uint32_t obj, int64_t bytes, int64_t size);
  void ForgetLocked(uint32_t obj);
  void RecordLocked(EventKind kind, const std::string& path, int64_t length, int64_t size,
                    const std::string& new_path = "");
  int64_t NowUs() const;
  std::string ObjectFile(uint32_t obj) const;
  std::string TmpFile(uint32_t obj, uint32_t generation) const;
  // Copies the remote file into the tier for `obj`; on success opens it.
  int FillAndOpen(TierHandle* h, uint32_t generation);
  // Opens h's remote file with `flags`; its size in *size.
  int OpenRemote(TierHandle* h, int flags, mode_t mode, struct stat* st);
  int OpenForRead(TierHandle* h, const struct stat& st);
  int OpenForWrite(TierHandle* h, bool fresh, const struct stat& st);
  // Under mu_: notes that obj's copy matches the remote file `st`.
  void CopyMatchesLocked(uint32_t obj, const struct stat& st);
  // Under mu_: drops a filled copy that no longer matches `st`.
  void DropIfStaleLocked(uint32_t obj, const struct stat& st);
  // Hands h to the caller when rc is 0; else closes it and returns rc.
  static int Handover(std::unique_ptr<TierHandle> h, int rc, TierHandle** handle);

  TierOptions options_;
  RemoteLink link_;
  std::chrono::steady_clock::time_point start_;

  mutable std::mutex mu_;
  RequestTrace live_;  // objects grow as files are seen; requests are not kept
  std::unique_ptr<CachePolicy> policy_;
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<FileState> files_;
  std::unique_ptr<TraceWriter> trace_;
  Status trace_status_;
  int64_t requests_ = 0;
  int64_t last_time_us_ = 0;
  bool deleting_ = false;
  bool closed_ = false;

  struct Counters {
    std::atomic<int64_t> read_opens{0}, hits{0}, misses{0}, admissions{0}, evictions{0};
    std::atomic<int64_t> open_bytes{0}, hit_open_bytes{0};  // sizes at read-opens (the policy's view)
    std::atomic<int64_t> fills{0}, fill_bytes{0}, untracked_opens{0};
    std::atomic<int64_t> bytes_from_cache{0}, bytes_from_remote{0};
    std::atomic<int64_t> bytes_to_remote{0}, bytes_to_cache{0};
    std::atomic<int64_t> remote_errors{0}, stale_copies{0};
  } counters_;
};

}  // namespace frugal::cache::fuse

#endif  // FRUGAL_CACHE_FUSE_CACHE_TIER_H_
