#include "frugal/cache/fuse/cache_tier.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "frugal/cache/policy_registry.h"

namespace frugal::cache::fuse {

struct TierHandle {
  std::string path;
  int remote_fd = -1;
  int cache_fd = -1;    // reads are served from it; writes are mirrored to it
  int staging_fd = -1;  // a fresh file's bytes, kept if the policy admits it
  std::string staging_path;
  int64_t obj = -1;  // -1: the tier does not track the file
  bool writable = false;
  bool fresh = false;  // created or truncated on open
  bool wrote = false;
  bool mirror_failed = false;
  int64_t bytes_written = 0;
};

namespace {

constexpr size_t kCopyBytes = size_t{1} << 20;

int Errno() { return errno != 0 ? errno : EIO; }

// Writes all of buf at offset; -errno on failure.
int64_t PwriteAll(int fd, const char* buf, size_t size, off_t offset) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pwrite(fd, buf + done, size - done, offset + static_cast<off_t>(done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return -Errno();
    }
    done += static_cast<size_t>(n);
  }
  return static_cast<int64_t>(done);
}

Status EmptyDir(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return InvalidArgument(dir + ": " + std::strerror(errno));
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    if (::unlink((dir + "/" + name).c_str()) != 0 && errno != ENOENT) {
      const std::string why = std::strerror(errno);
      ::closedir(d);
      return InvalidArgument(dir + "/" + name + ": cannot remove a stale cache file: " + why);
    }
  }
  ::closedir(d);
  return Status::Ok();
}

Status MakeDir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return InvalidArgument(dir + ": " + std::strerror(errno));
  }
  return EmptyDir(dir);
}

int64_t MtimeNs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
}

bool UnderDir(const std::string& path, const std::string& dir) {
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         path[dir.size()] == '/';
}

}  // namespace

Result<std::unique_ptr<CacheTier>> CacheTier::Create(const TierOptions& options) {
  if (options.capacity_bytes <= 0) {
    return InvalidArgument("cache capacity must be > 0 bytes, got " +
                           std::to_string(options.capacity_bytes));
  }
  if (options.max_files <= 0 || options.max_files > (int64_t{1} << 31)) {
    return InvalidArgument("--max-files must be in 1..2^31, got " +
                           std::to_string(options.max_files));
  }
  if (!(options.remote_mb_per_s >= 0) || !(options.remote_latency_ms >= 0) ||
      options.remote_latency_ms > 60'000) {
    return InvalidArgument("remote bandwidth must be >= 0 MB/s and latency in 0..60000 ms");
  }
  if (IsOfflinePolicy(options.policy)) {
    return InvalidArgument("policy '" + options.policy +
                           "' reads the future (offline); a mounted cache needs an online policy");
  }
  std::unique_ptr<CacheTier> tier(new CacheTier(options));
  FRUGAL_RETURN_IF_ERROR(tier->Init());
  return tier;
}

CacheTier::CacheTier(const TierOptions& options)
    : options_(options),
      link_(options.remote_mb_per_s, options.remote_latency_ms),
      start_(std::chrono::steady_clock::now()) {}

CacheTier::~CacheTier() { (void)Close(); }

Status CacheTier::Init() {
  FRUGAL_RETURN_IF_ERROR(MakeDir(options_.cache_dir + "/objects"));
  FRUGAL_RETURN_IF_ERROR(MakeDir(options_.cache_dir + "/tmp"));
  live_.source = "mount of " + options_.remote_dir;
  live_.groups = {StageGroup{}};
  live_.has_paths = true;
  PolicyOptions po;
  po.capacity_bytes = options_.capacity_bytes;
  po.trace = &live_;
  po.seed = options_.seed;
  po.object_slots = options_.max_files;
  po.model_path = options_.model_path;
  po.observer = this;
  FRUGAL_ASSIGN_OR_RETURN(policy_, MakePolicy(options_.policy, po));
  if (!options_.trace_out.empty()) {
    FRUGAL_ASSIGN_OR_RETURN(trace_, CreateTraceWriter(options_.trace_out, "frugal"));
  }
  return Status::Ok();
}

