// frugal report: renders the --json output of frugal's verbs (advise,
// predict, perf score, place and its --trace, share frag, share simulate,
// cache simulate) and bench/pipeline's result into one self-contained HTML
// page: a section per system, inline SVG charts and CSS, no scripts, no
// network. The module's only public header. Deterministic: the same inputs
// give the same bytes. Stateless; thread-safe.
#ifndef FRUGAL_REPORT_REPORT_H_
#define FRUGAL_REPORT_REPORT_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "frugal/base/status.h"

namespace frugal::report {

struct InputKindInfo {
  std::string name;    // "advise"
  std::string source;  // the command whose output it is: "frugal advise --json"
};
// Every kind of input the report reads, in the order it recognises them.
std::vector<InputKindInfo> InputKinds();

struct Report {
  std::string html;
  std::vector<std::string> sections;   // ids of the sections present, page order
  std::vector<std::string> headlines;  // one-line findings, page order
};

// Reads and renders each file. An unreadable file, one that is not JSON,
// or JSON none of InputKinds() recognises is one error line naming it.
Result<Report> BuildReport(const std::vector<std::string>& paths);

// Writes report.html as DIR/index.html, creating DIR (and its parents).
// Returns the file's path.
Result<std::string> WriteReport(const Report& report, const std::string& dir);

// The miss-ratio curves of one `cache simulate --json` document as a
// standalone SVG file's text.
std::string CacheCurvesSvg(const nlohmann::json& cache_simulate, const std::string& title);

}  // namespace frugal::report

#endif  // FRUGAL_REPORT_REPORT_H_
