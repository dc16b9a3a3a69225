#include "cli_util.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace frugal::cli {
namespace {

CLI::Validator Range(double lo, double hi, bool lo_open, std::string lo_text,
                     std::string hi_text) {
  std::string desc = fmt::format("{}{}, {}]", lo_open ? "(" : "[", lo_text, hi_text);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const char* begin = text.c_str();
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(begin, &end);
        if (end == begin || *end != '\0') return "";  // CLI11's conversion reports it
        if (!std::isfinite(v) || errno == ERANGE) {
          return "must be a finite number, got " + text;
        }
        if (lo_open ? !(v > lo) : !(v >= lo)) {
          return fmt::format("must be {} {}, got {}", lo_open ? ">" : ">=", lo_text, text);
        }
        if (v > hi) return fmt::format("must be <= {}, got {}", hi_text, text);
        return "";
      },
      desc);
}

}  // namespace

int ReportError(const Status& status) {
  const std::string& m = status.message();
  const bool usage = m.rfind(kUsagePrefix, 0) == 0;
  std::fprintf(stderr, "frugal: error: %s\n",
               usage ? m.c_str() + std::string(kUsagePrefix).size() : m.c_str());
  return usage ? 2 : 1;
}

int ReportUsage(const std::string& message) {
  std::fprintf(stderr, "frugal: error: %s\n", message.c_str());
  return 2;
}

void PrintJson(const nlohmann::json& j) {
  std::fputs(j.dump(2).c_str(), stdout);
  std::fputc('\n', stdout);
}

CLI::Validator NumberIn(double lo, double hi, bool lo_open) {
  return Range(lo, hi, lo_open, fmt::format("{}", lo), fmt::format("{}", hi));
}

CLI::Validator IntIn(int64_t lo, int64_t hi) {
  return Range(static_cast<double>(lo), static_cast<double>(hi), false, std::to_string(lo),
               std::to_string(hi));
}

// Prints rows under a header: the first `left` columns left-aligned (names),
// the others right-aligned (figures).
void PrintTable(const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows,
                size_t left) {
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  }
  auto print_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line += "  ";
      if (c + 1 == row.size() && c < left) {
        line += row[c];
      } else {
        line += c < left ? fmt::format("{:<{}}", row[c], width[c])
                         : fmt::format("{:>{}}", row[c], width[c]);
      }
    }
    fmt::print("{}\n", line);
  };
  print_row(header);
  for (const auto& row : rows) print_row(row);
}

}  // namespace frugal::cli
