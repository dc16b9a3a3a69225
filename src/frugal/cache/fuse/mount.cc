#define FUSE_USE_VERSION 312
#include "frugal/cache/fuse/mount.h"

#include <dirent.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>

#include "frugal/base/file_io.h"
#include "frugal/cache/simulator.h"

namespace frugal::cache::fuse {
namespace {

const std::string kStatsPath = std::string("/") + kStatsName;

// What fi->fh points at: a tier file, or a snapshot of the stats.
struct OpenFile {
  TierHandle* tier = nullptr;
  std::string snapshot;
};

CacheTier* Tier() { return static_cast<CacheTier*>(fuse_get_context()->private_data); }
OpenFile* File(fuse_file_info* fi) { return reinterpret_cast<OpenFile*>(fi->fh); }
int Neg(int rc) { return rc == 0 ? 0 : -errno; }

std::string StatsText() { return Tier()->Stats().dump(1) + "\n"; }

void* OpInit(fuse_conn_info* conn, fuse_config* cfg) {
  // The page cache is dropped on every open, so every read-open reaches the
  // tier (as it reaches gcsfuse); a kernel cache would hide the hits.
  cfg->kernel_cache = 0;
  cfg->hard_remove = 1;  // unlink of an open file: no .fuse_hidden renames
  cfg->use_ino = 0;
  if ((conn->capable & FUSE_CAP_ATOMIC_O_TRUNC) != 0) conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
  return fuse_get_context()->private_data;
}

int OpGetattr(const char* path, struct stat* st, fuse_file_info* fi) {
  if (kStatsPath == path) {
    std::memset(st, 0, sizeof(*st));
    st->st_mode = S_IFREG | 0444;
    st->st_nlink = 1;
    st->st_size = static_cast<off_t>(StatsText().size());
    return 0;
  }
  (void)fi;  // the remote copy is complete: its metadata is the file's
  return Neg(::lstat(Tier()->RemotePath(path).c_str(), st));
}

int OpReaddir(const char* path, void* buf, fuse_fill_dir_t filler, off_t, fuse_file_info*,
              fuse_readdir_flags) {
  DIR* d = ::opendir(Tier()->RemotePath(path).c_str());
  if (d == nullptr) return -errno;
  while (dirent* e = ::readdir(d)) {
    struct stat st;
    std::memset(&st, 0, sizeof(st));
    st.st_ino = e->d_ino;
    st.st_mode = static_cast<mode_t>(e->d_type) << 12;
    if (filler(buf, e->d_name, &st, 0, static_cast<fuse_fill_dir_flags>(0)) != 0) break;
  }
  ::closedir(d);
  return 0;
}

int OpOpen(const char* path, fuse_file_info* fi) {
  auto file = std::make_unique<OpenFile>();
  if (kStatsPath == path) {
    if ((fi->flags & O_ACCMODE) != O_RDONLY) return -EACCES;
    file->snapshot = StatsText();
    fi->direct_io = 1;
  } else {
    const int rc = Tier()->Open(path, fi->flags, &file->tier);
    if (rc < 0) return rc;
  }
  fi->fh = reinterpret_cast<uint64_t>(file.release());
  return 0;
}

int OpCreate(const char* path, mode_t mode, fuse_file_info* fi) {
  if (kStatsPath == path) return -EACCES;
  auto file = std::make_unique<OpenFile>();
  const int rc = Tier()->Create(path, fi->flags, mode, &file->tier);
  if (rc < 0) return rc;
  fi->fh = reinterpret_cast<uint64_t>(file.release());
  return 0;
}

int OpRead(const char*, char* buf, size_t size, off_t offset, fuse_file_info* fi) {
  OpenFile* f = File(fi);
  if (f->tier == nullptr) {
    if (offset >= static_cast<off_t>(f->snapshot.size())) return 0;
    const size_t n = std::min(size, f->snapshot.size() - static_cast<size_t>(offset));
    std::memcpy(buf, f->snapshot.data() + offset, n);
    return static_cast<int>(n);
  }
  return static_cast<int>(Tier()->Read(f->tier, buf, size, offset));
}

int OpWrite(const char*, const char* buf, size_t size, off_t offset, fuse_file_info* fi) {
  OpenFile* f = File(fi);
  if (f->tier == nullptr) return -EBADF;
  return static_cast<int>(Tier()->Write(f->tier, buf, size, offset));
}

int OpFsync(const char*, int datasync, fuse_file_info* fi) {
  OpenFile* f = File(fi);
  return f->tier == nullptr ? 0 : Tier()->Fsync(f->tier, datasync != 0);
}

int OpFlush(const char*, fuse_file_info*) { return 0; }

int OpRelease(const char*, fuse_file_info* fi) {
  std::unique_ptr<OpenFile> f(File(fi));
  return f->tier == nullptr ? 0 : Tier()->Release(f->tier);
}

int OpUnlink(const char* path) {
  if (kStatsPath == path) return -EACCES;
  return Tier()->Unlink(path);
}

int OpRename(const char* from, const char* to, unsigned int flags) {
  if (kStatsPath == from || kStatsPath == to) return -EACCES;
  return Tier()->Rename(from, to, flags);
}

int OpTruncate(const char* path, off_t size, fuse_file_info*) {
  if (kStatsPath == path) return -EACCES;
  return Tier()->Truncate(path, size);
}

int OpMkdir(const char* path, mode_t mode) { return Neg(::mkdir(Tier()->RemotePath(path).c_str(), mode)); }
int OpRmdir(const char* path) { return Neg(::rmdir(Tier()->RemotePath(path).c_str())); }
int OpChmod(const char* path, mode_t mode, fuse_file_info*) {
  return Neg(::chmod(Tier()->RemotePath(path).c_str(), mode));
}
int OpChown(const char* path, uid_t uid, gid_t gid, fuse_file_info*) {
  return Neg(::lchown(Tier()->RemotePath(path).c_str(), uid, gid));
}
int OpUtimens(const char* path, const timespec tv[2], fuse_file_info*) {
  return Neg(::utimensat(AT_FDCWD, Tier()->RemotePath(path).c_str(), tv, AT_SYMLINK_NOFOLLOW));
}
int OpAccess(const char* path, int mask) {
  if (kStatsPath == path) return (mask & W_OK) != 0 ? -EACCES : 0;
  return Neg(::access(Tier()->RemotePath(path).c_str(), mask));
}
int OpStatfs(const char* path, struct statvfs* st) {
  return Neg(::statvfs(Tier()->RemotePath(path).c_str(), st));
}
int OpSymlink(const char* target, const char* path) {
  return Neg(::symlink(target, Tier()->RemotePath(path).c_str()));
}
int OpReadlink(const char* path, char* buf, size_t size) {
  const ssize_t n = ::readlink(Tier()->RemotePath(path).c_str(), buf, size - 1);
  if (n < 0) return -errno;
  buf[n] = '\0';
  return 0;
}
// A second name for a tracked file would let one copy be cached under two ids.
int OpLink(const char*, const char*) { return -ENOTSUP; }

fuse_operations MakeOps() {
  fuse_operations ops;
  std::memset(&ops, 0, sizeof(ops));
  ops.init = OpInit;
  ops.getattr = OpGetattr;
  ops.readdir = OpReaddir;
  ops.open = OpOpen;
  ops.create = OpCreate;
  ops.read = OpRead;
  ops.write = OpWrite;
  ops.fsync = OpFsync;
  ops.flush = OpFlush;
  ops.release = OpRelease;
  ops.unlink = OpUnlink;
  ops.rename = OpRename;
  ops.truncate = OpTruncate;
  ops.mkdir = OpMkdir;
  ops.rmdir = OpRmdir;
  ops.chmod = OpChmod;
  ops.chown = OpChown;
  ops.utimens = OpUtimens;
  ops.access = OpAccess;
  ops.statfs = OpStatfs;
  ops.symlink = OpSymlink;
  ops.readlink = OpReadlink;
  ops.link = OpLink;
  return ops;
}

Result<std::string> RealDir(const std::string& path, const std::string& what) {
  if (path.empty()) return InvalidArgument(what + ": empty path");
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) {
    return InvalidArgument(what + " " + path + ": " + std::strerror(errno));
  }
  struct stat st;
  if (::stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
    return InvalidArgument(what + " " + path + ": not a directory");
  }
  return std::string(buf);
}

bool Within(const std::string& a, const std::string& b) {  // a == b or a under b
  return a == b || (a.size() > b.size() && a.compare(0, b.size(), b) == 0 &&
                    (b == "/" || a[b.size()] == '/'));
}

Result<int64_t> EntriesIn(const std::string& dir, const std::string& what) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return InvalidArgument(what + " " + dir + ": cannot list: " + std::strerror(errno));
  int64_t n = 0;
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) ++n;
  }
  ::closedir(d);
  return n;
}

