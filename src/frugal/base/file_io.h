// Whole-file reads and writes, and JSON files. Errors name the path.
// Stateless; thread-safe.
#ifndef FRUGAL_BASE_FILE_IO_H_
#define FRUGAL_BASE_FILE_IO_H_

#include <string>

#include <nlohmann/json.hpp>

#include "frugal/base/status.h"

namespace frugal {

// NotFound when the file does not exist, InvalidArgument when it is a
// directory or unreadable.
Result<std::string> ReadFileToString(const std::string& path);
Status WriteStringToFile(const std::string& path, const std::string& data);

// Parses a JSON file; a syntax error becomes "PATH: malformed JSON at byte N".
Result<nlohmann::json> ReadJsonFile(const std::string& path);
Result<nlohmann::json> ParseJson(const std::string& text,
                                 const std::string& what);

// The extension of path in lower case, without the dot ("onnx", "json").
std::string FileExtension(const std::string& path);

}  // namespace frugal

#endif  // FRUGAL_BASE_FILE_IO_H_
