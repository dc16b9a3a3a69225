// A strict reader for header-first CSV files without quoting (Alibaba's
// cluster traces, Lucid's co-location tables): comma separated, one record
// per line, every row as wide as the header. Errors are one line,
// "FILE:LINE: problem". Stateless; thread-safe.
#ifndef FRUGAL_BASE_CSV_TABLE_H_
#define FRUGAL_BASE_CSV_TABLE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/base/status.h"

namespace frugal {

struct CsvTable {
  std::string path;
  std::vector<std::string> header;
  struct Row {
    int line = 0;  // 1-based line number in the file
    std::vector<std::string_view> fields;
  };
  std::vector<Row> rows;
  // Owns the bytes the fields point into; on the heap, so that moving the
  // table (a short string would move its inline bytes) keeps them valid.
  std::shared_ptr<const std::string> text;

  // Index of a column, or -1.
  int Column(std::string_view name) const;
  // "PATH:LINE: " for messages.
  std::string Where(int line) const { return path + ":" + std::to_string(line) + ": "; }
};

// Reads the file (a regular file of at most 256 MiB), refusing binary data
// (NUL bytes), an empty file, rows whose field count differs from the
// header's, and a header without each of `required` columns.
// Reads `path` (at most 256 MiB) and parses it; `required` columns must be
// in the header.
Result<CsvTable> ReadCsvTable(const std::string& path, const std::vector<std::string>& required);
// The same on text already read; `path` names it in errors.
Result<CsvTable> ParseCsvTable(std::string text, const std::string& path,
                               const std::vector<std::string>& required);

// Parses a whole field as a decimal integer in [lo, hi]; "column 'x' ..."
// messages name the column.
Result<int64_t> ParseIntField(const CsvTable& t, const CsvTable::Row& row, int col,
                              std::string_view column, int64_t lo, int64_t hi);

}  // namespace frugal

#endif  // FRUGAL_BASE_CSV_TABLE_H_
