// libCacheSim oracleGeneral: little-endian records of 24 bytes,
// uint32 time_s, uint64 obj_id, uint32 obj_size, int64 next_access_vtime.
// Every record is a whole-object read.
#include "frugal/cache/readers/oracle_general.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "frugal/base/file_io.h"
#include "frugal/cache/distinct_sketch.h"
#include "frugal/cache/id_index.h"
#include "frugal/cache/readers/zstd_stream.h"
#include "frugal/cache/trace_reader.h"

namespace frugal::cache {
namespace {

class OracleGeneralReader : public TraceReader {
 public:
  explicit OracleGeneralReader(std::unique_ptr<OracleGeneralFile> f)
      : TraceReader(f->path()), file_(std::move(f)) {}

  Result<bool> Next(TraceEvent* ev) override {
    if (record_ >= file_->records()) return false;
    if (pos_ == filled_) {
      const int64_t n = std::min(OracleGeneralFile::kBlockRecords, file_->records() - record_);
      FRUGAL_RETURN_IF_ERROR(file_->View(record_, n, &block_));
      filled_ = n;
      pos_ = 0;
    }
    const OracleRecord r = DecodeOracleRecord(block_ + pos_ * kOracleRecordBytes);
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
  const unsigned char* block_ = nullptr;
  int64_t filled_ = 0;
  int64_t pos_ = 0;
};

// Feeds the object id of each whole record of a byte stream, handed over in
// pieces of any length, to a DistinctSketch.
class IdSketcher {
 public:
  void Feed(const unsigned char* p, size_t n) {
    if (have_ > 0) {
      const size_t take = std::min(n, sizeof(rec_) - have_);
      std::memcpy(rec_ + have_, p, take);
      have_ += take;
      p += take;
      n -= take;
      if (have_ < sizeof(rec_)) return;
      Add(rec_);
      have_ = 0;
    }
    for (; n >= sizeof(rec_); p += sizeof(rec_), n -= sizeof(rec_)) Add(p);
    std::memcpy(rec_, p, n);
    have_ = n;
  }
  double Estimate() const { return sketch_.Estimate(); }

