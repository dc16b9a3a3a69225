#include "frugal/base/csv_table.h"

#include <charconv>

#include "frugal/base/file_io.h"

namespace frugal {
namespace {

constexpr int64_t kMaxTraceBytes = int64_t{256} << 20;

std::vector<std::string_view> Split(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    if (comma == std::string_view::npos) {
      out.push_back(line.substr(start));
      return out;
    }
    out.push_back(line.substr(start, comma - start));
    start = comma + 1;
  }
}

std::string Printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) out += (c >= 32 && c < 127) ? c : '?';
  if (s.size() > 40) out += "...";
  return out;
}

}  // namespace

int CsvTable::Column(std::string_view name) const {
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return static_cast<int>(i);
  }
  return -1;
}

Result<CsvTable> ReadCsvTable(const std::string& path, const std::vector<std::string>& required) {
  FRUGAL_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path, kMaxTraceBytes));
  return ParseCsvTable(std::move(text), path, required);
}

Result<CsvTable> ParseCsvTable(std::string text, const std::string& path,
                               const std::vector<std::string>& required) {
  CsvTable t;
  t.path = path;
  t.text = std::make_shared<const std::string>(std::move(text));
  const std::string_view all(*t.text);
  if (const size_t nul = all.find('\0'); nul != std::string_view::npos) {
    int line = 1;
    for (size_t i = 0; i < nul; ++i) line += all[i] == '\n';
    return InvalidArgument(t.Where(line) + "binary data (a NUL byte), not a CSV file");
  }
  size_t pos = 0;
  int line_no = 0;
  bool have_header = false;
  while (pos < all.size()) {
    size_t end = all.find('\n', pos);
    if (end == std::string_view::npos) end = all.size();
    std::string_view line = all.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (!have_header) {
      // Spreadsheets save CSV with a UTF-8 byte-order mark: not part of the first name.
      if (line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
      for (std::string_view f : Split(line)) t.header.emplace_back(f);
      have_header = true;
      for (const std::string& col : required) {
        if (t.Column(col) < 0) {
          return InvalidArgument(t.Where(line_no) + "missing column '" + col + "' in header '" +
                                 Printable(line) + "'");
        }
      }
      continue;
    }
    CsvTable::Row row{line_no, Split(line)};
    if (row.fields.size() != t.header.size()) {
      return InvalidArgument(t.Where(line_no) + "expected " + std::to_string(t.header.size()) +
                             " fields, got " + std::to_string(row.fields.size()));
    }
    t.rows.push_back(std::move(row));
  }
  if (!have_header) return InvalidArgument(path + ": empty file, expected a CSV header");
  return t;
}

Result<int64_t> ParseIntField(const CsvTable& t, const CsvTable::Row& row, int col,
                              std::string_view column, int64_t lo, int64_t hi) {
  const std::string_view f = row.fields[col];
  if (f.empty()) return InvalidArgument(t.Where(row.line) + "missing " + std::string(column));
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (ec == std::errc::result_out_of_range) {
    return InvalidArgument(t.Where(row.line) + std::string(column) + " '" + Printable(f) +
                           "' is out of range " + std::to_string(lo) + ".." + std::to_string(hi));
  }
  if (ec != std::errc() || ptr != f.data() + f.size()) {
    return InvalidArgument(t.Where(row.line) + std::string(column) + " '" + Printable(f) +
                           "' is not an integer");
  }
  if (v < lo || v > hi) {
    std::string msg = t.Where(row.line) + std::string(column) + " " + std::to_string(v);
    if (v < 0 && lo >= 0) return InvalidArgument(msg + " is negative");
    return InvalidArgument(msg + " is out of range " + std::to_string(lo) + ".." + std::to_string(hi));
  }
  return v;
}

}  // namespace frugal
