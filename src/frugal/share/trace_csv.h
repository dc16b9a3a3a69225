// A strict reader for the header-first CSV files of the cluster traces
// (Alibaba's openb_node_list_*.csv and openb_pod_list_*.csv): comma
// separated, no quoting, one record per line. Errors are one line,
// "FILE:LINE: problem". Stateless; thread-safe.
#ifndef FRUGAL_SHARE_TRACE_CSV_H_
#define FRUGAL_SHARE_TRACE_CSV_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/base/status.h"

namespace frugal::share {

struct CsvTable {
  std::string path;
  std::vector<std::string> header;
  struct Row {
    int line = 0;  // 1-based line number in the file
    std::vector<std::string_view> fields;
  };
  std::vector<Row> rows;
  std::string text;  // owns the bytes the fields point into

  // Index of a column, or -1.
  int Column(std::string_view name) const;
  // "PATH:LINE: " for messages.
  std::string Where(int line) const { return path + ":" + std::to_string(line) + ": "; }
};

// Reads the file (a regular file of at most 256 MiB), refusing binary data
// (NUL bytes), an empty file, rows whose field count differs from the
// header's, and a header without each of `required` columns.
Result<CsvTable> ReadCsvTable(const std::string& path, const std::vector<std::string>& required);

// Parses a whole field as a decimal integer in [lo, hi]; "column 'x' ..."
// messages name the column.
Result<int64_t> ParseIntField(const CsvTable& t, const CsvTable::Row& row, int col,
                              std::string_view column, int64_t lo, int64_t hi);

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_TRACE_CSV_H_
