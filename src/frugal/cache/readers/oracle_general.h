// libCacheSim oracleGeneral files, shared by the streaming reader, the trace
// loader and the streamed simulation: a checked open and blocks viewed in
// a read-only mapping of the file (no copy), the blocks behind the
// current one dropped from the process (MADV_DONTNEED), so the file's
// pages in memory stay about one block however large the file; several
// passes can share one file. A zstd-compressed file (found by its magic,
// whatever its name: libCacheSim publishes its traces as `.zst`) is
// decompressed in blocks instead, once at Open to count its records and
// again for each pass; its views must then go forward from record 0 or
// restart there. An OracleGeneralFile is used by one thread.
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

class ZstdStream;

class OracleGeneralFile {
 public:
  // Records per View block (1.5 MiB).
  static constexpr int64_t kBlockRecords = 1 << 16;

  // Checks `path` (a regular file, a whole number of 24-byte records,
  // after decompression for zstd) and opens it. NotFound / InvalidArgument
  // naming the file. A compressed file's records are counted by
  // decompressing it once; with `max_records` >= 0 that count stops past
  // max_records, and records() is then only a lower bound (records_exact()
  // false): the caller reports the file too large and must not view it.
  static Result<std::unique_ptr<OracleGeneralFile>> Open(const std::string& path,
                                                         int64_t max_records = -1);
  ~OracleGeneralFile();
  OracleGeneralFile(const OracleGeneralFile&) = delete;
  OracleGeneralFile& operator=(const OracleGeneralFile&) = delete;

  const std::string& path() const { return path_; }
  int64_t records() const { return records_; }
  // An estimate of how many distinct object ids the records hold
  // (DistinctSketch, within about 1 %), for sizing an index before
  // indexing: a compressed file's comes from the count at Open, an
  // uncompressed one's from reading the file once. InvalidArgument naming
  // the file and record when it shrank since Open. REQUIRES:
  // records_exact().
  Result<double> DistinctIds() const;
  bool records_exact() const { return records_exact_; }
  // Points *data at records [first, first + count) (count * 24 bytes),
  // valid until the next View; the previous views' pages are released.
  // InvalidArgument "PATH: record N: unexpected end of file" when the file
  // shrank since Open (checked per block). Compressed files: `first` is
  // where the last view ended, or 0 (a new pass); else Internal.
  Status View(int64_t first, int64_t count, const unsigned char** data) const;

 private:
  OracleGeneralFile(std::string path, int fd, int64_t records, const unsigned char* map,
                    std::unique_ptr<ZstdStream> zstd);
  Status ViewCompressed(int64_t first, int64_t count, const unsigned char** data) const;
  std::string path_;
  int fd_;  // -1 for a compressed file
  int64_t records_;
  bool records_exact_ = true;
  double distinct_ids_ = -1;  // compressed: counted at Open
  const unsigned char* map_;  // null for an empty or compressed file
  std::unique_ptr<ZstdStream> zstd_;  // compressed files only
  mutable int64_t next_record_ = 0;  // compressed: where the last view ended
  mutable int64_t held_begin_ = 0;  // byte range of the last views, not yet released
  mutable int64_t held_end_ = 0;
};

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_READERS_ORACLE_GENERAL_H_
