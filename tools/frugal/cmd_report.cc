// `frugal report RESULTS... --out DIR`: renders verbs' --json output into
// one self-contained HTML page, DIR/index.html.
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli_util.h"
#include "frugal/report/report.h"
#include "verbs.h"

namespace frugal::cli {
namespace {

struct ReportArgs {
  std::vector<std::string> inputs;
  std::string out = "frugal-report";
  bool json = false;
};

int RunReport(const ReportArgs& a) {
  Result<report::Report> r = report::BuildReport(a.inputs);
  if (!r.ok()) return ReportError(r.status());
  Result<std::string> path = report::WriteReport(*r, a.out);
  if (!path.ok()) return ReportError(path.status());
  if (a.json) {
    PrintJson({{"report", *path}, {"sections", r->sections}, {"headlines", r->headlines}});
    return 0;
  }
  for (const auto& line : r->headlines) fmt::print("{}\n", line);
  fmt::print("wrote {}\n", *path);
  return 0;
}

std::string ReportInputsHelp() {
  std::string s = "Result files, each one of:";
  for (const auto& k : report::InputKinds()) s += fmt::format("\n  {:<15} {}", k.name, k.source);
  return s;
}

}  // namespace

void SetupReport(CLI::App& sub, int* exit_code) {
  auto a = std::make_shared<ReportArgs>();
  sub.add_option("RESULTS", a->inputs, ReportInputsHelp())->required();
  sub.add_option("--out", a->out, "Directory for index.html (created if missing)")
      ->capture_default_str();
  sub.add_flag("--json", a->json, "Print the report's path, sections and headlines as JSON");
  sub.callback([a, exit_code] { *exit_code = RunReport(*a); });
}

}  // namespace frugal::cli
