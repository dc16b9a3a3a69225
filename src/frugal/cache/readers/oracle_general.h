// Shared by the oracleGeneral reader and the trace loader's fast path.
#ifndef FRUGAL_CACHE_READERS_ORACLE_GENERAL_H_
#define FRUGAL_CACHE_READERS_ORACLE_GENERAL_H_

#include <cstdint>
#include <cstdio>
#include <string>

#include "frugal/base/status.h"

namespace frugal::cache {

inline constexpr int64_t kOracleRecordBytes = 24;

// Checks `path` (exists, a whole number of 24-byte records) and opens it;
// *records = the number of records. The caller fcloses the file.
Result<std::FILE*> OpenOracleGeneralFile(const std::string& path, int64_t* records);

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_READERS_ORACLE_GENERAL_H_
