#include "frugal/base/file_io.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace frugal {

Result<std::string> ReadFileToString(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return NotFound(path + ": no such file");
  }
  if (std::filesystem::is_directory(path, ec)) {
    return InvalidArgument(path + ": is a directory, expected a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument(path + ": cannot open for reading");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return InvalidArgument(path + ": read error");
  return ss.str();
}

Status WriteStringToFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return InvalidArgument(path + ": cannot open for writing");
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  out.close();
  if (!out) return InvalidArgument(path + ": write error");
  return Status::Ok();
}

Result<nlohmann::json> ParseJson(const std::string& text,
                                 const std::string& what) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return InvalidArgument(what + ": malformed JSON at byte " +
                           std::to_string(e.byte));
  } catch (const std::exception& e) {
    return InvalidArgument(what + ": malformed JSON");
  }
}

Result<nlohmann::json> ReadJsonFile(const std::string& path) {
  FRUGAL_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseJson(text, path);
}

std::string FileExtension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  if (!ext.empty() && ext[0] == '.') ext.erase(0, 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

}  // namespace frugal
