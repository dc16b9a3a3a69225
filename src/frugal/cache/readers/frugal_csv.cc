// Reader of the frugal CSV trace: a header line
//   time_us,op,path,offset,length,size,pipeline,stage,worker,new_path
// then one event per line; empty fields take their defaults (0, or -1 for
// tags). Lines starting with '#' are comments. Paths hold no commas. A
// line over kMaxLineBytes is an error (a binary file read as CSV must not
// grow one line without bound).
#include <charconv>
#include <fstream>
#include <vector>

#include "frugal/base/file_io.h"
#include "frugal/cache/trace_reader.h"

namespace frugal::cache {
namespace {

constexpr const char* kHeader = "time_us,op,path,offset,length,size,pipeline,stage,worker,new_path";
constexpr size_t kMaxLineBytes = 1 << 16;

enum class LineRead { kLine, kEnd, kTooLong };

// One line without its '\n' (and '\r') into *line.
LineRead ReadLine(std::istream& in, std::string* line) {
  line->clear();
  std::streambuf* sb = in.rdbuf();
  bool any = false;
  for (int c = sb->sbumpc(); c != std::char_traits<char>::eof(); c = sb->sbumpc()) {
    any = true;
    if (c == '\n') break;
    if (line->size() >= kMaxLineBytes) return LineRead::kTooLong;
    line->push_back(static_cast<char>(c));
  }
  if (!any) return LineRead::kEnd;
  if (!line->empty() && line->back() == '\r') line->pop_back();
  return LineRead::kLine;
}

class CsvReader : public TraceReader {
 public:
  CsvReader(std::string path, std::ifstream in)
      : TraceReader(std::move(path)), in_(std::move(in)) {}

  Result<bool> Next(TraceEvent* ev) override {
    std::string line;
    while (true) {
      const LineRead r = ReadLine(in_, &line);
      if (r == LineRead::kEnd) break;
      ++line_;
      if (r == LineRead::kTooLong) {
        ++record_;
        return Error("line longer than " + std::to_string(kMaxLineBytes) + " bytes");
      }
      if (line.empty() || line[0] == '#') continue;
      ++record_;
      return Parse(line, ev);
    }
    return false;
  }

 private:
  Status Error(const std::string& what) const {
    return InvalidArgument(path_ + ": record " + std::to_string(record_) + " (line " +
                           std::to_string(line_) + "): " + what);
  }

  Result<bool> Parse(const std::string& line, TraceEvent* ev) {
    fields_.clear();
    size_t start = 0;
    while (true) {
      const size_t comma = line.find(',', start);
      fields_.push_back(std::string_view(line).substr(
          start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (fields_.size() < 3 || fields_.size() > 10) {
      return Error("expected 3 to 10 fields, got " + std::to_string(fields_.size()));
    }
    fields_.resize(10);
    int64_t v[9] = {0, 0, 0, 0, 0, 0, -1, -1, -1};
    const int numeric[] = {0, 3, 4, 5, 6, 7, 8};
    for (int i : numeric) {
      std::string_view f = fields_[i];
      if (f.empty()) continue;
      auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v[i]);
      if (ec != std::errc() || p != f.data() + f.size()) {
        return Error("bad number '" + std::string(f) + "' in field " + std::to_string(i + 1));
      }
    }
    // Tags as the binary format holds them (int16 pipeline, uint8 stage
    // with 255 for none, int32 worker); -1 = untagged.
    const struct { const char* name; int64_t max; } tags[] = {
        {"pipeline", 32767}, {"stage", 254}, {"worker", 2147483647}};
    for (int t = 0; t < 3; ++t) {
      if (v[6 + t] < -1 || v[6 + t] > tags[t].max) {
        return Error(std::string(tags[t].name) + " " + std::to_string(v[6 + t]) + " is outside [-1, " +
                     std::to_string(tags[t].max) + "]");
      }
    }
    if (!ParseEventKind(std::string(fields_[1]), &ev->kind)) {
      return Error("unknown op '" + std::string(fields_[1]) + "'");
    }
    if (fields_[2].empty()) return Error("empty path");
    ev->time_us = v[0];
    ev->path.assign(fields_[2]);
    ev->offset = v[3];
    ev->length = v[4];
    ev->size = v[5];
    ev->pipeline = static_cast<int32_t>(v[6]);
    ev->stage = static_cast<int32_t>(v[7]);
    ev->worker = static_cast<int32_t>(v[8]);
    ev->new_path.assign(fields_[9]);
    ev->object_id = 0;
    ev->next_access_vtime = -1;
    if (ev->kind == EventKind::kRename && ev->new_path.empty()) {
      return Error("rename without new_path");
    }
    return true;
  }

  std::ifstream in_;
  int64_t line_ = 1;
  std::vector<std::string_view> fields_;
};

}  // namespace

Result<std::unique_ptr<TraceReader>> OpenCsvTrace(const std::string& path) {
  FRUGAL_RETURN_IF_ERROR(CheckInputFile(path, -1));
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument(path + ": cannot open for reading");
  std::string header;
  if (ReadLine(in, &header) != LineRead::kLine || header != kHeader) {
    return InvalidArgument(path + ": not a frugal CSV trace (header must be '" +
                           std::string(kHeader) + "')");
  }
  return std::unique_ptr<TraceReader>(new CsvReader(path, std::move(in)));
}

}  // namespace frugal::cache
