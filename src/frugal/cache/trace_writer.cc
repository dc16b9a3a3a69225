#include "frugal/cache/trace_writer.h"

#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "frugal/base/file_io.h"
#include "frugal/cache/readers/frugal_binary_format.h"

namespace frugal::cache {
namespace {

class FileWriter : public TraceWriter {
 public:
  FileWriter(std::string path, std::FILE* f) : path_(std::move(path)), file_(f) {}
  ~FileWriter() override {
    if (file_ != nullptr) std::fclose(file_);
  }
  Status Close() override {
    const bool bad = std::ferror(file_) != 0;
    const bool close_failed = std::fclose(file_) != 0;
    file_ = nullptr;
    if (bad || close_failed) return InvalidArgument(path_ + ": write failed");
    return Status::Ok();
  }

 protected:
  void Put(const void* data, size_t n) { std::fwrite(data, 1, n, file_); }
  std::string path_;
  std::FILE* file_;
};

class CsvWriter : public FileWriter {
 public:
  using FileWriter::FileWriter;
  Status Write(const TraceEvent& e) override {
    if (e.path.find(',') != std::string::npos || e.new_path.find(',') != std::string::npos) {
      return InvalidArgument(path_ + ": path with a comma cannot be written as CSV: " + e.path);
    }
    const std::string line =
        fmt::format("{},{},{},{},{},{},{},{},{},{}\n", e.time_us, EventKindName(e.kind), e.path,
                    e.offset, e.length, e.size, e.pipeline, e.stage, e.worker, e.new_path);
    Put(line.data(), line.size());
    return Status::Ok();
  }
};

class BinaryWriter : public FileWriter {
 public:
  BinaryWriter(std::string path, std::FILE* f) : FileWriter(std::move(path), f) {
    unsigned char header[frt::kRecordBytes] = {};
    std::memcpy(header, frt::kMagic, 8);
    std::memcpy(header + 8, &frt::kVersion, 4);
    const uint32_t rb = frt::kRecordBytes;
    std::memcpy(header + 12, &rb, 4);
    Put(header, sizeof(header));
  }

  Status Write(const TraceEvent& e) override {
    const uint32_t id = Define(e.path);
    uint32_t aux = 0;
    if (e.kind == EventKind::kRename) aux = Define(e.new_path);
    unsigned char rec[frt::kRecordBytes] = {};
    const int32_t worker = e.worker;
    const int16_t pipeline = static_cast<int16_t>(e.pipeline);
    const uint8_t stage = e.stage < 0 || e.stage >= 255 ? frt::kNoStage : static_cast<uint8_t>(e.stage);
    const uint8_t op = static_cast<uint8_t>(e.kind);
    std::memcpy(rec, &e.time_us, 8);
    std::memcpy(rec + 8, &e.offset, 8);
    std::memcpy(rec + 16, &e.length, 8);
    std::memcpy(rec + 24, &e.size, 8);
    std::memcpy(rec + 32, &id, 4);
    std::memcpy(rec + 36, &aux, 4);
    std::memcpy(rec + 40, &worker, 4);
    std::memcpy(rec + 44, &pipeline, 2);
    std::memcpy(rec + 46, &stage, 1);
    std::memcpy(rec + 47, &op, 1);
    Put(rec, sizeof(rec));
    if (e.kind == EventKind::kDelete) Release(e.path);
    if (e.kind == EventKind::kRename) Release(e.path);
    return Status::Ok();
  }

 private:
  uint32_t Define(const std::string& p) {
    auto it = ids_.find(p);
    if (it != ids_.end()) return it->second;
    uint32_t id;
    if (!free_.empty()) {
      id = free_.back();
      free_.pop_back();
    } else {
      id = next_id_++;
    }
    ids_.emplace(p, id);
    unsigned char rec[frt::kRecordBytes] = {};
    const uint32_t len = static_cast<uint32_t>(p.size());
    const uint8_t op = frt::kOpPathDefinition;
    std::memcpy(rec + 32, &id, 4);
    std::memcpy(rec + 36, &len, 4);
    std::memcpy(rec + 47, &op, 1);
    Put(rec, sizeof(rec));
    std::vector<unsigned char> raw((len + frt::kRecordBytes - 1) / frt::kRecordBytes *
                                   frt::kRecordBytes, 0);
    std::memcpy(raw.data(), p.data(), len);
    Put(raw.data(), raw.size());
    return id;
  }
  void Release(const std::string& p) {
    auto it = ids_.find(p);
    if (it == ids_.end()) return;
    free_.push_back(it->second);
    ids_.erase(it);
  }

  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<uint32_t> free_;
  uint32_t next_id_ = 0;
};

}  // namespace

Result<std::unique_ptr<TraceWriter>> CreateTraceWriter(const std::string& path,
                                                       const std::string& format) {
  std::string f = format;
  if (f == "auto") f = FileExtension(path) == "csv" ? "csv" : "frugal";
  if (f != "csv" && f != "frugal") {
    return InvalidArgument("unknown output trace format '" + format + "' (expected frugal or csv)");
  }
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return InvalidArgument(path + ": cannot create file");
  if (f == "csv") {
    static const char kHeader[] =
        "time_us,op,path,offset,length,size,pipeline,stage,worker,new_path\n";
    std::fwrite(kHeader, 1, sizeof(kHeader) - 1, file);
    return std::unique_ptr<TraceWriter>(new CsvWriter(path, file));
  }
  return std::unique_ptr<TraceWriter>(new BinaryWriter(path, file));
}

}  // namespace frugal::cache
