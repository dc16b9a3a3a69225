// Helpers shared by the CLI verbs: error reporting and output.
#ifndef FRUGAL_TOOLS_FRUGAL_CLI_UTIL_H_
#define FRUGAL_TOOLS_FRUGAL_CLI_UTIL_H_

#include <string>

#include <nlohmann/json.hpp>

#include "frugal/base/status.h"

namespace frugal::cli {

// Prints "frugal: error: <message>" on one line to stderr; returns 1.
int ReportError(const Status& status);

// Prints a JSON document to stdout, indented, with a trailing newline.
void PrintJson(const nlohmann::json& j);

}  // namespace frugal::cli

#endif  // FRUGAL_TOOLS_FRUGAL_CLI_UTIL_H_
