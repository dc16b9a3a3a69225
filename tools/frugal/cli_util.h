// Helpers shared by the CLI verbs: error reporting and output.
#ifndef FRUGAL_TOOLS_FRUGAL_CLI_UTIL_H_
#define FRUGAL_TOOLS_FRUGAL_CLI_UTIL_H_

#include <algorithm>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "frugal/base/registry.h"
#include "frugal/base/status.h"

namespace frugal::cli {

// A Status whose message starts with this is a usage error (a missing
// argument, flags that do not go together): exit 2, not 1.
inline constexpr const char* kUsagePrefix = "usage: ";

// Prints "frugal: error: <message>" on one line to stderr; returns 1, or 2
// for a usage error (the prefix is not printed).
int ReportError(const Status& status);

// Prints a usage error as ReportError does; returns 2.
int ReportUsage(const std::string& message);

// Checks for numeric flags (`->check(NumberIn(0, 1e6, true))`): the value
// must be a finite number in [lo, hi] (lo excluded when `lo_open`), else
// "--flag: must be ..., got V". main.cc reports a failed check as a bad
// value: one line, exit 1. Text that is no number at all is left to CLI11's
// conversion (a usage error, exit 2).
CLI::Validator NumberIn(double lo, double hi, bool lo_open = false);
// The same for integer flags (the bounds print as integers).
CLI::Validator IntIn(int64_t lo, int64_t hi);

// Prints rows under a header to stdout, each column as wide as its widest
// cell: the first `left` columns left-aligned (names), the others
// right-aligned (figures).
void PrintTable(const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows,
                size_t left = 1);

// Prints a JSON document to stdout, indented, with a trailing newline.
void PrintJson(const nlohmann::json& j);

// Prints a registry table (`frugal <area> list`): "name  help" lines, or a
// JSON array of {name, help}. Returns 0.
template <typename Factory>
int PrintRegistry(std::span<const RegistryRow<Factory>> table, bool json) {
  nlohmann::json rows = nlohmann::json::array();
  size_t width = 0;
  for (const auto& row : table) width = std::max(width, std::string(row.name).size());
  for (const auto& row : table) {
    if (json) {
      rows.push_back({{"name", row.name}, {"help", row.help}});
    } else {
      std::fputs(fmt::format("  {:<{}} {}\n", row.name, width + 1, row.help).c_str(), stdout);
    }
  }
  if (json) PrintJson(rows);
  return 0;
}

}  // namespace frugal::cli

#endif  // FRUGAL_TOOLS_FRUGAL_CLI_UTIL_H_
