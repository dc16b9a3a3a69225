#include "frugal/cache/request_trace.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "frugal/cache/id_index.h"
#include "frugal/cache/readers/oracle_general.h"

namespace frugal::cache {

const ObjectInfo ObjectTable::kNoInfo{};

namespace {

class VectorReader : public TraceReader {
 public:
  VectorReader(const std::vector<TraceEvent>& events, std::string source)
      : TraceReader(std::move(source)), events_(events) {}
  Result<bool> Next(TraceEvent* ev) override {
    if (record_ >= static_cast<int64_t>(events_.size())) return false;
    *ev = events_[record_++];
    return true;
  }

 private:
  const std::vector<TraceEvent>& events_;
};

// Path -> object id for the loader, open addressing over one flat array
// (no node or key copy per path). A slot holds the object id and the
// path's hash; the key itself is the object's current name in the trace
// (renamed_path when renamed, else path), so it is stored only once, in
// the ObjectInfo. Erased slots become tombstones, cleared by the rebuild
// that doubling or too many tombstones trigger.
class PathIndex {
 public:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;

  explicit PathIndex(const ObjectTable* objects) : objects_(objects), slots_(64) {}

  static uint64_t Hash(std::string_view p) { return std::hash<std::string_view>()(p); }

  uint32_t Find(std::string_view p, uint64_t h) const {
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.obj == kNone) return kNone;
      if (s.obj != kTomb && s.hash == h && Name(s.obj) == p) return s.obj;
    }
  }
  // Maps p to obj (replacing p's entry). REQUIRES: Name(obj) == p.
  void Put(std::string_view p, uint64_t h, uint32_t obj) {
    const size_t mask = slots_.size() - 1;
    size_t free = SIZE_MAX;
    size_t i = h & mask;
    for (;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.obj == kNone) break;
      if (s.obj == kTomb) {
        if (free == SIZE_MAX) free = i;
      } else if (s.hash == h && Name(s.obj) == p) {
        s.obj = obj;
        return;
      }
    }
    if (free != SIZE_MAX) {
      i = free;
      --tombs_;
    }
    slots_[i] = Slot{h, obj};
    ++size_;
    if ((size_ + tombs_) * 4 > slots_.size() * 3) Rebuild(size_ * 2 > slots_.size() ? slots_.size() * 2 : slots_.size());
  }
  // REQUIRES: p's object still has p as its name.
  void Erase(std::string_view p, uint64_t h) {
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.obj == kNone) return;
      if (s.obj != kTomb && s.hash == h && Name(s.obj) == p) {
        s.obj = kTomb;
        --size_;
        ++tombs_;
        return;
      }
    }
  }

 private:
  static constexpr uint32_t kTomb = 0xFFFFFFFEu;
  struct Slot {
    uint64_t hash = 0;
    uint32_t obj = kNone;
  };
  std::string_view Name(uint32_t obj) const {
    const ObjectInfo& o = (*objects_)[obj];
    return o.renamed_path.empty() ? std::string_view(o.path) : std::string_view(o.renamed_path);
  }
  void Rebuild(size_t n) {
    std::vector<Slot> old(n);
    old.swap(slots_);
    tombs_ = 0;
    const size_t mask = n - 1;
    for (const Slot& s : old) {
      if (s.obj == kNone || s.obj == kTomb) continue;
      size_t i = s.hash & mask;
      while (slots_[i].obj != kNone) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  const ObjectTable* objects_;
  std::vector<Slot> slots_;
  size_t size_ = 0;
  size_t tombs_ = 0;
};

// Bounds on sizes, so that no byte count overflows: a record's size,
// offset or length at most 1 PiB, a trace's totals at most 2^62 bytes.
constexpr int64_t kMaxRecordBytes = int64_t{1} << 50;
constexpr int64_t kMaxTotalBytes = int64_t{1} << 62;

class Loader {
 public:
  explicit Loader(RequestTrace* t) : t_(t), live_(&t->objects), deleted_(&t->objects) {}

  Status Add(const TraceEvent& e, const TraceReader& reader) {
    auto error = [&](const std::string& what) {
      return InvalidArgument(reader.path() + ": record " + std::to_string(reader.record()) +
                             ": " + what);
    };
    if (e.size < 0) return error("negative size " + std::to_string(e.size));
    if (e.length < 0) return error("negative length " + std::to_string(e.length));
    if (e.offset < 0) return error("negative offset " + std::to_string(e.offset));
    if (e.size > kMaxRecordBytes || e.length > kMaxRecordBytes || e.offset > kMaxRecordBytes) {
      return error("size, offset or length over 1 PiB (2^50 bytes)");
    }
    if (e.time_us < 0) return error("negative time " + std::to_string(e.time_us));
    if (e.time_us < last_time_us_) {
      return error("time " + std::to_string(e.time_us) + " us is before the previous record's " +
                   std::to_string(last_time_us_) + " us (traces must be sorted by time)");
    }
    last_time_us_ = e.time_us;
    group_ = Group(e);
    if (e.path.empty()) return AddObjectRead(e, error);
    t_->has_paths = true;
    const uint64_t h = PathIndex::Hash(e.path);
    const uint32_t found = live_.Find(e.path, h);
    const bool known = found != PathIndex::kNone;
    Request r;
    r.time_us = e.time_us;
    r.group = group_;
    switch (e.kind) {
      case EventKind::kCreate:
      case EventKind::kWrite: {
        uint32_t obj = known ? found : NewObject(e, h, true);
        int64_t& size = sizes_[obj];
        const int64_t end = e.offset + e.length;
        size = std::max({e.size, end, e.kind == EventKind::kCreate ? e.size : size});
        if (e.kind == EventKind::kCreate && e.length == 0) return Status::Ok();
        r.kind = RequestKind::kWrite;
        r.obj = obj;
        r.bytes = e.length;
        r.obj_size = size;
        t_->written_bytes += e.length;
        if (t_->written_bytes > kMaxTotalBytes) return error("the bytes written add up to over 2^62");
        break;
      }
      case EventKind::kRead: {
        uint32_t obj;
        if (known) {
          obj = found;
        } else if (e.size > 0 && deleted_.Find(e.path, h) == PathIndex::kNone) {
          obj = NewObject(e, h, false);  // existed before the trace began
        } else {
          ++t_->skipped.unknown_reads;
          return Status::Ok();
        }
        int64_t& size = sizes_[obj];
        size = std::max({size, e.size, e.offset + e.length});
        r.kind = RequestKind::kRead;
        r.obj = obj;
        r.bytes = e.length > 0 ? e.length : size;
        r.obj_size = size;
        if (!CountRead(r.bytes)) return error(kTooManyBytesRead);
        break;
      }
      case EventKind::kRename: {
        if (!known) {
          ++t_->skipped.unknown_renames;
          return Status::Ok();
        }
        if (e.new_path.empty()) return error("rename without new_path");
        const uint32_t obj = found;
        live_.Erase(e.path, h);
        const uint64_t nh = PathIndex::Hash(e.new_path);
        const uint32_t old = live_.Find(e.new_path, nh);
        if (old != PathIndex::kNone) {  // rename over an existing file deletes it
          EmitDelete(old, e.time_us);
          live_.Erase(e.new_path, nh);
        }
        t_->objects[obj].renamed_path = e.new_path;
        live_.Put(e.new_path, nh, obj);
        r.kind = RequestKind::kRename;
        r.obj = obj;
        r.obj_size = sizes_[obj];
        break;
      }
      case EventKind::kDelete: {
        if (!known) {
          ++t_->skipped.unknown_deletes;
          return Status::Ok();
        }
        const uint32_t obj = found;
        live_.Erase(e.path, h);
        deleted_.Put(e.path, h, obj);
        EmitDelete(obj, e.time_us);
        return Status::Ok();
      }
    }
    t_->requests.push_back(r);
    return Status::Ok();
  }

  Status Finish(const std::string& path);

 private:
  static constexpr const char* kTooManyBytesRead = "the bytes read add up to over 2^62";

  // Counts a read; false once the bytes read pass kMaxTotalBytes (each
  // read is at most 2^51 bytes, offset plus length, so the sum cannot overflow).
  bool CountRead(int64_t bytes) {
    ++t_->reads;
    t_->read_bytes += bytes;
    return t_->read_bytes <= kMaxTotalBytes;
  }

  uint16_t Group(const TraceEvent& e) {
    const StageGroup g{e.pipeline, e.stage};
    auto& groups = t_->groups;
    if (!groups.empty() && groups[last_group_] == g) return last_group_;
    for (size_t i = 0; i < groups.size(); ++i) {
      if (groups[i] == g) return last_group_ = static_cast<uint16_t>(i);
    }
    if (groups.size() >= 65535) return last_group_;
    groups.push_back(g);
    return last_group_ = static_cast<uint16_t>(groups.size() - 1);
  }

  template <class Error>
  Status AddObjectRead(const TraceEvent& e, const Error& error) {
    bool inserted = false;
    const uint32_t obj = ids_.FindOrInsert(e.object_id, static_cast<uint32_t>(t_->objects.size()), &inserted);
    if (inserted) {
      t_->objects.AddPathless();
      sizes_.push_back(e.size);
    }
    sizes_[obj] = std::max(sizes_[obj], e.size);
    Request r;
    r.time_us = e.time_us;
    r.group = group_;
    r.kind = e.kind == EventKind::kWrite ? RequestKind::kWrite : RequestKind::kRead;
    r.obj = obj;
    r.bytes = e.length > 0 ? e.length : e.size;
    r.obj_size = e.size;
    if (r.kind == RequestKind::kRead) {
      if (!CountRead(r.bytes)) return error(kTooManyBytesRead);
    }
    t_->requests.push_back(r);
    return Status::Ok();
  }

  uint32_t NewObject(const TraceEvent& e, uint64_t h, bool created) {
    const uint32_t obj = static_cast<uint32_t>(t_->objects.size());
    ObjectInfo info;
    info.path = e.path;
    info.first_time_us = e.time_us;
    info.pipeline = e.pipeline;
    info.stage = e.stage;
    info.worker = e.worker;
    info.created = created;
    t_->objects.push_back(std::move(info));
    sizes_.push_back(0);
    deleted_.Erase(e.path, h);
    live_.Put(e.path, h, obj);
    return obj;
  }

  void EmitDelete(uint32_t obj, int64_t time_us) {
    Request r;
    r.time_us = time_us;
    r.kind = RequestKind::kDelete;
    r.group = group_;
    r.obj = obj;
    r.obj_size = sizes_[obj];
    t_->requests.push_back(r);
  }

  RequestTrace* t_;
  int64_t last_time_us_ = 0;
  uint16_t group_ = 0;
  uint16_t last_group_ = 0;
  IdIndex ids_;
  PathIndex live_;     // live paths
  PathIndex deleted_;  // paths deleted and not created since
  std::vector<int64_t> sizes_;
};

// Fills in next_read (one backward pass over a flat per-object table,
// each object's slot prefetched a few requests ahead) and the footprint.
template <class Size>
void FinishTrace(RequestTrace* t, const std::vector<Size>& sizes) {
  std::vector<int64_t> next;
  next.reserve(t->objects.size());
  AdviseHugePages(next.data(), next.capacity() * sizeof(int64_t));
  next.resize(t->objects.size(), kNever);
  Request* reqs = t->requests.data();
  constexpr int64_t kAhead = 16;
  for (int64_t i = static_cast<int64_t>(t->requests.size()) - 1; i >= 0; --i) {
    if (i >= kAhead) __builtin_prefetch(&next[reqs[i - kAhead].obj]);
    Request& r = reqs[i];
    r.next_read = next[r.obj];
    if (r.kind == RequestKind::kRead) next[r.obj] = i;
  }
  for (Size s : sizes) t->footprint_bytes += static_cast<int64_t>(s);
}

// The indexing pass over an oracleGeneral file: blocks read by pread, each
// block's ids hashed first so the index slots can be prefetched ahead,
// times checked, objects counted (no ObjectInfo: the trace has no paths)
// with their largest size. Calls sink(record index, time_us, size, obj)
// per record. Fills t's counts and footprint; not next_read.
template <class Sink>
Status IndexOracleGeneral(const OracleGeneralFile& f, double distinct, RequestTrace* t, Sink sink) {
  const int64_t records = f.records();
  t->source = f.path();
  if (records > 0) t->groups.push_back(StageGroup{});
  IdIndex ids = IdIndex::ForDistinct(distinct);
  constexpr int64_t kBlock = OracleGeneralFile::kBlockRecords;
  constexpr int64_t kAhead = 12;
  std::vector<uint64_t> hashes(kBlock);
  int64_t last_time_us = 0;
  int64_t read_bytes = 0;
  uint32_t objects = 0;
  for (int64_t done = 0; done < records;) {
    const int64_t want = std::min(kBlock, records - done);
    const unsigned char* buf = nullptr;
    FRUGAL_RETURN_IF_ERROR(f.View(done, want, &buf));
    for (int64_t k = 0; k < want; ++k) {
      uint64_t id;
      std::memcpy(&id, buf + k * kOracleRecordBytes + 4, 8);
      hashes[k] = IdIndex::Hash(id);
    }
    for (int64_t k = 0; k < std::min(kAhead, want); ++k) ids.Prefetch(hashes[k]);
    for (int64_t k = 0; k < want; ++k) {
      if (k + kAhead < want) ids.Prefetch(hashes[k + kAhead]);
      const OracleRecord rec = DecodeOracleRecord(buf + k * kOracleRecordBytes);
      const int64_t time_us = static_cast<int64_t>(rec.time_s) * 1000000;
      if (time_us < last_time_us) {
        return InvalidArgument(f.path() + ": record " + std::to_string(done + k + 1) + ": time " +
                               std::to_string(time_us) + " us is before the previous record's " +
                               std::to_string(last_time_us) +
                               " us (traces must be sorted by time)");
      }
      last_time_us = time_us;
      if (objects == IdIndex::kEmpty) {
        return InvalidArgument(f.path() + ": record " + std::to_string(done + k + 1) +
                               ": more than 4294967294 objects");
      }
      bool inserted = false;
      uint32_t* largest = nullptr;  // the object's largest size so far
      const uint32_t obj = ids.FindOrInsert(rec.id, hashes[k], objects, &inserted, &largest);
      if (inserted) ++objects;
      if (rec.size > *largest) *largest = rec.size;
      read_bytes += rec.size;
      sink(done + k, time_us, static_cast<int64_t>(rec.size), obj);
    }
    done += want;
  }
  for (uint32_t i = 0; i < objects; ++i) t->objects.AddPathless();
  ids.ForEach([t](uint32_t, uint32_t largest) { t->footprint_bytes += largest; });
  t->read_bytes = read_bytes;
  t->reads = records;
  t->records = records;
  return Status::Ok();
}

// The bytes this process may use: the smaller of physical memory and
// RLIMIT_AS; 0 when unknown.
double MemoryAllowed() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  double have = static_cast<double>(pages) * static_cast<double>(page);
  struct rlimit lim;
  if (::getrlimit(RLIMIT_AS, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
    have = std::min(have, static_cast<double>(lim.rlim_cur));
  }
  return have;
}

// The most requests at `bytes_per_request` that fit in 90 % of
// MemoryAllowed(); -1 when unknown (no limit).
int64_t MaxRecordsInMemory(int64_t bytes_per_request) {
  const double have = MemoryAllowed();
  if (have <= 0) return -1;
  return static_cast<int64_t>(0.9 * have / static_cast<double>(bytes_per_request));
}

// A trace too large for this machine is an error before the allocation,
// not the OOM killer after it: `records` requests at `bytes_per_request`
// must fit in 90 % of MemoryAllowed(). `at_least`: records is a lower
// bound (a compressed file counted until it was known to be too large).
Status CheckFitsInMemory(const OracleGeneralFile& f, int64_t bytes_per_request, const char* how,
                         const char* advice) {
  const double have = MemoryAllowed();
  if (have <= 0) return Status::Ok();
  const double need = static_cast<double>(f.records()) * static_cast<double>(bytes_per_request);
  if (f.records_exact() && need <= 0.9 * have) return Status::Ok();
  const char* more = f.records_exact() ? "" : "over ";
  char msg[200];
  std::snprintf(msg, sizeof(msg), " requests need %s%.2f GiB to %s, over 90%% of the %.2f GiB this process may use",
                more, need / (1 << 30), how, have / (1 << 30));
  return InvalidArgument(f.path() + ": " + more + std::to_string(f.records()) + msg +
                         (f.records_exact() ? "" : " (decompression stopped there)") + advice);
}

// Memory a loaded oracleGeneral request needs: its Request and the
// per-object tables' share.
constexpr int64_t kLoadBytes = static_cast<int64_t>(sizeof(Request)) + 4;

// oracleGeneral straight into a RequestTrace, no TraceEvent per record.
// Same result and errors as the streaming reader + Loader.
Result<RequestTrace> LoadOracleGeneral(const std::string& path) {
  FRUGAL_ASSIGN_OR_RETURN(auto f, OracleGeneralFile::Open(path, MaxRecordsInMemory(kLoadBytes)));
  FRUGAL_RETURN_IF_ERROR(CheckFitsInMemory(
      *f, kLoadBytes, "load", "; online policies (not belady) are simulated streamed, in about 8 bytes a request"));
  RequestTrace t;
  t.requests.reserve(static_cast<size_t>(f->records()));
  AdviseHugePages(t.requests.data(), t.requests.capacity() * sizeof(Request));
  t.requests.resize(static_cast<size_t>(f->records()));
  Request* reqs = t.requests.data();
  FRUGAL_ASSIGN_OR_RETURN(const double distinct, f->DistinctIds());
  FRUGAL_RETURN_IF_ERROR(IndexOracleGeneral(*f, distinct, &t, [reqs](int64_t i, int64_t time_us, int64_t size, uint32_t obj) {
    Request& r = reqs[i];
    r.time_us = time_us;
    r.obj = obj;
    r.bytes = size;
    r.obj_size = size;
  }));
  FinishTrace(&t, std::vector<int64_t>{});
  return t;
}

Status Loader::Finish(const std::string& path) {
  int64_t footprint = 0;
  for (int64_t size : sizes_) {
    footprint += size;  // each at most 2^50: no overflow before the check
    if (footprint > kMaxTotalBytes) return InvalidArgument(path + ": the files' sizes add up to over 2^62 bytes");
  }
  FinishTrace(t_, sizes_);
  return Status::Ok();
}

}  // namespace

