// HTML pieces and small formatting helpers shared by the renderers.
#include <cmath>

#include <fmt/format.h>

#include "frugal/report/parts.h"
#include "frugal/report/svg.h"

namespace frugal::report {

namespace {

struct SystemText {
  const char* id;
  const char* title;
  const char* blurb;
};

// Per System, in enum order.
constexpr SystemText kSystems[] = {
    {"ceer", "Ceer: training time and cost on any GPU",
     "Predicts each operation's time on a GPU from its specs, and picks the GPU type, count, cloud instance and "
     "parallel plan that meet a deadline or a budget at the lowest cost."},
    {"pesto", "Pesto: placing a model across GPUs",
     "Places and schedules a model's operations across GPUs with an integer program, and compares the schedule "
     "with the usual placement methods and a lower bound."},
    {"gshare", "G-Share: sharing GPUs within SLOs",
     "Decides which jobs share which GPU, and how (time slicing, MPS, MIG), so that a cluster needs fewer GPUs "
     "while latency-sensitive services keep their p99 SLO."},
    {"smartcache", "SmartCache: a learned cache for pipeline I/O",
     "Learns each pipeline file's size, I/O rate and lifetime, and keeps the files that save the most remote I/O "
     "in a limited cache tier."},
};

const SystemText& TextOf(System s) { return kSystems[static_cast<int>(s)]; }

}  // namespace

const char* SystemId(System s) { return TextOf(s).id; }
const char* SystemTitle(System s) { return TextOf(s).title; }
const char* SystemBlurb(System s) { return TextOf(s).blurb; }

std::string FigureHtml(const std::string& svg, const std::string& caption) {
  return fmt::format("<figure>\n{}<figcaption>{}</figcaption>\n</figure>\n", svg, Escape(caption));
}

std::string TableHtml(const std::vector<std::string>& header,
                      const std::vector<std::vector<std::string>>& rows) {
  std::string s = "<table>\n<thead><tr>";
  for (const auto& h : header) s += fmt::format("<th>{}</th>", Escape(h));
  s += "</tr></thead>\n<tbody>\n";
  for (const auto& r : rows) {
    s += "<tr>";
    for (const auto& c : r) s += fmt::format("<td>{}</td>", Escape(c));
    s += "</tr>\n";
  }
  s += "</tbody>\n</table>\n";
  // A long table is folded, so the charts around it stay in view.
  if (rows.size() > 12) {
    return fmt::format("<details><summary>the table ({} rows)</summary>\n{}</details>\n", rows.size(), s);
  }
  return s;
}

std::string ParagraphHtml(const std::string& text) { return fmt::format("<p>{}</p>\n", Escape(text)); }

double Num(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return std::nan("");
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nan("");
  if (!it->is_number()) throw BadField(fmt::format("\"{}\" is {}, not a number", key, it->type_name()));
  return it->get<double>();
}

double FiniteNum(const nlohmann::json& j, const char* key) {
  const double v = j.is_object() && j.contains(key) ? Num(j, key) : std::nan("");
  if (!std::isfinite(v)) throw BadField(fmt::format("\"{}\" is missing or not a finite number", key));
  return v;
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string Usd(double v) {
  if (!std::isfinite(v)) return "no price";
  if (std::abs(v) >= 1000) {
    const std::string digits = fmt::format("{}", std::llround(std::abs(v)));
    std::string grouped = v < 0 ? "-$" : "$";
    for (size_t i = 0; i < digits.size(); ++i) {
      if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
      grouped += digits[i];
    }
    return grouped;
  }
  return fmt::format("${:.{}f}", v, std::abs(v) >= 100 ? 0 : 2);
}

}  // namespace frugal::report
