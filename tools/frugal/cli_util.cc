#include "cli_util.h"

#include <cstdio>

namespace frugal::cli {

int ReportError(const Status& status) {
  std::fprintf(stderr, "frugal: error: %s\n", status.message().c_str());
  return 1;
}

void PrintJson(const nlohmann::json& j) {
  std::fputs(j.dump(2).c_str(), stdout);
  std::fputc('\n', stdout);
}

}  // namespace frugal::cli
