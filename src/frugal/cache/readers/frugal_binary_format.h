// Layout of the frugal binary trace (.frt), shared by its reader and writer;
// documented in docs/cache.md. Little-endian throughout.
//   header, 48 bytes: "FRUGALTR", uint32 version (1), uint32 record bytes
//   (48), zeros.
//   record, 48 bytes: int64 time_us, int64 offset, int64 length, int64 size,
//   uint32 path_id, uint32 aux (rename: new path id; path definition: path
//   length in bytes), int32 worker, int16 pipeline, uint8 stage (255 = none),
//   uint8 op (0 create, 1 write, 2 read, 3 rename, 4 delete, 255 path
//   definition). A path definition is followed by ceil(length / 48) records
//   holding the path's bytes, zero-padded. Ids are defined before use and
//   may be reused after a delete.
#ifndef FRUGAL_CACHE_READERS_FRUGAL_BINARY_FORMAT_H_
#define FRUGAL_CACHE_READERS_FRUGAL_BINARY_FORMAT_H_

#include <cstdint>

namespace frugal::cache::frt {

inline constexpr char kMagic[8] = {'F', 'R', 'U', 'G', 'A', 'L', 'T', 'R'};
inline constexpr uint32_t kVersion = 1;
inline constexpr int64_t kRecordBytes = 48;
inline constexpr uint8_t kOpPathDefinition = 255;
inline constexpr uint8_t kNoStage = 255;

}  // namespace frugal::cache::frt

#endif  // FRUGAL_CACHE_READERS_FRUGAL_BINARY_FORMAT_H_