 private:
  void Add(const unsigned char* record) { sketch_.Add(IdIndex::Hash(DecodeOracleRecord(record).id)); }
  DistinctSketch sketch_;
  unsigned char rec_[kOracleRecordBytes];
  size_t have_ = 0;
};

Status CheckWholeRecords(const std::string& path, int64_t bytes, const char* what) {
  if (bytes % kOracleRecordBytes == 0) return Status::Ok();
  return InvalidArgument(path + ": truncated oracleGeneral trace: " + std::to_string(bytes) + what +
                         " is not a multiple of the 24-byte record (record " +
                         std::to_string(bytes / kOracleRecordBytes + 1) + " is incomplete)");
}

}  // namespace

OracleGeneralFile::OracleGeneralFile(std::string path, int fd, int64_t records,
                                     const unsigned char* map, std::unique_ptr<ZstdStream> zstd)
    : path_(std::move(path)), fd_(fd), records_(records), map_(map), zstd_(std::move(zstd)) {}

Result<std::unique_ptr<OracleGeneralFile>> OracleGeneralFile::Open(const std::string& path,
                                                                   int64_t max_records) {
  FRUGAL_RETURN_IF_ERROR(CheckInputFile(path, -1));
  if (HasZstdMagic(path)) {
    FRUGAL_ASSIGN_OR_RETURN(auto z, ZstdStream::Open(path));
    const int64_t limit = max_records < 0 || max_records > (int64_t{1} << 56)
                              ? -1 : max_records * kOracleRecordBytes;
    IdSketcher ids;
    FRUGAL_ASSIGN_OR_RETURN(const int64_t bytes,
                            z->CountBytes(limit, [&ids](const unsigned char* p, size_t n) { ids.Feed(p, n); }));
    const bool exact = limit < 0 || bytes <= limit;
    if (exact) FRUGAL_RETURN_IF_ERROR(CheckWholeRecords(path, bytes, " bytes after zstd decompression"));
    std::unique_ptr<OracleGeneralFile> f(
        new OracleGeneralFile(path, -1, bytes / kOracleRecordBytes, nullptr, std::move(z)));
    f->records_exact_ = exact;
    f->distinct_ids_ = ids.Estimate();
    return f;
  }
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  if (ec) return NotFound(path + ": no such file");
  FRUGAL_RETURN_IF_ERROR(CheckWholeRecords(path, static_cast<int64_t>(bytes), " bytes"));
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return InvalidArgument(path + ": cannot open");
  const unsigned char* map = nullptr;
  if (bytes > 0) {
    void* p = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      ::close(fd);
      return InvalidArgument(path + ": cannot map (" + std::strerror(errno) + ")");
    }
    ::madvise(p, bytes, MADV_SEQUENTIAL);
    map = static_cast<const unsigned char*>(p);
  }
  return std::unique_ptr<OracleGeneralFile>(new OracleGeneralFile(
      path, fd, static_cast<int64_t>(bytes / kOracleRecordBytes), map, nullptr));
}

OracleGeneralFile::~OracleGeneralFile() {
  if (map_ != nullptr) ::munmap(const_cast<unsigned char*>(map_), static_cast<size_t>(records_ * kOracleRecordBytes));
  if (fd_ >= 0) ::close(fd_);
}

Result<double> OracleGeneralFile::DistinctIds() const {
  if (zstd_ != nullptr) return distinct_ids_;
  // Read, not mapped: a pass of page faults over the mapping costs several
  // times the copy.
  IdSketcher ids;
  std::vector<unsigned char> buf(static_cast<size_t>(kBlockRecords * kOracleRecordBytes));
  const int64_t bytes = records_ * kOracleRecordBytes;
  for (int64_t done = 0; done < bytes;) {
    const ssize_t r = ::pread(fd_, buf.data(), static_cast<size_t>(std::min<int64_t>(buf.size(), bytes - done)),
                              static_cast<off_t>(done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      return InvalidArgument(path_ + ": record " + std::to_string(done / kOracleRecordBytes + 1) +
                             (r < 0 ? ": read failed (" + std::string(std::strerror(errno)) + ")"
                                    : std::string(": unexpected end of file")));
    }
    ids.Feed(buf.data(), static_cast<size_t>(r));
    done += r;
  }
  return ids.Estimate();
}

Status OracleGeneralFile::ViewCompressed(int64_t first, int64_t count, const unsigned char** data) const {
  if (first != next_record_) {
    if (first != 0) {
      return Internal(path_ + ": compressed traces are read in order (view at record " +
                      std::to_string(first) + " after " + std::to_string(next_record_) + ")");
    }
    FRUGAL_RETURN_IF_ERROR(zstd_->Rewind());
  }
  const Status st = zstd_->Read(static_cast<size_t>(count * kOracleRecordBytes), data);
  if (st.code() == StatusCode::kOutOfRange) {
    return InvalidArgument(path_ + ": record " + std::to_string(first + 1) + ": unexpected end of file");
  }
  FRUGAL_RETURN_IF_ERROR(st);
  next_record_ = first + count;
  return Status::Ok();
}

Status OracleGeneralFile::View(int64_t first, int64_t count, const unsigned char** data) const {
  if (zstd_ != nullptr) return ViewCompressed(first, count, data);
  // A mapped page past the end of a file that shrank would fault: check the
  // size before handing out the block.
  struct stat st;
  const int64_t end = (first + count) * kOracleRecordBytes;
  if (::fstat(fd_, &st) != 0 || st.st_size < end) {
    const int64_t have = ::fstat(fd_, &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
    return InvalidArgument(path_ + ": record " + std::to_string(std::max(first, have / kOracleRecordBytes) + 1) +
                           ": unexpected end of file");
  }
  const int64_t begin = first * kOracleRecordBytes;
  // Release what earlier views held outside this block (whole pages).
  const int64_t page = ::sysconf(_SC_PAGESIZE);
  if (held_end_ > held_begin_ && (begin >= held_end_ || end <= held_begin_)) {
    const int64_t a = held_begin_ / page * page;
    const int64_t b = held_end_ / page * page;
    if (b > a) ::madvise(const_cast<unsigned char*>(map_) + a, static_cast<size_t>(b - a), MADV_DONTNEED);
    held_begin_ = begin;
  } else if (held_end_ <= held_begin_) {
    held_begin_ = begin;
  }
  held_end_ = end;
  *data = map_ + begin;
  return Status::Ok();
}

Result<std::unique_ptr<TraceReader>> OpenOracleGeneralTrace(const std::string& path) {
  FRUGAL_ASSIGN_OR_RETURN(auto f, OracleGeneralFile::Open(path));
  return std::unique_ptr<TraceReader>(new OracleGeneralReader(std::move(f)));
}

}  // namespace frugal::cache