int64_t CacheTier::NowUs() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                               start_)
      .count();
}

std::string CacheTier::ObjectFile(uint32_t obj) const {
  return options_.cache_dir + "/objects/" + std::to_string(obj);
}

std::string CacheTier::TmpFile(uint32_t obj, uint32_t generation) const {
  static std::atomic<uint64_t> seq{0};
  return options_.cache_dir + "/tmp/" + std::to_string(obj) + "." + std::to_string(generation) +
         "." + std::to_string(seq.fetch_add(1));
}

void CacheTier::Admitted(uint32_t obj, int64_t) {
  FileState& f = files_[obj];
  f.fill = Fill::kPending;
  ++counters_.admissions;
}

void CacheTier::Dropped(uint32_t obj) {
  FileState& f = files_[obj];
  if (f.fill == Fill::kFilled) ::unlink(ObjectFile(obj).c_str());
  f.fill = Fill::kNone;
  ++f.generation;  // a fill in flight is discarded when it finishes
  if (!deleting_) ++counters_.evictions;
}

int64_t CacheTier::ObjectLocked(const std::string& path, bool create) {
  auto it = ids_.find(path);
  if (it != ids_.end()) return it->second;
  if (static_cast<int64_t>(live_.objects.size()) >= options_.max_files) return -1;
  const auto obj = static_cast<uint32_t>(live_.objects.size());
  ObjectInfo info;
  info.path = path;
  info.first_time_us = NowUs();
  info.created = create;
  live_.objects.push_back(std::move(info));
  files_.emplace_back();
  ids_.emplace(path, obj);
  return obj;
}

bool CacheTier::AccessLocked(RequestKind kind, uint32_t obj, int64_t bytes, int64_t size) {
  Request r;
  r.time_us = NowUs();
  r.bytes = bytes;
  r.obj_size = size;
  r.obj = obj;
  r.kind = kind;
  return policy_->Access(r, requests_++);
}

void CacheTier::ForgetLocked(uint32_t obj) {
  deleting_ = true;
  policy_->Delete(obj);
  deleting_ = false;
  FileState& f = files_[obj];
  f.fill = Fill::kNone;
  ++f.generation;
}

void CacheTier::RecordLocked(EventKind kind, const std::string& path, int64_t length,
                             int64_t size, const std::string& new_path) {
  if (trace_ == nullptr || !trace_status_.ok()) return;
  TraceEvent ev;
  last_time_us_ = std::max(last_time_us_, NowUs());
  ev.time_us = last_time_us_;
  ev.kind = kind;
  ev.path = path;
  ev.new_path = new_path;
  ev.length = length;
  ev.size = size;
  trace_status_ = trace_->Write(ev);
}

void CacheTier::CopyMatchesLocked(uint32_t obj, const struct stat& st) {
  files_[obj].copy_size = st.st_size;
  files_[obj].copy_mtime_ns = MtimeNs(st);
}

void CacheTier::DropIfStaleLocked(uint32_t obj, const struct stat& st) {
  FileState& f = files_[obj];
  if (f.fill != Fill::kFilled || (f.copy_size == st.st_size && f.copy_mtime_ns == MtimeNs(st))) return;
  ::unlink(ObjectFile(obj).c_str());
  f.fill = Fill::kPending;  // still resident for the policy: the next read refills it
  ++f.generation;
  ++counters_.stale_copies;
}

int CacheTier::OpenRemote(TierHandle* h, int flags, mode_t mode, struct stat* st) {
  // O_APPEND is left to the kernel, which sends appends at the file's end.
  h->remote_fd = ::open(RemotePath(h->path).c_str(), (flags & ~O_APPEND) | O_CLOEXEC, mode);
  if (h->remote_fd < 0) {
    ++counters_.remote_errors;
    return -Errno();
  }
  if (::fstat(h->remote_fd, st) != 0) return -Errno();
  return 0;
}