// The capacity in bytes: a size, or a percentage of the cache disk.
Result<int64_t> CapacityBytes(const MountOptions& m) {
  struct statvfs vfs;
  if (::statvfs(m.tier.cache_dir.c_str(), &vfs) != 0) {
    return InvalidArgument("--cache-dir " + m.tier.cache_dir + ": " + std::strerror(errno));
  }
  const auto disk = static_cast<int64_t>(vfs.f_blocks) * static_cast<int64_t>(vfs.f_frsize);
  const auto avail = static_cast<int64_t>(vfs.f_bavail) * static_cast<int64_t>(vfs.f_frsize);
  if (m.capacity.find(',') != std::string::npos) {
    return InvalidArgument("--capacity takes one size, got '" + m.capacity + "'");
  }
  auto sizes = ParseCacheSizes(m.capacity, disk);
  if (!sizes.ok()) return InvalidArgument("--capacity: " + sizes.status().message());
  const int64_t bytes = sizes.value()[0];
  if (bytes > avail) {
    return InvalidArgument("--capacity " + m.capacity + " (" + std::to_string(bytes) +
                           " bytes) is larger than the free space of the cache disk under " +
                           m.tier.cache_dir + " (" + std::to_string(avail) + " bytes)");
  }
  return bytes;
}

}  // namespace

