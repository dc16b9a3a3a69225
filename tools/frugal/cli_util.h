// Helpers shared by the CLI verbs: error reporting and output.
#ifndef FRUGAL_TOOLS_FRUGAL_CLI_UTIL_H_
#define FRUGAL_TOOLS_FRUGAL_CLI_UTIL_H_

#include <algorithm>
#include <cstdio>
#include <span>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "frugal/base/registry.h"
#include "frugal/base/status.h"

namespace frugal::cli {

// Prints "frugal: error: <message>" on one line to stderr; returns 1.
int ReportError(const Status& status);

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
