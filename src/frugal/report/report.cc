#include "frugal/report/report.h"

#include <filesystem>
#include <span>
#include <system_error>

#include <fmt/format.h>

#include "frugal/base/file_io.h"
#include "frugal/report/parts.h"
#include "frugal/report/svg.h"

namespace frugal::report {
namespace {

using nlohmann::json;

bool Has(const json& j, std::initializer_list<const char*> keys) {
  if (!j.is_object()) return false;
  for (const char* k : keys) {
    if (!j.contains(k)) return false;
  }
  return true;
}

struct KindRow {
  const char* name;
  const char* source;
  bool (*detect)(const json&);
  Part (*render)(const json&);
};

// Every input kind, one row each; the first whose fields match renders it.
constexpr KindRow kKinds[] = {
    {"advise", "frugal advise --json",
     [](const json& j) { return Has(j, {"configs", "recommended", "plans_priced"}); }, RenderAdvise},
    {"predict", "frugal predict --json",
     [](const json& j) { return Has(j, {"iteration_ms", "forward_ms", "ops"}); }, RenderPredict},
    {"predict-generation", "frugal predict --infer --prompt P --generate G --json",
     [](const json& j) { return Has(j, {"prefill_ms", "decode_samples", "decode_total_ms"}); }, RenderGeneration},
    {"perf-score", "frugal perf score --json",
     [](const json& j) { return Has(j, {"rows", "priced_rows"}); }, RenderPerfScore},
    {"place", "frugal place --json",
     [](const json& j) { return Has(j, {"methods", "lower_bound_ms"}); }, RenderPlace},
    {"schedule", "frugal place --trace FILE (Chrome trace JSON)",
     [](const json& j) { return Has(j, {"traceEvents"}); }, RenderSchedule},
    {"share-frag", "frugal share frag --json",
     [](const json& j) { return Has(j, {"results", "arrived_pct"}); }, RenderShareFrag},
    {"share-simulate", "frugal share simulate --json",
     [](const json& j) { return Has(j, {"results", "min_training_speed"}); }, RenderShareSimulate},
    {"cache-simulate", "frugal cache simulate --json",
     [](const json& j) { return Has(j, {"results", "footprint_bytes", "reads"}); }, RenderCacheSimulate},
    {"pipeline-bench", "bench/pipeline/run.sh (bench/results/pipeline.json)",
     [](const json& j) { return Has(j, {"cells", "none_s"}); }, RenderPipelineBench},
};

constexpr const char* kCss = R"(
body { font-family: system-ui, sans-serif; color: #222; margin: 0 auto; max-width: 1180px; padding: 0 20px 40px; }
header { border-bottom: 2px solid #0072B2; margin-bottom: 12px; }
h1 { font-size: 26px; margin: 18px 0 4px; }
nav a { margin-right: 16px; color: #0072B2; }
section.system { border-top: 1px solid #ccc; margin-top: 28px; padding-top: 4px; }
h2 { font-size: 21px; color: #0b3c5d; }
h3 { font-size: 16px; margin-top: 26px; }
.blurb { color: #444; font-style: italic; }
ul.headlines li { margin: 2px 0; }
figure { margin: 14px 0; }
figure svg { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 13px; color: #555; margin-top: 4px; }
table { border-collapse: collapse; font-size: 13px; margin: 10px 0; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; }
th { background: #f2f2f2; }
tbody tr:nth-child(even) { background: #fafafa; }
footer { margin-top: 36px; font-size: 12px; color: #666; }
)";

std::string PageHtml(const std::vector<std::pair<std::string, std::string>>& inputs,
                     const std::vector<Part>& parts, const std::vector<System>& present) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                  "<title>frugal report</title>\n<style>" + std::string(kCss) + "</style>\n</head>\n<body>\n";
  h += "<header>\n<h1>frugal report</h1>\n<nav>";
  for (System s : present) h += fmt::format("<a href=\"#{}\">{}</a>", SystemId(s), Escape(SystemTitle(s)));
  h += "</nav>\n</header>\n<ul class=\"headlines\">\n";
  for (const Part& p : parts) {
    for (const auto& line : p.headlines) h += "<li>" + Escape(line) + "</li>\n";
  }
  h += "</ul>\n";
  for (System s : present) {
    h += fmt::format("<section class=\"system\" id=\"{}\">\n<h2>{}</h2>\n<p class=\"blurb\">{}</p>\n", SystemId(s),
                     Escape(SystemTitle(s)), Escape(SystemBlurb(s)));
    for (const Part& p : parts) {
      if (p.system == s) h += "<h3>" + Escape(p.heading) + "</h3>\n" + p.html;
    }
    h += "</section>\n";
  }
  h += "<footer>Made by <code>frugal report</code> from:<ul>\n";
  for (const auto& [path, kind] : inputs) h += "<li><code>" + Escape(path) + "</code> (" + Escape(kind) + ")</li>\n";
  return h + "</ul></footer>\n</body>\n</html>\n";
}

}  // namespace

std::vector<InputKindInfo> InputKinds() {
  std::vector<InputKindInfo> out;
  for (const KindRow& k : kKinds) out.push_back({k.name, k.source});
  return out;
}

Result<Report> BuildReport(const std::vector<std::string>& paths) {
  if (paths.empty()) return InvalidArgument("report: no result files given");
  std::vector<Part> parts;
  std::vector<std::pair<std::string, std::string>> inputs;
  for (const std::string& path : paths) {
    FRUGAL_ASSIGN_OR_RETURN(json doc, ReadJsonFile(path));
    const KindRow* kind = nullptr;
    for (const KindRow& k : kKinds) {
      if (k.detect(doc)) { kind = &k; break; }
    }
    if (kind == nullptr) {
      return InvalidArgument(fmt::format(
          "{}: not a result frugal report reads (the --json output of advise, predict, perf score, place, "
          "share frag, share simulate or cache simulate, or a place --trace file)", path));
    }
    try {
      parts.push_back(kind->render(doc));
    } catch (const json::exception& e) {
      return InvalidArgument(fmt::format("{}: not a valid {} result: {}", path, kind->name, e.what()));
    } catch (const BadField& e) {
      return InvalidArgument(fmt::format("{}: not a valid {} result: {}", path, kind->name, e.what()));
    }
    inputs.emplace_back(path, kind->name);
  }
  Report r;
  std::vector<System> present;
  for (System s : {System::kCeer, System::kPesto, System::kShare, System::kCache}) {
    for (const Part& p : parts) {
      if (p.system != s) continue;
      present.push_back(s);
      r.sections.push_back(SystemId(s));
      break;
    }
    for (const Part& p : parts) {
      if (p.system == s) r.headlines.insert(r.headlines.end(), p.headlines.begin(), p.headlines.end());
    }
  }
  std::vector<Part> ordered;
  for (System s : present) {
    for (const Part& p : parts) if (p.system == s) ordered.push_back(p);
  }
  r.html = PageHtml(inputs, ordered, present);
  return r;
}

Result<std::string> WriteReport(const Report& report, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    return InvalidArgument(fmt::format("{}: cannot create the report directory{}", dir,
                                               ec ? ": " + ec.message() : ": a file is in the way"));
  }
  const std::string path = (std::filesystem::path(dir) / "index.html").string();
  FRUGAL_RETURN_IF_ERROR(WriteStringToFile(path, report.html));
  return path;
}

}  // namespace frugal::report