Result<RequestTrace> LoadRequestTrace(TraceReader& reader) {
  RequestTrace t;
  t.source = reader.path();
  Loader loader(&t);
  TraceEvent ev;
  while (true) {
    Result<bool> more = reader.Next(&ev);
    if (!more.ok()) return more.status();
    if (!*more) break;
    FRUGAL_RETURN_IF_ERROR(loader.Add(ev, reader));
  }
  t.records = reader.record();
  FRUGAL_RETURN_IF_ERROR(loader.Finish(reader.path()));
  return t;
}

Result<RequestTrace> LoadRequestTrace(const std::string& path, const std::string& format) {
  if (IsOracleGeneral(path, format)) return LoadOracleGeneral(path);
  FRUGAL_ASSIGN_OR_RETURN(auto reader, OpenTrace(path, format));
  return LoadRequestTrace(*reader);
}

StreamedTrace::StreamedTrace() = default;
StreamedTrace::StreamedTrace(StreamedTrace&&) noexcept = default;
StreamedTrace& StreamedTrace::operator=(StreamedTrace&&) noexcept = default;
StreamedTrace::~StreamedTrace() = default;

bool OracleGeneralLoadFits(const std::string& path) {
  // Twice the load's own estimate: a trace with many objects needs more
  // than 44 bytes a request for its index, and each simulated cell adds
  // its policy's state.
  constexpr int64_t kMargin = 2 * kLoadBytes;
  auto f = OracleGeneralFile::Open(path, MaxRecordsInMemory(kMargin));
  return !f.ok() || CheckFitsInMemory(**f, kMargin, "load", "").ok();
}