int CacheTier::Open(const std::string& path, int flags, TierHandle** handle) {
  auto h = std::make_unique<TierHandle>();
  h->path = path;
  h->writable = (flags & O_ACCMODE) != O_RDONLY;
  struct stat st;
  int rc = OpenRemote(h.get(), flags & ~(O_CREAT | O_EXCL), 0, &st);
  if (rc == 0) rc = h->writable ? OpenForWrite(h.get(), (flags & O_TRUNC) != 0, st)
                                : OpenForRead(h.get(), st);
  return Handover(std::move(h), rc, handle);
}

int CacheTier::OpenForRead(TierHandle* h, const struct stat& st) {
  const int64_t size = st.st_size;
  ++counters_.read_opens;
  bool fill = false;
  uint32_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    h->obj = ObjectLocked(h->path, false);
    if (h->obj < 0) {
      ++counters_.untracked_opens;
    } else {
      const auto obj = static_cast<uint32_t>(h->obj);
      const bool hit = AccessLocked(RequestKind::kRead, obj, size, size);
      RecordLocked(EventKind::kRead, h->path, size, size);
      ++(hit ? counters_.hits : counters_.misses);
      counters_.open_bytes += size;
      if (hit) counters_.hit_open_bytes += size;
      DropIfStaleLocked(obj, st);
      FileState& f = files_[obj];
      if (f.fill == Fill::kFilled) {
        h->cache_fd = ::open(ObjectFile(obj).c_str(), O_RDONLY | O_CLOEXEC);
      } else if (f.fill == Fill::kPending && f.writers == 0) {
        f.fill = Fill::kFilling;
        generation = f.generation;
        fill = true;
      }
    }
  }
  if (h->cache_fd < 0) link_.Request();
  return fill ? FillAndOpen(h, generation) : 0;
}

int CacheTier::Create(const std::string& path, int flags, mode_t mode, TierHandle** handle) {
  auto h = std::make_unique<TierHandle>();
  h->path = path;
  h->writable = true;
  const bool existed = ::access(RemotePath(path).c_str(), F_OK) == 0;
  struct stat st;
  int rc = OpenRemote(h.get(), flags | O_CREAT, mode, &st);
  if (rc == 0) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      RecordLocked(EventKind::kCreate, path, 0, st.st_size);
    }
    rc = OpenForWrite(h.get(), !existed || (flags & O_TRUNC) != 0, st);
  }
  return Handover(std::move(h), rc, handle);
}

int CacheTier::Handover(std::unique_ptr<TierHandle> h, int rc, TierHandle** handle) {
  if (rc < 0) {
    if (h->remote_fd >= 0) ::close(h->remote_fd);
    return rc;
  }
  *handle = h.release();
  return 0;
}

