#include "frugal/cache/request_trace.h"

#include "frugal/cache/id_index.h"
#include "frugal/cache/readers/oracle_general.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

namespace frugal::cache {
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

class Loader {
 public:
  explicit Loader(RequestTrace* t) : t_(t) {}

  Status Add(const TraceEvent& e, const TraceReader& reader) {
    auto error = [&](const std::string& what) {
      return InvalidArgument(reader.path() + ": record " + std::to_string(reader.record()) +
                             ": " + what);
    };
    if (e.size < 0) return error("negative size " + std::to_string(e.size));
    if (e.length < 0) return error("negative length " + std::to_string(e.length));
    if (e.offset < 0) return error("negative offset " + std::to_string(e.offset));
    if (e.time_us < 0) return error("negative time " + std::to_string(e.time_us));
    if (e.time_us < last_time_us_) {
      return error("time " + std::to_string(e.time_us) + " us is before the previous record's " +
                   std::to_string(last_time_us_) + " us (traces must be sorted by time)");
    }
    last_time_us_ = e.time_us;
    group_ = Group(e);
    if (e.path.empty()) return AddObjectRead(e);
    t_->has_paths = true;
    auto it = live_.find(e.path);
    const bool known = it != live_.end();
    Request r;
    r.time_us = e.time_us;
    r.group = group_;
    switch (e.kind) {
      case EventKind::kCreate:
      case EventKind::kWrite: {
        uint32_t obj = known ? it->second : NewObject(e, true);
        int64_t& size = sizes_[obj];
        const int64_t end = e.offset + e.length;
        size = std::max({e.size, end, e.kind == EventKind::kCreate ? e.size : size});
        if (e.kind == EventKind::kCreate && e.length == 0) return Status::Ok();
        r.kind = RequestKind::kWrite;
        r.obj = obj;
        r.bytes = e.length;
        r.obj_size = size;
        t_->written_bytes += e.length;
        break;
      }
      case EventKind::kRead: {
        uint32_t obj;
        if (known) {
          obj = it->second;
        } else if (e.size > 0 && !ever_deleted(e.path)) {
          obj = NewObject(e, false);  // existed before the trace began
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
        ++t_->reads;
        t_->read_bytes += r.bytes;
        break;
      }
      case EventKind::kRename: {
        if (!known) {
          ++t_->skipped.unknown_renames;
          return Status::Ok();
        }
        const uint32_t obj = it->second;
        live_.erase(it);
        auto old = live_.find(e.new_path);
        if (old != live_.end()) {  // rename over an existing file deletes it
          EmitDelete(old->second, e.time_us);
          live_.erase(old);
        }
        live_[e.new_path] = obj;
        t_->objects[obj].renamed_path = e.new_path;
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
        const uint32_t obj = it->second;
        deleted_.insert(e.path);
        live_.erase(it);
        EmitDelete(obj, e.time_us);
        return Status::Ok();
      }
    }
    t_->requests.push_back(r);
    return Status::Ok();
  }

  void Finish();

 private:
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

  bool ever_deleted(const std::string& p) const { return deleted_.count(p) != 0; }

  Status AddObjectRead(const TraceEvent& e) {
    bool inserted = false;
    const uint32_t obj = ids_.FindOrInsert(e.object_id, static_cast<uint32_t>(t_->objects.size()), &inserted);
    if (inserted) {
      ObjectInfo info;
      info.first_time_us = e.time_us;
      t_->objects.push_back(info);
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
      ++t_->reads;
      t_->read_bytes += r.bytes;
    }
    t_->requests.push_back(r);
    return Status::Ok();
  }

  uint32_t NewObject(const TraceEvent& e, bool created) {
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
    live_[e.path] = obj;
    deleted_.erase(e.path);
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
  std::unordered_map<std::string, uint32_t> live_;
  std::unordered_set<std::string> deleted_;
  std::vector<int64_t> sizes_;
};

// Fills in next_read and the footprint.
void FinishTrace(RequestTrace* t, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> next(t->objects.size(), kNever);
  for (int64_t i = static_cast<int64_t>(t->requests.size()) - 1; i >= 0; --i) {
    Request& r = t->requests[i];
    r.next_read = next[r.obj];
    if (r.kind == RequestKind::kRead) next[r.obj] = i;
  }
  for (int64_t s : sizes) t->footprint_bytes += s;
}

// oracleGeneral straight into a RequestTrace: blocks of 64 Ki records read
// with fread, ids indexed by IdIndex, no TraceEvent per record. Same result
// and errors as the streaming reader + Loader.
Result<RequestTrace> LoadOracleGeneral(const std::string& path) {
  int64_t records = 0;
  FRUGAL_ASSIGN_OR_RETURN(std::FILE* f, OpenOracleGeneralFile(path, &records));
  struct Closer {
    std::FILE* f;
    ~Closer() { std::fclose(f); }
  } closer{f};
  RequestTrace t;
  t.source = path;
  t.requests.reserve(static_cast<size_t>(records));
  if (records > 0) t.groups.push_back(StageGroup{});
  IdIndex ids(static_cast<size_t>(std::min<int64_t>(records / 4, 1 << 22)));
  std::vector<int64_t> sizes;
  constexpr int64_t kBlock = 1 << 16;
  std::vector<unsigned char> buf(kBlock * kOracleRecordBytes);
  int64_t last_time_us = 0;
  for (int64_t done = 0; done < records;) {
    const int64_t want = std::min(kBlock, records - done);
    const size_t got = std::fread(buf.data(), kOracleRecordBytes, static_cast<size_t>(want), f);
    if (static_cast<int64_t>(got) != want) {
      return InvalidArgument(path + ": record " + std::to_string(done + static_cast<int64_t>(got) + 1) +
                             ": unexpected end of file");
    }
    for (int64_t k = 0; k < want; ++k) {
      const unsigned char* p = buf.data() + k * kOracleRecordBytes;
      uint32_t time_s, size32;
      uint64_t id;
      std::memcpy(&time_s, p, 4);
      std::memcpy(&id, p + 4, 8);
      std::memcpy(&size32, p + 12, 4);
      const int64_t time_us = static_cast<int64_t>(time_s) * 1000000;
      if (time_us < last_time_us) {
        return InvalidArgument(path + ": record " + std::to_string(done + k + 1) + ": time " +
                               std::to_string(time_us) + " us is before the previous record's " +
                               std::to_string(last_time_us) +
                               " us (traces must be sorted by time)");
      }
      last_time_us = time_us;
      const int64_t size = size32;
      bool inserted = false;
      const uint32_t obj = ids.FindOrInsert(id, static_cast<uint32_t>(t.objects.size()), &inserted);
      if (inserted) {
        ObjectInfo info;
        info.first_time_us = time_us;
        t.objects.push_back(info);
        sizes.push_back(size);
      } else if (size > sizes[obj]) {
        sizes[obj] = size;
      }
      Request r;
      r.time_us = time_us;
      r.obj = obj;
      r.bytes = size;
      r.obj_size = size;
      t.requests.push_back(r);
      t.read_bytes += size;
    }
    done += want;
  }
  t.reads = records;
  t.records = records;
  FinishTrace(&t, sizes);
  return t;
}

void Loader::Finish() { FinishTrace(t_, sizes_); }

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
  loader.Finish();
  return t;
}

Result<RequestTrace> LoadRequestTrace(const std::string& path, const std::string& format) {
  if (format == "oracle" || (format == "auto" && GuessTraceFormat(path) == "oracle")) {
    return LoadOracleGeneral(path);
  }
  FRUGAL_ASSIGN_OR_RETURN(auto reader, OpenTrace(path, format));
  return LoadRequestTrace(*reader);
}

Result<RequestTrace> LoadRequestTrace(const std::vector<TraceEvent>& events,
                                      const std::string& source) {
  VectorReader reader(events, source);
  return LoadRequestTrace(reader);
}

}  // namespace frugal::cache
