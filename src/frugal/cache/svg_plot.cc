#include "frugal/cache/svg_plot.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "frugal/base/units.h"

namespace frugal::cache {
namespace {

constexpr const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                                   "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000"};

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

}  // namespace

std::string MissRatioCurvesSvg(const std::vector<SimulationResult>& results,
                               const std::string& title) {
  const double panel_w = 420, panel_h = 300, left = 60, top = 50, gap = 80;
  std::vector<std::string> order;
  std::map<std::string, std::vector<const SimulationResult*>> by_policy;
  int64_t lo = INT64_MAX, hi = 0;
  for (const auto& r : results) {
    if (!by_policy.count(r.policy)) order.push_back(r.policy);
    by_policy[r.policy].push_back(&r);
    lo = std::min(lo, r.cache_bytes);
    hi = std::max(hi, r.cache_bytes);
  }
  const bool single = lo == hi;
  auto x_of = [&](int64_t b, double x0) {
    if (single) return x0 + panel_w / 2;
    return x0 + panel_w * (static_cast<double>(b - lo) / static_cast<double>(hi - lo));
  };
  auto y_of = [&](double v) { return top + panel_h * (1.0 - v); };
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{:.0f}\" y=\"20\" font-size=\"15\">{}</text>\n",
      left + 2 * panel_w + gap + 160, top + panel_h + 60, left, Escape(title));
  for (int panel = 0; panel < 2; ++panel) {
    const double x0 = left + panel * (panel_w + gap);
    svg += fmt::format(
        "<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"none\" stroke=\"#444\"/>\n",
        x0, top, panel_w, panel_h);
    svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\">{}</text>\n", x0, top - 8,
                       panel == 0 ? "miss ratio" : "byte miss ratio");
    for (int k = 0; k <= 4; ++k) {
      const double v = k / 4.0;
      svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"end\">{:.2f}</text>\n", x0 - 6,
                         y_of(v) + 4, v);
      svg += fmt::format("<line x1=\"{:.0f}\" y1=\"{:.1f}\" x2=\"{:.0f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n", x0,
                         y_of(v), x0 + panel_w, y_of(v));
    }
    std::vector<int64_t> sizes;
    for (const auto& r : results) sizes.push_back(r.cache_bytes);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    for (int64_t b : sizes) {
      svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.0f}\" text-anchor=\"middle\">{}</text>\n", x_of(b, x0),
                         top + panel_h + 18, Escape(HumanBytes(static_cast<double>(b))));
    }
    svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\">cache size</text>\n",
                       x0 + panel_w / 2, top + panel_h + 40);
    for (size_t i = 0; i < order.size(); ++i) {
      auto pts = by_policy[order[i]];
      std::sort(pts.begin(), pts.end(),
                [](const SimulationResult* a, const SimulationResult* b) { return a->cache_bytes < b->cache_bytes; });
      std::string d;
      for (const SimulationResult* r : pts) {
        const double v = panel == 0 ? r->miss_ratio : r->byte_miss_ratio;
        d += fmt::format("{}{:.1f},{:.1f} ", d.empty() ? "M" : "L", x_of(r->cache_bytes, x0), y_of(v));
        svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n", x_of(r->cache_bytes, x0),
                           y_of(v), kColors[i % std::size(kColors)]);
      }
      svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n", d,
                         kColors[i % std::size(kColors)]);
    }
  }
  const double lx = left + 2 * panel_w + gap + 20;
  for (size_t i = 0; i < order.size(); ++i) {
    const double y = top + 10 + 18 * static_cast<double>(i);
    svg += fmt::format("<line x1=\"{:.0f}\" y1=\"{:.0f}\" x2=\"{:.0f}\" y2=\"{:.0f}\" stroke=\"{}\" stroke-width=\"3\"/>"
                       "<text x=\"{:.0f}\" y=\"{:.0f}\">{}</text>\n",
                       lx, y, lx + 20, y, kColors[i % std::size(kColors)], lx + 26, y + 4, Escape(order[i]));
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace frugal::cache
