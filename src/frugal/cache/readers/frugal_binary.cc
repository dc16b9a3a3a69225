// Reader of the frugal binary trace; layout in frugal_binary_format.h.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unordered_map>
#include <vector>

#include "frugal/base/file_io.h"
#include "frugal/cache/readers/frugal_binary_format.h"
#include "frugal/cache/trace_reader.h"

namespace frugal::cache {
namespace {

// Records come from a 1 MiB buffer refilled with fread: one library call
// per ~21 k records instead of one per record.
class FrugalBinaryReader : public TraceReader {
 public:
  FrugalBinaryReader(std::string path, std::FILE* f)
      : TraceReader(std::move(path)), file_(f), buf_(kBufferBytes) {}
  ~FrugalBinaryReader() override { std::fclose(file_); }

  Result<bool> Next(TraceEvent* ev) override {
    while (true) {
      size_t n = 0;
      const unsigned char* rec = Take(frt::kRecordBytes, &n);
      if (n == 0) return false;
      ++record_;
      if (n != frt::kRecordBytes) return RecordError("truncated record");
      uint32_t path_id, aux;
      uint8_t op;
      std::memcpy(&path_id, rec + 32, 4);
      std::memcpy(&aux, rec + 36, 4);
      std::memcpy(&op, rec + 47, 1);
      if (op == frt::kOpPathDefinition) {
        if (aux == 0 || aux > (1u << 16)) return RecordError("bad path length");
        const int64_t blocks = (aux + frt::kRecordBytes - 1) / frt::kRecordBytes;
        const size_t want = static_cast<size_t>(blocks * frt::kRecordBytes);
        const unsigned char* raw = Take(want, &n);
        if (n != want) return RecordError("truncated path definition");
        record_ += blocks;
        paths_[path_id].assign(reinterpret_cast<const char*>(raw), aux);
        continue;
      }
      if (op > static_cast<uint8_t>(EventKind::kDelete)) {
        return RecordError("unknown op " + std::to_string(op));
      }
      int16_t pipeline;
      uint8_t stage;
      int32_t worker;
      std::memcpy(&ev->time_us, rec, 8);
      std::memcpy(&ev->offset, rec + 8, 8);
      std::memcpy(&ev->length, rec + 16, 8);
      std::memcpy(&ev->size, rec + 24, 8);
      std::memcpy(&worker, rec + 40, 4);
      std::memcpy(&pipeline, rec + 44, 2);
      std::memcpy(&stage, rec + 46, 1);
      ev->kind = static_cast<EventKind>(op);
      ev->worker = worker;
      ev->pipeline = pipeline;
      ev->stage = stage == frt::kNoStage ? -1 : stage;
      ev->object_id = path_id;
      ev->next_access_vtime = -1;
      auto it = paths_.find(path_id);
      if (it == paths_.end()) {
        return RecordError("path id " + std::to_string(path_id) + " used before its definition");
      }
      ev->path = it->second;  // reuses ev->path's buffer
      ev->new_path.clear();
      if (ev->kind == EventKind::kRename) {
        auto jt = paths_.find(aux);
        if (jt == paths_.end()) {
          return RecordError("path id " + std::to_string(aux) + " used before its definition");
        }
        ev->new_path = jt->second;
        paths_.erase(path_id);
      }
      if (ev->kind == EventKind::kDelete) paths_.erase(path_id);
      return true;
    }
  }

 private:
  // Room for the longest path definition (64 KiB + a record) many times over.
  static constexpr size_t kBufferBytes = size_t{1} << 20;

  // The next `want` bytes (want <= kBufferBytes), or fewer at the end of
  // the file: *got says how many.
  const unsigned char* Take(size_t want, size_t* got) {
    if (end_ - pos_ < want) {
      std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
      end_ -= pos_;
      pos_ = 0;
      while (end_ < want) {
        const size_t n = std::fread(buf_.data() + end_, 1, buf_.size() - end_, file_);
        if (n == 0) break;
        end_ += n;
      }
    }
    *got = std::min(want, end_ - pos_);
    const unsigned char* p = buf_.data() + pos_;
    pos_ += *got;
    return p;
  }

  std::FILE* file_;
  std::vector<unsigned char> buf_;
  size_t pos_ = 0;
  size_t end_ = 0;
  std::unordered_map<uint32_t, std::string> paths_;
};

}  // namespace

Result<std::unique_ptr<TraceReader>> OpenFrugalBinaryTrace(const std::string& path) {
  FRUGAL_RETURN_IF_ERROR(CheckInputFile(path, -1));
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  if (ec) return NotFound(path + ": no such file");
  if (bytes < static_cast<uint64_t>(frt::kRecordBytes) || bytes % frt::kRecordBytes != 0) {
    return InvalidArgument(path + ": truncated frugal trace: " + std::to_string(bytes) +
                           " bytes is not a multiple of the 48-byte record");
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return InvalidArgument(path + ": cannot open");
  unsigned char header[frt::kRecordBytes];
  uint32_t version = 0, record_bytes = 0;
  if (std::fread(header, 1, sizeof(header), f) != sizeof(header) ||
      std::memcmp(header, frt::kMagic, 8) != 0) {
    std::fclose(f);
    return InvalidArgument(path + ": not a frugal binary trace (bad magic)");
  }
  std::memcpy(&version, header + 8, 4);
  std::memcpy(&record_bytes, header + 12, 4);
  if (version != frt::kVersion) {
    std::fclose(f);
    return InvalidArgument(path + ": unsupported frugal trace version " + std::to_string(version));
  }
  if (record_bytes != frt::kRecordBytes) {
    std::fclose(f);
    return InvalidArgument(path + ": header says " + std::to_string(record_bytes) +
                           "-byte records; version 1 has " + std::to_string(frt::kRecordBytes));
  }
  return std::unique_ptr<TraceReader>(new FrugalBinaryReader(path, f));
}

}  // namespace frugal::cache
