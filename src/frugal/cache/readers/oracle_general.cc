// libCacheSim oracleGeneral: little-endian records of 24 bytes,
// uint32 time_s, uint64 obj_id, uint32 obj_size, int64 next_access_vtime.
// Every record is a whole-object read.
#include "frugal/cache/readers/oracle_general.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <vector>

#include "frugal/base/file_io.h"
#include "frugal/cache/trace_reader.h"

namespace frugal::cache {
namespace {

class OracleGeneralReader : public TraceReader {
 public:
  explicit OracleGeneralReader(std::unique_ptr<OracleGeneralFile> f)
      : TraceReader(f->path()), file_(std::move(f)),
        buffer_(OracleGeneralFile::kBlockRecords * kOracleRecordBytes) {}

  Result<bool> Next(TraceEvent* ev) override {
    if (record_ >= file_->records()) return false;
    if (pos_ == filled_) {
      const int64_t n = std::min(OracleGeneralFile::kBlockRecords, file_->records() - record_);
      FRUGAL_RETURN_IF_ERROR(file_->Read(record_, n, buffer_.data()));
      filled_ = n;
      pos_ = 0;
    }
    const OracleRecord r = DecodeOracleRecord(buffer_.data() + pos_ * kOracleRecordBytes);
    ++pos_;
    ++record_;
    ev->time_us = static_cast<int64_t>(r.time_s) * 1000000;
    ev->kind = EventKind::kRead;
    ev->path.clear();
    ev->new_path.clear();
    ev->object_id = r.id;
    ev->offset = 0;
    ev->length = r.size;
    ev->size = r.size;
    ev->pipeline = ev->stage = ev->worker = -1;
    ev->next_access_vtime = r.next_vtime;
    return true;
  }

 private:
  std::unique_ptr<OracleGeneralFile> file_;
  std::vector<unsigned char> buffer_;
  int64_t filled_ = 0;
  int64_t pos_ = 0;
};

}  // namespace

Result<std::unique_ptr<OracleGeneralFile>> OracleGeneralFile::Open(const std::string& path) {
  FRUGAL_RETURN_IF_ERROR(CheckInputFile(path, -1));
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  if (ec) return NotFound(path + ": no such file");
  if (bytes % kOracleRecordBytes != 0) {
    return InvalidArgument(path + ": truncated oracleGeneral trace: " + std::to_string(bytes) +
                           " bytes is not a multiple of the 24-byte record (record " +
                           std::to_string(bytes / kOracleRecordBytes + 1) + " is incomplete)");
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return InvalidArgument(path + ": cannot open");
#ifdef POSIX_FADV_SEQUENTIAL
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  return std::unique_ptr<OracleGeneralFile>(
      new OracleGeneralFile(path, fd, static_cast<int64_t>(bytes / kOracleRecordBytes)));
}

OracleGeneralFile::~OracleGeneralFile() { ::close(fd_); }

Status OracleGeneralFile::Read(int64_t first, int64_t count, unsigned char* buf) const {
  size_t want = static_cast<size_t>(count * kOracleRecordBytes);
  off_t at = static_cast<off_t>(first * kOracleRecordBytes);
  size_t done = 0;
  while (done < want) {
    const ssize_t n = ::pread(fd_, buf + done, want - done, at + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return InvalidArgument(path_ + ": read error at record " +
                                      std::to_string(first + static_cast<int64_t>(done) / kOracleRecordBytes + 1));
    if (n == 0) {
      return InvalidArgument(path_ + ": record " +
                             std::to_string(first + static_cast<int64_t>(done) / kOracleRecordBytes + 1) +
                             ": unexpected end of file");
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Result<std::unique_ptr<TraceReader>> OpenOracleGeneralTrace(const std::string& path) {
  FRUGAL_ASSIGN_OR_RETURN(auto f, OracleGeneralFile::Open(path));
  return std::unique_ptr<TraceReader>(new OracleGeneralReader(std::move(f)));
}

}  // namespace frugal::cache