Result<StreamedTrace> StreamedTrace::Open(const std::string& path) {
  StreamedTrace s;
  FRUGAL_ASSIGN_OR_RETURN(s.file_, OracleGeneralFile::Open(path, MaxRecordsInMemory(8)));
  FRUGAL_RETURN_IF_ERROR(CheckFitsInMemory(*s.file_, 8, "index", ""));
  FRUGAL_ASSIGN_OR_RETURN(const double distinct, s.file_->DistinctIds());
  // 3 bytes an id when every id will be under 2^24: at most one per
  // record, or (with room for the estimate's error) fewer objects.
  constexpr double kNarrow = 1 << 24;
  const auto records = s.file_->records();
  s.objs_ = PackedIds(static_cast<size_t>(records), records < kNarrow || distinct * 1.1 < kNarrow);
  PackedIds* objs = &s.objs_;
  FRUGAL_RETURN_IF_ERROR(IndexOracleGeneral(*s.file_, distinct, &s.trace_,
                                            [objs](int64_t i, int64_t, int64_t, uint32_t obj) {
                                              objs->Set(static_cast<size_t>(i), obj);
                                            }));
  return s;
}

Status StreamedTrace::Replay(const std::function<void(std::span<const Request>, int64_t)>& fn) const {
  constexpr int64_t kBlock = OracleGeneralFile::kBlockRecords;
  std::vector<Request> block(kBlock);
  const int64_t records = requests();
  for (int64_t done = 0; done < records;) {
    const int64_t want = std::min(kBlock, records - done);
    const unsigned char* buf = nullptr;
    FRUGAL_RETURN_IF_ERROR(file_->View(done, want, &buf));
    for (int64_t k = 0; k < want; ++k) {
      const OracleRecord rec = DecodeOracleRecord(buf + k * kOracleRecordBytes);
      Request& r = block[k];
      r.time_us = static_cast<int64_t>(rec.time_s) * 1000000;
      r.bytes = rec.size;
      r.obj_size = rec.size;
      r.obj = objs_.Get(static_cast<size_t>(done + k));
    }
    fn(std::span<const Request>(block.data(), static_cast<size_t>(want)), done);
    done += want;
  }
  return Status::Ok();
}

Result<RequestTrace> LoadRequestTrace(const std::vector<TraceEvent>& events,
                                      const std::string& source) {
  VectorReader reader(events, source);
  return LoadRequestTrace(reader);
}

}  // namespace frugal::cache
