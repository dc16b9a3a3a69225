// What the report is made of, internal to the module: each kind of input
// (a verb's --json output) renders into a Part of one system's section.
// Renderers read the document with nlohmann's checked accessors; report.cc
// turns a missing or mistyped field into one error line naming the file.
#ifndef FRUGAL_REPORT_PARTS_H_
#define FRUGAL_REPORT_PARTS_H_

#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace frugal::report {

// The four systems, in page order.
enum class System { kCeer, kPesto, kShare, kCache };
const char* SystemId(System s);     // "ceer": the section's HTML id
const char* SystemTitle(System s);  // "Ceer: training time and cost"
const char* SystemBlurb(System s);  // one sentence: the problem it solves

struct Part {
  System system = System::kCeer;
  std::string heading;  // h3 of this input's part
  std::string html;     // figures, tables, text
  std::vector<std::string> headlines;  // one-line findings (the demo prints them)
};

// Renderers, one per input kind (report.cc lists them in one table).
Part RenderAdvise(const nlohmann::json& doc);
Part RenderPredict(const nlohmann::json& doc);
Part RenderGeneration(const nlohmann::json& doc);  // predict --infer --prompt P --generate G
Part RenderPerfScore(const nlohmann::json& doc);
Part RenderPlace(const nlohmann::json& doc);
Part RenderSchedule(const nlohmann::json& doc);  // place --trace (Chrome trace)
Part RenderShareFrag(const nlohmann::json& doc);
Part RenderShareSimulate(const nlohmann::json& doc);
Part RenderCacheSimulate(const nlohmann::json& doc);
Part RenderPipelineBench(const nlohmann::json& doc);  // bench/pipeline/run.sh

// HTML pieces (html.cc). Text arguments are escaped; svg is inserted as is.
std::string FigureHtml(const std::string& svg, const std::string& caption);
std::string TableHtml(const std::vector<std::string>& header,
                      const std::vector<std::vector<std::string>>& rows);
std::string ParagraphHtml(const std::string& text);

// A field the renderers cannot use (report.cc names the file).
struct BadField : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A number field, or NaN when it is missing or null. Throws BadField when
// it holds anything else (a string, an object).
double Num(const nlohmann::json& j, const char* key);
// A field every entry must hold: a finite number, else BadField.
double FiniteNum(const nlohmann::json& j, const char* key);
// The last path component of a path ("models/resnet50.onnx" -> "resnet50.onnx").
std::string BaseName(const std::string& path);
// "$1,234" / "$12.3" / "$0.52".
std::string Usd(double v);

}  // namespace frugal::report

#endif  // FRUGAL_REPORT_PARTS_H_