int CacheTier::OpenForWrite(TierHandle* h, bool fresh, const struct stat& st) {
  h->fresh = fresh;
  {
    std::lock_guard<std::mutex> lock(mu_);
    h->obj = ObjectLocked(h->path, true);
    if (h->obj >= 0) {
      const auto obj = static_cast<uint32_t>(h->obj);
      if (!fresh) DropIfStaleLocked(obj, st);
      FileState& f = files_[obj];
      if (++f.writers > 1) f.shared_write = true;
      if (f.fill == Fill::kFilled) {
        h->cache_fd = ::open(ObjectFile(obj).c_str(), O_RDWR | O_CLOEXEC | (fresh ? O_TRUNC : 0));
        if (h->cache_fd < 0) {  // the copy is gone: refill on the next read
          ::unlink(ObjectFile(obj).c_str());
          f.fill = Fill::kPending;
          ++f.generation;
        }
      } else {
        if (f.fill == Fill::kFilling) {  // the copy being made would be stale
          f.fill = Fill::kPending;
          ++f.generation;
        }
        if (fresh && !f.shared_write) {
          h->staging_path = TmpFile(obj, f.generation);
          h->staging_fd = ::open(h->staging_path.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
        }
      }
    }
  }
  link_.Request();
  return 0;
}

int CacheTier::FillAndOpen(TierHandle* h, uint32_t generation) {
  const auto obj = static_cast<uint32_t>(h->obj);
  const std::string tmp = TmpFile(obj, generation);
  const int out = ::open(tmp.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  int remote_err = 0;
  bool local_ok = out >= 0;
  int64_t copied = 0;
  if (local_ok) {
    std::vector<char> buf(kCopyBytes);
    while (true) {
      const ssize_t n = ::pread(h->remote_fd, buf.data(), buf.size(), copied);
      if (n < 0) {
        if (errno == EINTR) continue;
        remote_err = Errno();
        break;
      }
      if (n == 0) break;
      link_.Download(n);
      if (PwriteAll(out, buf.data(), static_cast<size_t>(n), copied) < 0) {
        local_ok = false;  // the cache disk failed (full?): serve from the remote
        break;
      }
      copied += n;
    }
    ::close(out);
  }
  std::lock_guard<std::mutex> lock(mu_);
  FileState& f = files_[obj];
  const bool current = f.fill == Fill::kFilling && f.generation == generation;
  if (remote_err != 0 || !local_ok || !current) {
    if (out >= 0) ::unlink(tmp.c_str());
    if (current) f.fill = Fill::kPending;
    if (remote_err != 0) {
      ++counters_.remote_errors;
      return -remote_err;
    }
    return 0;
  }
  struct stat st;
  if (::fstat(h->remote_fd, &st) != 0 || st.st_size != copied) {  // changed while copied
    ::unlink(tmp.c_str());
    f.fill = Fill::kPending;
    return 0;
  }
  if (::rename(tmp.c_str(), ObjectFile(obj).c_str()) != 0) {
    ::unlink(tmp.c_str());
    f.fill = Fill::kPending;
    return 0;
  }
  CopyMatchesLocked(obj, st);
  f.fill = Fill::kFilled;
  ++counters_.fills;
  counters_.fill_bytes += copied;
  counters_.bytes_to_cache += copied;
  h->cache_fd = ::open(ObjectFile(obj).c_str(), O_RDONLY | O_CLOEXEC);
  return 0;
}

int64_t CacheTier::Read(TierHandle* h, char* buf, size_t size, off_t offset) {
  if (h->cache_fd >= 0) {
    const ssize_t n = ::pread(h->cache_fd, buf, size, offset);
    if (n >= 0) {
      counters_.bytes_from_cache += n;
      return n;
    }
    // The cache disk failed: the remote still has every byte.
  }
  const ssize_t n = ::pread(h->remote_fd, buf, size, offset);
  if (n < 0) {
    ++counters_.remote_errors;
    return -Errno();
  }
  link_.Download(n);
  counters_.bytes_from_remote += n;
  return n;
}

int64_t CacheTier::Write(TierHandle* h, const char* buf, size_t size, off_t offset) {
  const int64_t n = PwriteAll(h->remote_fd, buf, size, offset);
  if (n < 0) {
    ++counters_.remote_errors;
    return n;
  }
  link_.Upload(n);
  counters_.bytes_to_remote += n;
  h->wrote = true;
  h->bytes_written += n;
  if (h->cache_fd >= 0 && !h->mirror_failed) {
    if (PwriteAll(h->cache_fd, buf, size, offset) < 0) h->mirror_failed = true;
  }
  if (h->staging_fd >= 0 && PwriteAll(h->staging_fd, buf, size, offset) < 0) {
    ::close(h->staging_fd);
    h->staging_fd = -1;
  }
  return n;
}

int CacheTier::Fsync(TierHandle* h, bool datasync) {
  const int rc = datasync ? ::fdatasync(h->remote_fd) : ::fsync(h->remote_fd);
  return rc == 0 ? 0 : -Errno();
}

int CacheTier::Release(TierHandle* handle) {
  std::unique_ptr<TierHandle> h(handle);
  if (h->writable && h->obj >= 0) {
    struct stat st;
    const bool stat_ok = ::fstat(h->remote_fd, &st) == 0;
    const int64_t size = stat_ok ? st.st_size : 0;
    std::lock_guard<std::mutex> lock(mu_);
    const auto obj = static_cast<uint32_t>(h->obj);
    FileState& f = files_[obj];
    --f.writers;
    if (h->wrote || h->fresh) {
      AccessLocked(RequestKind::kWrite, obj, h->bytes_written, size);
      RecordLocked(EventKind::kWrite, h->path, h->bytes_written, size);
      if (f.fill == Fill::kFilled && (h->cache_fd < 0 || h->mirror_failed)) {
        // Filled by a reader while this handle wrote past the copy: drop it.
        ::unlink(ObjectFile(obj).c_str());
        f.fill = Fill::kPending;
        ++f.generation;
      } else if (f.fill == Fill::kPending && h->staging_fd >= 0 && !f.shared_write &&
                 policy_->Resident(obj)) {
        ::close(h->staging_fd);
        h->staging_fd = -1;
        if (::rename(h->staging_path.c_str(), ObjectFile(obj).c_str()) == 0) {
          f.fill = Fill::kFilled;
          counters_.bytes_to_cache += size;
        }
      }
      if (f.fill == Fill::kFilled) {
        if (stat_ok) {
          CopyMatchesLocked(obj, st);  // the copy took this handle's writes too
        } else {
          DropIfStaleLocked(obj, {});
        }
      }
    }
    if (f.writers == 0) f.shared_write = false;
  }
  if (h->staging_fd >= 0) ::close(h->staging_fd);
  if (!h->staging_path.empty()) ::unlink(h->staging_path.c_str());
  if (h->cache_fd >= 0) ::close(h->cache_fd);
  const int rc = ::close(h->remote_fd);
  return rc == 0 ? 0 : -Errno();
}

int CacheTier::Unlink(const std::string& path) {
  if (::unlink(RemotePath(path).c_str()) != 0) return -Errno();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ids_.find(path);
  if (it == ids_.end()) return 0;
  ForgetLocked(it->second);
  ids_.erase(it);
  RecordLocked(EventKind::kDelete, path, 0, 0);
  return 0;
}

int CacheTier::Rename(const std::string& from, const std::string& to, unsigned int flags) {
  if (::renameat2(AT_FDCWD, RemotePath(from).c_str(), AT_FDCWD, RemotePath(to).c_str(), flags) != 0) {
    return -Errno();
  }
  std::lock_guard<std::mutex> lock(mu_);
  if ((flags & RENAME_EXCHANGE) == 0) {
    // The destination was replaced, whether or not the tier knew the source.
    auto old = ids_.find(to);
    if (old != ids_.end() && from != to) {
      ForgetLocked(old->second);
      RecordLocked(EventKind::kDelete, to, 0, 0);
      ids_.erase(old);
    }
  }
  // Tracked names that move: `from` itself, or everything under a directory.
  std::vector<std::pair<std::string, std::string>> moves;
  auto collect = [&](const std::string& a, const std::string& b) {
    for (const auto& [p, obj] : ids_) {
      if (p == a) moves.emplace_back(p, b);
      else if (UnderDir(p, a)) moves.emplace_back(p, b + p.substr(a.size()));
    }
  };
  collect(from, to);
  if ((flags & RENAME_EXCHANGE) != 0) collect(to, from);
  std::vector<std::pair<uint32_t, std::string>> moved;
  for (const auto& [a, b] : moves) {
    moved.emplace_back(ids_.at(a), b);
    ids_.erase(a);
  }
  for (const auto& [obj, b] : moved) {
    auto old = ids_.find(b);
    if (old != ids_.end()) {  // replaced by the rename
      ForgetLocked(old->second);
      RecordLocked(EventKind::kDelete, b, 0, 0);
      ids_.erase(old);
    }
    ObjectInfo& info = live_.objects[obj];
    const std::string before = info.renamed_path.empty() ? info.path : info.renamed_path;
    info.renamed_path = b;
    ids_.emplace(b, obj);
    Request r;
    r.time_us = NowUs();
    r.obj = obj;
    r.kind = RequestKind::kRename;
    r.obj_size = policy_->Resident(obj) ? policy_->ResidentSize(obj) : 0;
    policy_->Rename(r, requests_++);
    RecordLocked(EventKind::kRename, before, 0, r.obj_size, b);
  }
  return 0;
}

int CacheTier::Truncate(const std::string& path, off_t size) {
  if (::truncate(RemotePath(path).c_str(), size) != 0) return -Errno();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ids_.find(path);
  if (it == ids_.end()) return 0;
  const uint32_t obj = it->second;
  FileState& f = files_[obj];
  if (f.fill == Fill::kFilled) {
    struct stat st;
    if (::truncate(ObjectFile(obj).c_str(), size) == 0 && ::stat(RemotePath(path).c_str(), &st) == 0) {
      CopyMatchesLocked(obj, st);
    } else {
      ::unlink(ObjectFile(obj).c_str());
      f.fill = Fill::kPending;
      ++f.generation;
    }
  }
  AccessLocked(RequestKind::kWrite, obj, 0, size);
  RecordLocked(EventKind::kWrite, path, 0, size);
  return 0;
}

nlohmann::json CacheTier::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t resident = 0;
  for (const FileState& f : files_) resident += f.fill == Fill::kFilled;
  const double served = static_cast<double>(counters_.bytes_from_cache + counters_.bytes_from_remote);
  const int64_t opens = counters_.hits + counters_.misses;
  return {
      {"policy", options_.policy},
      {"capacity_bytes", options_.capacity_bytes},
      {"used_bytes", policy_->used_bytes()},
      {"files_tracked", static_cast<int64_t>(ids_.size())},
      {"files_cached", resident},
      {"read_opens", counters_.read_opens.load()},
      {"hits", counters_.hits.load()},
      {"misses", counters_.misses.load()},
      {"hit_ratio", opens > 0 ? static_cast<double>(counters_.hits) / opens : 0.0},
      // As the simulator counts it: the sizes of read-opens that missed.
      {"byte_miss_ratio", counters_.open_bytes > 0
                              ? 1.0 - static_cast<double>(counters_.hit_open_bytes) /
                                          static_cast<double>(counters_.open_bytes)
                              : 0.0},
      {"admissions", counters_.admissions.load()},
      {"evictions", counters_.evictions.load()},
      {"fills", counters_.fills.load()},
      {"untracked_opens", counters_.untracked_opens.load()},
      {"bytes_read_from_cache", counters_.bytes_from_cache.load()},
      {"bytes_read_from_remote", counters_.bytes_from_remote.load()},
      {"byte_hit_ratio", served > 0 ? static_cast<double>(counters_.bytes_from_cache) / served : 0.0},
      {"bytes_filled_from_remote", counters_.fill_bytes.load()},
      {"bytes_written_to_remote", counters_.bytes_to_remote.load()},
      {"bytes_written_to_cache", counters_.bytes_to_cache.load()},
      {"remote_errors", counters_.remote_errors.load()},
      {"stale_copies_dropped", counters_.stale_copies.load()},
      {"requests", requests_},
      {"uptime_s", static_cast<double>(NowUs()) / 1e6},
      {"remote_mb_per_s", options_.remote_mb_per_s},
      {"remote_latency_ms", options_.remote_latency_ms},
      {"trace_out", options_.trace_out},
      {"trace_ok", trace_status_.ok()},
  };
}

Status CacheTier::Close() {
  if (policy_ == nullptr) return Status::Ok();  // Init failed: nothing to flush
  nlohmann::json stats = Stats();
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return Status::Ok();
  closed_ = true;
  Status st = trace_status_;
  if (trace_ != nullptr) {
    const Status c = trace_->Close();
    if (st.ok()) st = c;
  }
  std::ofstream out(options_.cache_dir + "/stats.json");
  out << stats.dump(1) << "\n";
  if (!out && st.ok()) st = InvalidArgument(options_.cache_dir + "/stats.json: cannot write");
  return st;
}

}  // namespace frugal::cache::fuse
