// Whole-file reads and writes, and JSON files. Errors name the path. Every
// reader of user files goes through CheckInputFile first (directly or via
// ReadFileToString): devices, FIFOs, sockets and directories are refused
// before a byte is read, so `/dev/zero` or a pipe cannot hang or exhaust
// memory, and whole-file reads stop at a size limit.
// Stateless; thread-safe.
#ifndef FRUGAL_BASE_FILE_IO_H_
#define FRUGAL_BASE_FILE_IO_H_

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "frugal/base/status.h"

namespace frugal {

// Largest file ReadFileToString reads by default (2 GiB, protobuf's limit
// for one ONNX model, and far above any graph, catalog or config).
inline constexpr int64_t kMaxReadFileBytes = int64_t{2} << 30;

// Checks that `path` names a regular file (after symlinks) of at most
// max_bytes bytes (negative: no limit; streaming readers of long traces).
// NotFound when it does not exist; InvalidArgument, one line naming the
// path, for a directory, a device, a FIFO, a socket, or a file over the
// limit.
Status CheckInputFile(const std::string& path, int64_t max_bytes = kMaxReadFileBytes);

// CheckInputFile, then the whole file. The read itself also stops at
// max_bytes, so a file that grows while it is read cannot exceed it.
Result<std::string> ReadFileToString(const std::string& path,
                                     int64_t max_bytes = kMaxReadFileBytes);
Status WriteStringToFile(const std::string& path, const std::string& data);

// Parses a JSON file; a syntax error becomes "PATH: malformed JSON at byte N".
Result<nlohmann::json> ReadJsonFile(const std::string& path);
// Parses UBJSON `bytes`; InvalidArgument "WHAT: ..." when they are not
// UBJSON or nest arrays / objects deeper than `max_depth` (the UBJSON reader
// recurses per level, so unbounded nesting would overflow the stack).
Result<nlohmann::json> ParseUbjson(const std::string& bytes,
                                   const std::string& what,
                                   int max_depth = 64);
// Parses JSON `text`: "WHAT: malformed JSON at byte N" (and N in
// *error_byte, when given) on a syntax error; a key given twice in one
// object, or nesting deeper than kMaxJsonDepth, is an error too.
inline constexpr int kMaxJsonDepth = 10000;
Result<nlohmann::json> ParseJson(const std::string& text, const std::string& what,
                                 size_t* error_byte = nullptr);

// The shared data folder: $FRUGAL_SHARED_DATA, else the source tree's
// ../shared/data (fixed at build time), so a run from any folder finds it.
std::string SharedDataDir();

// The extension of path in lower case, without the dot ("onnx", "json").
std::string FileExtension(const std::string& path);

}  // namespace frugal

#endif  // FRUGAL_BASE_FILE_IO_H_
