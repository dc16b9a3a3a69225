#include "frugal/cache/request_trace.h"

#include <algorithm>
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

  void Finish() {
    std::vector<int64_t> next(t_->objects.size(), kNever);
    for (int64_t i = static_cast<int64_t>(t_->requests.size()) - 1; i >= 0; --i) {
      Request& r = t_->requests[i];
      r.next_read = next[r.obj];
      if (r.kind == RequestKind::kRead) next[r.obj] = i;
    }
    for (int64_t s : sizes_) t_->footprint_bytes += s;
  }

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
    auto [it, inserted] = ids_.try_emplace(e.object_id, 0);
    if (inserted) {
      it->second = static_cast<uint32_t>(t_->objects.size());
      ObjectInfo info;
      info.first_time_us = e.time_us;
      t_->objects.push_back(info);
      sizes_.push_back(e.size);
    }
    const uint32_t obj = it->second;
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
  std::unordered_map<uint64_t, uint32_t> ids_;
  std::unordered_map<std::string, uint32_t> live_;
  std::unordered_set<std::string> deleted_;
  std::vector<int64_t> sizes_;
};

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
  FRUGAL_ASSIGN_OR_RETURN(auto reader, OpenTrace(path, format));
  return LoadRequestTrace(*reader);
}

Result<RequestTrace> LoadRequestTrace(const std::vector<TraceEvent>& events,
                                      const std::string& source) {
  VectorReader reader(events, source);
  return LoadRequestTrace(reader);
}

}  // namespace frugal::cache
