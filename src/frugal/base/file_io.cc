#include "frugal/base/file_io.h"

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <vector>

#include "frugal/base/units.h"

namespace frugal {
namespace {

const char* FileTypeName(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

Status CheckInputFile(const std::string& path, int64_t max_bytes) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return NotFound(path + ": no such file");
    return InvalidArgument(path + ": cannot open for reading: " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return InvalidArgument(path + ": is " + FileTypeName(st.st_mode) +
                           ", expected a regular file");
  }
  if (max_bytes >= 0 && st.st_size > max_bytes) {
    return InvalidArgument(path + ": file is " + HumanBytes(static_cast<double>(st.st_size)) +
                           ", over the " + HumanBytes(static_cast<double>(max_bytes)) +
                           " limit for this input");
  }
  return Status::Ok();
}

Result<std::string> ReadFileToString(const std::string& path, int64_t max_bytes) {
  FRUGAL_RETURN_IF_ERROR(CheckInputFile(path, max_bytes));
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return InvalidArgument(path + ": cannot open for reading: " + std::strerror(errno));
  }
  std::string data;
  char buf[1 << 16];
  bool over = false;
  while (true) {
    const size_t n = std::fread(buf, 1, sizeof(buf), f);
    if (n == 0) break;
    if (max_bytes >= 0 && static_cast<int64_t>(data.size() + n) > max_bytes) {
      over = true;
      break;
    }
    data.append(buf, n);
  }
  const bool error = std::ferror(f) != 0;
  std::fclose(f);
  if (over) {
    return InvalidArgument(path + ": file grew over the " +
                           HumanBytes(static_cast<double>(max_bytes)) +
                           " limit for this input while being read");
  }
  if (error) return InvalidArgument(path + ": read error");
  return data;
}

Status WriteStringToFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return InvalidArgument(path + ": cannot open for writing");
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  out.close();
  if (!out) return InvalidArgument(path + ": write error");
  return Status::Ok();
}

namespace {

// Builds the document like nlohmann's DOM parser, refusing to nest deeper
// than a limit and to take a key twice in one object (the DOM parser keeps
// the last silently).
class DepthLimitedSax : public nlohmann::json_sax<nlohmann::json> {
 public:
  DepthLimitedSax(nlohmann::json* out, int max_depth)
      : dom_(*out, false), max_depth_(max_depth) {}
  bool null() override { return dom_.null(); }
  bool boolean(bool v) override { return dom_.boolean(v); }
  bool number_integer(number_integer_t v) override { return dom_.number_integer(v); }
  bool number_unsigned(number_unsigned_t v) override { return dom_.number_unsigned(v); }
  bool number_float(number_float_t v, const string_t& s) override {
    return dom_.number_float(v, s);
  }
  bool string(string_t& v) override { return dom_.string(v); }
  bool binary(binary_t& v) override { return dom_.binary(v); }
  bool start_object(std::size_t n) override {
    keys_.emplace_back();
    return ++depth_ <= max_depth_ && dom_.start_object(n);
  }
  bool key(string_t& v) override {
    if (!keys_.back().insert(v).second) {
      duplicate_ = v;
      return false;
    }
    return dom_.key(v);
  }
  bool end_object() override {
    keys_.pop_back();
    --depth_;
    return dom_.end_object();
  }
  bool start_array(std::size_t n) override {
    return ++depth_ <= max_depth_ && dom_.start_array(n);
  }
  bool end_array() override {
    --depth_;
    return dom_.end_array();
  }
  bool parse_error(std::size_t pos, const std::string& token,
                   const nlohmann::detail::exception& e) override {
    error_byte_ = pos;
    return dom_.parse_error(pos, token, e);
  }
  bool too_deep() const { return depth_ > max_depth_; }
  const std::optional<std::string>& duplicate() const { return duplicate_; }
  size_t error_byte() const { return error_byte_; }

 private:
  std::vector<std::set<std::string>> keys_;
  std::optional<std::string> duplicate_;
  size_t error_byte_ = 0;
  nlohmann::detail::json_sax_dom_parser<nlohmann::json> dom_;
  int depth_ = 0;
  int max_depth_;
};

}  // namespace

Result<nlohmann::json> ParseUbjson(const std::string& bytes,
                                   const std::string& what, int max_depth) {
  nlohmann::json out;
  DepthLimitedSax sax(&out, max_depth);
  bool ok = false;
  try {
    ok = nlohmann::json::sax_parse(bytes, &sax, nlohmann::json::input_format_t::ubjson,
                                   /*strict=*/true);
  } catch (const std::exception&) {
    ok = false;
  }
  if (sax.too_deep()) {
    return InvalidArgument(what + ": UBJSON nested deeper than " +
                           std::to_string(max_depth) + " levels");
  }
  if (sax.duplicate()) {
    return InvalidArgument(what + ": key '" + *sax.duplicate() + "' given twice in one object");
  }
  if (!ok) return InvalidArgument(what + ": malformed UBJSON");
  return out;
}

Result<nlohmann::json> ParseJson(const std::string& text, const std::string& what,
                                 size_t* error_byte) {
  nlohmann::json out;
  DepthLimitedSax sax(&out, kMaxJsonDepth);
  bool ok = false;
  try {
    ok = nlohmann::json::sax_parse(text, &sax);
  } catch (const std::exception&) {
    ok = false;
  }
  if (sax.duplicate()) {
    return InvalidArgument(what + ": key '" + *sax.duplicate() + "' given twice in one object");
  }
  if (sax.too_deep()) {
    return InvalidArgument(what + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                           " levels");
  }
  if (!ok) {
    if (error_byte != nullptr) *error_byte = sax.error_byte();
    return InvalidArgument(what + ": malformed JSON at byte " + std::to_string(sax.error_byte()));
  }
  return out;
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

std::string SharedDataDir() {
  const char* env = std::getenv("FRUGAL_SHARED_DATA");
  return env != nullptr && *env != '\0' ? env : FRUGAL_SHARED_DATA;
}

}  // namespace frugal
