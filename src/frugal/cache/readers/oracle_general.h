// libCacheSim oracleGeneral files, shared by the streaming reader, the trace
// loader and the streamed simulation: a checked open and block reads by
// pread (no FILE buffer, no mapping), so several passes can share one file
// and memory stays one block. An OracleGeneralFile is used by one thread.
#ifndef FRUGAL_CACHE_READERS_ORACLE_GENERAL_H_
#define FRUGAL_CACHE_READERS_ORACLE_GENERAL_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "frugal/base/status.h"

namespace frugal::cache {

inline constexpr int64_t kOracleRecordBytes = 24;

// One record: uint32 time_s, uint64 obj_id, uint32 obj_size, int64
// next_access_vtime, little-endian.
struct OracleRecord {
  uint32_t time_s;
  uint64_t id;
  uint32_t size;
  int64_t next_vtime;
};

inline OracleRecord DecodeOracleRecord(const unsigned char* p) {
  OracleRecord r;
  std::memcpy(&r.time_s, p, 4);
  std::memcpy(&r.id, p + 4, 8);
  std::memcpy(&r.size, p + 12, 4);
  std::memcpy(&r.next_vtime, p + 16, 8);
  return r;
}

class OracleGeneralFile {
 public:
  // Records per Read block (1.5 MiB).
  static constexpr int64_t kBlockRecords = 1 << 16;

  // Checks `path` (a regular file, a whole number of 24-byte records) and
  // opens it. NotFound / InvalidArgument naming the file.
  static Result<std::unique_ptr<OracleGeneralFile>> Open(const std::string& path);
  ~OracleGeneralFile();
  OracleGeneralFile(const OracleGeneralFile&) = delete;
  OracleGeneralFile& operator=(const OracleGeneralFile&) = delete;

  const std::string& path() const { return path_; }
  int64_t records() const { return records_; }
  // Reads records [first, first + count) into buf (count * 24 bytes).
  // InvalidArgument "PATH: record N: unexpected end of file" when the file
  // shrank since Open.
  Status Read(int64_t first, int64_t count, unsigned char* buf) const;

 private:
  OracleGeneralFile(std::string path, int fd, int64_t records)
      : path_(std::move(path)), fd_(fd), records_(records) {}
  std::string path_;
  int fd_;
  int64_t records_;
};

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_READERS_ORACLE_GENERAL_H_
