// libCacheSim oracleGeneral: little-endian records of 24 bytes,
// uint32 time_s, uint64 obj_id, uint32 obj_size, int64 next_access_vtime.
// Every record is a whole-object read.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "frugal/base/file_io.h"
#include "frugal/cache/readers/oracle_general.h"
#include "frugal/cache/trace_reader.h"

namespace frugal::cache {
namespace {

constexpr int64_t kRecordBytes = kOracleRecordBytes;
constexpr int64_t kBufferRecords = 1 << 16;

class OracleGeneralReader : public TraceReader {
 public:
  OracleGeneralReader(std::string path, std::FILE* f, int64_t records)
      : TraceReader(std::move(path)), file_(f), records_(records),
        buffer_(kBufferRecords * kRecordBytes) {}
  ~OracleGeneralReader() override { std::fclose(file_); }

  Result<bool> Next(TraceEvent* ev) override {
    if (record_ >= records_) return false;
    if (pos_ == filled_) {
      const size_t n = std::fread(buffer_.data(), kRecordBytes, kBufferRecords, file_);
      if (n == 0) {
        ++record_;
        return RecordError("unexpected end of file");
      }
      filled_ = static_cast<int64_t>(n);
      pos_ = 0;
    }
    const unsigned char* p = buffer_.data() + pos_ * kRecordBytes;
    ++pos_;
    ++record_;
    uint32_t time_s, size;
    uint64_t id;
    int64_t next;
    std::memcpy(&time_s, p, 4);
    std::memcpy(&id, p + 4, 8);
    std::memcpy(&size, p + 12, 4);
    std::memcpy(&next, p + 16, 8);
    ev->time_us = static_cast<int64_t>(time_s) * 1000000;
    ev->kind = EventKind::kRead;
    ev->path.clear();
    ev->new_path.clear();
    ev->object_id = id;
    ev->offset = 0;
    ev->length = size;
    ev->size = size;
    ev->pipeline = ev->stage = ev->worker = -1;
    ev->next_access_vtime = next;
    return true;
  }

 private:
  std::FILE* file_;
  int64_t records_;
  std::vector<unsigned char> buffer_;
  int64_t filled_ = 0;
  int64_t pos_ = 0;
};

}  // namespace

Result<std::FILE*> OpenOracleGeneralFile(const std::string& path, int64_t* records) {
  FRUGAL_RETURN_IF_ERROR(CheckInputFile(path, -1));
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  if (ec) return NotFound(path + ": no such file");
  if (bytes % kRecordBytes != 0) {
    return InvalidArgument(path + ": truncated oracleGeneral trace: " + std::to_string(bytes) +
                           " bytes is not a multiple of the 24-byte record (record " +
                           std::to_string(bytes / kRecordBytes + 1) + " is incomplete)");
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return InvalidArgument(path + ": cannot open");
  *records = static_cast<int64_t>(bytes / kRecordBytes);
  return f;
}

Result<std::unique_ptr<TraceReader>> OpenOracleGeneralTrace(const std::string& path) {
  int64_t records = 0;
  FRUGAL_ASSIGN_OR_RETURN(std::FILE* f, OpenOracleGeneralFile(path, &records));
  return std::unique_ptr<TraceReader>(new OracleGeneralReader(path, f, records));
}

}  // namespace frugal::cache
