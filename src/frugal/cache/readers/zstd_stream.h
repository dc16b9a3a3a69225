// A zstd-compressed file read forward in pieces, for traces distributed
// compressed (libCacheSim's public oracleGeneral traces are `.zst`). The
// decompressed stream is never held whole: Read hands out the next bytes
// from a buffer refilled from the file, so memory stays about one piece
// however large the trace; Rewind starts a new pass. Concatenated and
// skippable frames are read as one stream; frames that need a window over
// zstd's default limit (128 MiB, `zstd --long=31`) are refused. A
// ZstdStream is used by one thread.
#ifndef FRUGAL_CACHE_READERS_ZSTD_STREAM_H_
#define FRUGAL_CACHE_READERS_ZSTD_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "frugal/base/status.h"

namespace frugal::cache {

// True when the file at path starts with zstd's frame magic (28 B5 2F FD);
// false for shorter or unreadable files.
bool HasZstdMagic(const std::string& path);

class ZstdStream {
 public:
  // Opens path for reading (the caller has checked it is a regular file).
  static Result<std::unique_ptr<ZstdStream>> Open(const std::string& path);
  ~ZstdStream();
  ZstdStream(const ZstdStream&) = delete;
  ZstdStream& operator=(const ZstdStream&) = delete;

  // Decompresses the stream, keeping nothing, and rewinds: its decompressed
  // size in bytes, or, when that exceeds `limit` (>= 0), the first count
  // past it (decompression stops there: a small file that inflates to
  // terabytes is not read through). The sizes frame headers may declare
  // are not used: a corrupt header would size allocations before the data
  // could contradict it. `each` (when set) sees every decompressed piece
  // in order. InvalidArgument naming the file for a corrupt stream or one
  // whose last frame is cut short.
  Result<int64_t> CountBytes(int64_t limit = -1,
                             const std::function<void(const unsigned char*, size_t)>& each = {});
  // Back to the first byte.
  Status Rewind();
  // Points *data at the next n decompressed bytes, valid until the next
  // Read or Rewind. OutOfRange when fewer than n remain (the position is
  // then unspecified); InvalidArgument for a corrupt stream.
  Status Read(size_t n, const unsigned char** data);

 private:
  struct Impl;
  explicit ZstdStream(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_READERS_ZSTD_STREAM_H_