Status CheckMountOptions(MountOptions* m) {
  FRUGAL_ASSIGN_OR_RETURN(m->tier.remote_dir, RealDir(m->tier.remote_dir, "REMOTE_DIR"));
  if (::access(m->tier.remote_dir.c_str(), R_OK | X_OK) != 0) {
    return InvalidArgument("REMOTE_DIR " + m->tier.remote_dir + ": not readable: " + std::strerror(errno));
  }
  FRUGAL_RETURN_IF_ERROR(EntriesIn(m->tier.remote_dir, "REMOTE_DIR").status());
  FRUGAL_ASSIGN_OR_RETURN(m->mountpoint, RealDir(m->mountpoint, "MOUNTPOINT"));
  FRUGAL_ASSIGN_OR_RETURN(int64_t entries, EntriesIn(m->mountpoint, "MOUNTPOINT"));
  if (entries > 0) {
    return InvalidArgument("MOUNTPOINT " + m->mountpoint + ": not empty (" +
                           std::to_string(entries) + " entries); mount on an empty directory");
  }
  if (Within(m->mountpoint, m->tier.remote_dir) || Within(m->tier.remote_dir, m->mountpoint)) {
    return InvalidArgument("MOUNTPOINT " + m->mountpoint + " and REMOTE_DIR " + m->tier.remote_dir +
                           " overlap; the mount would contain itself");
  }
  if (m->tier.cache_dir.empty()) return InvalidArgument("--cache-dir is required");
  if (::mkdir(m->tier.cache_dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return InvalidArgument("--cache-dir " + m->tier.cache_dir + ": " + std::strerror(errno));
  }
  FRUGAL_ASSIGN_OR_RETURN(m->tier.cache_dir, RealDir(m->tier.cache_dir, "--cache-dir"));
  if (Within(m->tier.cache_dir, m->tier.remote_dir) || Within(m->tier.remote_dir, m->tier.cache_dir)) {
    return InvalidArgument("--cache-dir " + m->tier.cache_dir + " overlaps REMOTE_DIR " + m->tier.remote_dir +
                           "; the cache must live apart from the remote copy");
  }
  if (Within(m->tier.cache_dir, m->mountpoint) || Within(m->mountpoint, m->tier.cache_dir)) {
    return InvalidArgument("--cache-dir " + m->tier.cache_dir + " overlaps MOUNTPOINT " + m->mountpoint);
  }
  if (::access(m->tier.cache_dir.c_str(), W_OK | X_OK) != 0) {
    return InvalidArgument("--cache-dir " + m->tier.cache_dir + ": not writable");
  }
  if (m->capacity.empty()) return InvalidArgument("--capacity is required");
  FRUGAL_RETURN_IF_ERROR(CapacityBytes(*m).status());
  if (!m->tier.trace_out.empty() &&
      (Within(m->tier.trace_out, m->mountpoint) || Within(m->tier.trace_out, m->tier.cache_dir + "/objects"))) {
    return InvalidArgument("--trace-out " + m->tier.trace_out + ": must not be inside the mount or the cache");
  }
  if (m->max_threads < 1 || m->max_threads > 1024) {
    return InvalidArgument("--threads must be in 1..1024, got " + std::to_string(m->max_threads));
  }
  return Status::Ok();
}

Status RunMount(MountOptions m) {
  FRUGAL_RETURN_IF_ERROR(CheckMountOptions(&m));
  FRUGAL_ASSIGN_OR_RETURN(m.tier.capacity_bytes, CapacityBytes(m));
  const int64_t capacity = m.tier.capacity_bytes;
  FRUGAL_ASSIGN_OR_RETURN(auto tier, CacheTier::Create(m.tier));
  if (::access("/dev/fuse", R_OK | W_OK) != 0) {
    return InvalidArgument("/dev/fuse: " + std::string(std::strerror(errno)) +
                           " (FUSE is not available on this machine)");
  }
  const fuse_operations ops = MakeOps();
  const std::string fsname = "fsname=frugal:" + m.tier.remote_dir + ",subtype=frugal";
  const char* argv[] = {"frugal", "-o", fsname.c_str(), "-o", "default_permissions"};
  fuse_args args = FUSE_ARGS_INIT(5, const_cast<char**>(argv));
  struct fuse* f = fuse_new(&args, &ops, sizeof(ops), tier.get());
  if (f == nullptr) return Internal("fuse_new failed (see the message above)");
  if (fuse_mount(f, m.mountpoint.c_str()) != 0) {
    fuse_destroy(f);
    return InvalidArgument("MOUNTPOINT " + m.mountpoint +
                           ": mount failed (needs /dev/fuse and fusermount3, or root)");
  }
  fuse_session* se = fuse_get_session(f);
  // libfuse leaves an ignored signal ignored, and a shell starts background
  // jobs with SIGINT ignored: `frugal cache mount ... &` must still stop on it.
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, SIG_DFL);
  if (fuse_set_signal_handlers(se) != 0) {
    fuse_unmount(f);
    fuse_destroy(f);
    return Internal("cannot install signal handlers");
  }
  if (!m.quiet) {
    std::fprintf(stderr,
                 "frugal cache mount: %s at %s, cache %s (%lld bytes, policy %s); "
                 "stop with Ctrl-C or fusermount3 -u %s\n",
                 m.tier.remote_dir.c_str(), m.mountpoint.c_str(), m.tier.cache_dir.c_str(),
                 static_cast<long long>(capacity), m.tier.policy.c_str(), m.mountpoint.c_str());
  }
  fuse_loop_config* cfg = fuse_loop_cfg_create();
  fuse_loop_cfg_set_max_threads(cfg, static_cast<unsigned>(m.max_threads));
  const int rc = fuse_loop_mt(f, cfg);
  fuse_loop_cfg_destroy(cfg);
  fuse_remove_signal_handlers(se);
  fuse_unmount(f);
  fuse_destroy(f);
  const nlohmann::json stats = tier->Stats();
  const Status closed = tier->Close();
  if (!m.quiet) {
    std::fprintf(stderr,
                 "frugal cache mount: stopped; %lld read opens, %lld hits, %lld evictions; "
                 "final counters in %s/stats.json\n",
                 static_cast<long long>(stats["read_opens"].get<int64_t>()),
                 static_cast<long long>(stats["hits"].get<int64_t>()),
                 static_cast<long long>(stats["evictions"].get<int64_t>()), m.tier.cache_dir.c_str());
  }
  if (rc < 0) {  // 0 or the signal that stopped it are clean ends
    return Internal("the FUSE loop ended with error " + std::to_string(-rc));
  }
  return closed;
}

Result<nlohmann::json> ReadMountStats(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return NotFound(path + ": " + std::strerror(errno));
  std::string file = path;
  if (S_ISDIR(st.st_mode)) {
    file = path + "/" + kStatsName;
    if (::stat(file.c_str(), &st) != 0) {
      return InvalidArgument(path + ": not a frugal cache mount (no " + kStatsName +
                             "; give CACHE_DIR/stats.json for a stopped one)");
    }
  }
  FRUGAL_ASSIGN_OR_RETURN(std::string text, ReadFileToString(file, int64_t{1} << 20));
  FRUGAL_ASSIGN_OR_RETURN(nlohmann::json j, ParseJson(text, file));
  if (!j.is_object() || !j.contains("read_opens") || !j.contains("policy")) {
    return InvalidArgument(file + ": not frugal cache-mount stats");
  }
  return j;
}

}  // namespace frugal::cache::fuse
