#include "frugal/report/svg.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace frugal::report {
namespace {

// Okabe & Ito's colour-blind-safe palette, darkest first; yellow last (it
// is faint on white, so it is used only when seven series are not enough).
constexpr const char* kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#000000", "#F0E442"};
constexpr const char* kDashes[] = {"", "6 3", "2 2", "8 3 2 3", "4 4", "1 3", "10 4", "3 1"};
constexpr int kStyles = 8;
constexpr double kFontPx = 12;
constexpr double kCharPx = 6.6;  // mean glyph width of 12 px sans-serif
constexpr double kLegendRowPx = 18;

int StyleIndex(int style, int position) { return (style >= 0 ? style : position) % kStyles; }

std::string Header(double w, double h, const std::string& title) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0:.0f} {1:.0f}\" width=\"{0:.0f}\" "
      "height=\"{1:.0f}\" role=\"img\" aria-label=\"{2}\" font-family=\"sans-serif\" "
      "font-size=\"{3:.0f}\" class=\"chart\">\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
      "<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">{2}</text>\n",
      w, h, Escape(title), kFontPx);
}

std::string Text(double x, double y, const std::string& s, const char* anchor = "start",
                 const std::string& extra = "") {
  return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\"{}>{}</text>\n", x, y,
                     anchor, extra, Escape(s));
}

std::string Tip(const std::string& tip) {
  return tip.empty() ? "" : "<title>" + Escape(tip) + "</title>";
}

// A marker of one of eight shapes centred on (x, y).
std::string Marker(int style, double x, double y, double r, const char* color,
                   const std::string& tip, double stroke_w = 1) {
  const std::string paint =
      fmt::format("fill=\"{}\" stroke=\"#fff\" stroke-width=\"{:.1f}\"", color, stroke_w);
  // Hover text is a <title> child; a marker without one closes at once.
  auto close = [&](const char* tag) {
    return tip.empty() ? std::string("/>") : fmt::format("><title>{}</title></{}>", Escape(tip), tag);
  };
  auto poly = [&](std::initializer_list<std::pair<double, double>> pts) {
    std::string p;
    for (auto [dx, dy] : pts) p += fmt::format("{:.1f},{:.1f} ", x + dx * r, y + dy * r);
    return fmt::format("<polygon points=\"{}\" {}{}", p, paint, close("polygon"));
  };
  switch (style % kStyles) {
    case 0: return fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" {}{}", x, y, r, paint, close("circle"));
    case 1: return poly({{-1, -1}, {1, -1}, {1, 1}, {-1, 1}});
    case 2: return poly({{0, -1.3}, {1.2, 0.9}, {-1.2, 0.9}});
    case 3: return poly({{0, -1.4}, {1.4, 0}, {0, 1.4}, {-1.4, 0}});
    case 4: return poly({{0, 1.3}, {1.2, -0.9}, {-1.2, -0.9}});
    case 5: return poly({{-0.4, -1.2}, {0.4, -1.2}, {0.4, -0.4}, {1.2, -0.4}, {1.2, 0.4}, {0.4, 0.4},
                         {0.4, 1.2}, {-0.4, 1.2}, {-0.4, 0.4}, {-1.2, 0.4}, {-1.2, -0.4}, {-0.4, -0.4}});
    case 6: return poly({{-1.3, 0}, {-0.6, -1.1}, {0.6, -1.1}, {1.3, 0}, {0.6, 1.1}, {-0.6, 1.1}});
    default: return poly({{-1.2, -1.2}, {1.2, -1.2}, {0, 0}, {1.2, 1.2}, {-1.2, 1.2}, {0, 0}});
  }
}

// A linear or logarithmic map from a value range onto [p0, p1] pixels.
struct Scale {
  double lo = 0, hi = 1, p0 = 0, p1 = 1;
  bool log = false;
  double operator()(double v) const {
    const double f = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo))
                         : (v - lo) / (hi - lo);
    return p0 + f * (p1 - p0);
  }
};

double NiceStep(double range, int target) {
  const double raw = range / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * mag >= raw) return m * mag;
  }
  return 10 * mag;
}

// Ticks inside [lo, hi]: multiples of a 1-2-5 step, or on a log axis powers
// of ten (with 2x and 5x between them when the range spans under 3 decades).
std::vector<double> Ticks(const Scale& s, int target) {
  std::vector<double> t;
  if (s.log && s.hi / s.lo < 10) {
    // Under a decade: 1-2-5 steps as on a linear axis, placed on the log scale.
    const double step = NiceStep(s.hi - s.lo, target / 2 + 1);
    for (double v = std::ceil(s.lo / step - 1e-9) * step; v <= s.hi * (1 + 1e-9); v += step) t.push_back(v);
    return t;
  }
  if (s.log) {
    const int e0 = static_cast<int>(std::floor(std::log10(s.lo))),
              e1 = static_cast<int>(std::ceil(std::log10(s.hi)));
    const int stride = std::max(1, (e1 - e0) / 8);
    for (int e = e0; e <= e1; e += stride) {
      const bool fine = std::log10(s.hi) - std::log10(s.lo) < 2.5;
      for (double m : (fine ? std::vector<double>{1, 2, 5} : std::vector<double>{1})) {
        const double v = m * std::pow(10.0, e);
        if (v >= s.lo * (1 - 1e-9) && v <= s.hi * (1 + 1e-9)) t.push_back(v);
      }
    }
    return t;
  }
  const double step = NiceStep(s.hi - s.lo, target);
  for (double v = std::ceil(s.lo / step - 1e-9) * step; v <= s.hi + step * 1e-9; v += step) {
    t.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  }
  return t;
}

// The axis range of values [lo, hi]: a log axis widened to whole factors,
// a linear one to the enclosing ticks (and to 0 when near it).
std::pair<double, double> Domain(double lo, double hi, const Axis& a) {
  if (!(lo <= hi)) lo = hi = a.log ? 1 : 0;
  if (a.log) {
    if (lo == hi) { lo /= 2; hi *= 2; }
    lo = std::pow(10.0, std::floor(std::log10(lo) * 4) / 4);
    hi = std::pow(10.0, std::ceil(std::log10(hi) * 4) / 4);
  } else {
    if (lo == hi) { lo -= std::max(1.0, std::abs(lo) * 0.1); hi += std::max(1.0, std::abs(hi) * 0.1); }
    if (lo > 0 && lo < 0.35 * hi) lo = 0;
    const double step = NiceStep(hi - lo, 6);
    lo = std::floor(lo / step + 1e-9) * step;
    hi = std::ceil(hi / step - 1e-9) * step;
  }
  return {a.min.value_or(lo), a.max.value_or(hi)};
}

// Legend entries in columns under the plot; returns its SVG and sets height.
struct LegendEntry {
  std::string name;
  int style;
  bool line, points, muted, box;
};
std::string Legend(const std::vector<LegendEntry>& entries, double x0, double y0, double width,
                   double* height) {
  size_t longest = 0;
  for (const auto& e : entries) longest = std::max(longest, e.name.size());
  const double col_w = std::min(width, std::max(120.0, 34 + kCharPx * static_cast<double>(longest)));
  const int cols = std::max(1, static_cast<int>(width / col_w));
  const int rows = static_cast<int>((entries.size() + cols - 1) / cols);
  *height = rows * kLegendRowPx + 6;
  std::string s = "<g class=\"legend\">\n";
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    const double x = x0 + static_cast<double>(i % cols) * col_w;
    const double y = y0 + static_cast<double>(i / cols) * kLegendRowPx + 12;
    const char* color = e.muted ? "#bbb" : SeriesColor(e.style);
    if (e.box) {
      s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"18\" height=\"10\" fill=\"{}\"/>", x,
                       y - 9, color);
    } else {
      if (e.line) {
        s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
                         "stroke-width=\"2\" stroke-dasharray=\"{}\"/>", x, y - 4, x + 24, y - 4, color,
                         kDashes[e.style % kStyles]);
      }
      if (e.points) s += Marker(e.style, x + 12, y - 4, 4, color, "");
    }
    s += Text(x + 30, y, e.name);
  }
  return s + "</g>\n";
}

std::string AxisLabel(double x, double y, const std::string& label, bool vertical) {
  if (!vertical) return Text(x, y, label, "middle");
  return fmt::format("<text transform=\"translate({:.1f},{:.1f}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
                     x, y, Escape(label));
}

}  // namespace

std::string Escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string CompactNumber(double v, int digits) {
  if (!std::isfinite(v)) return "-";
  const double a = std::abs(v);
  const char* suffix = "";
  if (a >= 1e12) { v /= 1e12; suffix = "T"; }
  else if (a >= 1e9) { v /= 1e9; suffix = "G"; }
  else if (a >= 1e6) { v /= 1e6; suffix = "M"; }
  else if (a >= 1e4) { v /= 1e3; suffix = "k"; }
  std::string s = fmt::format("{:.{}g}", v, digits);
  if (s.find('e') != std::string::npos && std::abs(v) >= 1) s = fmt::format("{:.0f}", v);
  if (s.find('.') != std::string::npos && s.find('e') == std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s + suffix;
}

const char* SeriesColor(int k) { return kPalette[((k % kStyles) + kStyles) % kStyles]; }

std::string XYChartSvg(const XYChart& c) {
  const double left = 78, right = 24, top = 36, plot_h = c.height - top - 56;
  const double plot_w = c.width - left - right;
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  auto usable = [](double v, bool log) { return std::isfinite(v) && (!log || v > 0); };
  for (const auto& s : c.series) {
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!usable(s.x[i], c.x.log) || !usable(s.y[i], c.y.log)) continue;
      xlo = std::min(xlo, s.x[i]); xhi = std::max(xhi, s.x[i]);
      ylo = std::min(ylo, s.y[i]); yhi = std::max(yhi, s.y[i]);
    }
  }
  for (const auto& r : c.refs) {
    double& lo = r.vertical ? xlo : ylo;
    double& hi = r.vertical ? xhi : yhi;
    if (usable(r.value, r.vertical ? c.x.log : c.y.log)) { lo = std::min(lo, r.value); hi = std::max(hi, r.value); }
  }
  const std::pair<double, double> xr = Domain(xlo, xhi, c.x);
  const double x0 = xr.first, x1 = xr.second;
  const std::pair<double, double> yr = Domain(ylo, yhi, c.y);
  const double y0 = yr.first, y1 = yr.second;
  const Scale sx{x0, x1, left, left + plot_w, c.x.log};
  const Scale sy{y0, y1, top + plot_h, top, c.y.log};

  std::vector<LegendEntry> legend;
  for (size_t k = 0; k < c.series.size(); ++k) {
    const auto& s = c.series[k];
    legend.push_back({s.name, StyleIndex(s.style, static_cast<int>(k)), s.line, s.points, s.muted, false});
  }
  double legend_h = 0;
  const std::string legend_svg = Legend(legend, left, top + plot_h + 46, plot_w, &legend_h);
  std::string svg = Header(c.width, top + plot_h + 50 + legend_h, c.title);
  svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" "
                     "stroke=\"#888\"/>\n", left, top, plot_w, plot_h);
  for (double t : Ticks(sx, 7)) {
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#e4e4e4\"/>\n",
                       sx(t), top, top + plot_h);
    svg += Text(sx(t), top + plot_h + 16, CompactNumber(t), "middle");
  }
  for (double t : Ticks(sy, 6)) {
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#e4e4e4\"/>\n",
                       left, sy(t), left + plot_w);
    svg += Text(left - 6, sy(t) + 4, CompactNumber(t), "end");
  }
  svg += AxisLabel(left + plot_w / 2, top + plot_h + 36, c.x.label + (c.x.log ? ", log scale" : ""), false);
  svg += AxisLabel(18, top + plot_h / 2, c.y.label + (c.y.log ? ", log scale" : ""), true);
  auto inside = [&](double x, double y) {
    return usable(x, c.x.log) && usable(y, c.y.log) && x >= x0 && x <= x1 && y >= y0 && y <= y1;
  };
  for (const auto& r : c.refs) {
    if (!usable(r.value, r.vertical ? c.x.log : c.y.log)) continue;
    if (r.vertical) {
      svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#444\" "
                         "stroke-dasharray=\"5 4\"/>\n", sx(r.value), top, top + plot_h);
      svg += Text(sx(r.value) + 4, top + 14, r.label);
    } else {
      svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#444\" "
                         "stroke-dasharray=\"5 4\"/>\n", left, sy(r.value), left + plot_w);
      svg += Text(left + plot_w - 4, sy(r.value) - 5, r.label, "end");
    }
  }
  // Muted series first, so the highlighted ones are drawn on top.
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t k = 0; k < c.series.size(); ++k) {
      const auto& s = c.series[k];
      if (s.muted != (pass == 0)) continue;
      const int style = StyleIndex(s.style, static_cast<int>(k));
      const char* color = s.muted ? "#bbb" : SeriesColor(style);
      svg += fmt::format("<g class=\"series\" data-name=\"{}\">\n", Escape(s.name));
      if (s.line) {
        std::string pts;
        for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
          if (inside(s.x[i], s.y[i])) pts += fmt::format("{:.1f},{:.1f} ", sx(s.x[i]), sy(s.y[i]));
        }
        svg += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
                           "stroke-dasharray=\"{}\"/>\n", pts, color, kDashes[style]);
      }
      if (s.points) {
        for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
          if (!inside(s.x[i], s.y[i])) continue;
          svg += Marker(style, sx(s.x[i]), sy(s.y[i]), s.point_radius, color,
                        i < s.tips.size() ? s.tips[i] : s.name, s.point_radius > 5 ? 1.5 : 0.7);
        }
        svg += "\n";
      }
      svg += "</g>\n";
    }
  }
  return svg + legend_svg + "</svg>\n";
}

std::string BarChartSvg(const BarChart& c) {
  size_t longest = 0;
  for (const auto& g : c.groups) longest = std::max(longest, g.size());
  const double label_w = std::min(280.0, 16 + kCharPx * static_cast<double>(longest));
  const double left = label_w + 10, right = 56, top = c.refs.empty() ? 36 : 52;
  const double plot_w = c.width - left - right;
  const size_t ns = std::max<size_t>(1, c.series.size());
  // Bars of up to three series are labelled with their values; thinner
  // bars of more series only in their hover text.
  const double bar_h = c.stacked || ns == 1 ? 16 : ns <= 3 ? 12 : 8;
  const double group_h = (c.stacked ? bar_h : bar_h * static_cast<double>(ns)) + 8;
  const double plot_h = group_h * static_cast<double>(c.groups.size()) + 4;
  auto value = [&](size_t g, size_t s) {
    return g < c.values.size() && s < c.values[g].size() ? c.values[g][s] : std::nan("");
  };
  double lo = 0, hi = 0;
  for (size_t g = 0; g < c.groups.size(); ++g) {
    double pos = 0, neg = 0;
    for (size_t s = 0; s < ns; ++s) {
      const double v = value(g, s);
      if (!std::isfinite(v)) continue;
      if (c.stacked) (v >= 0 ? pos : neg) += v;
      else { lo = std::min(lo, v); hi = std::max(hi, v); }
    }
    lo = std::min(lo, neg); hi = std::max(hi, pos);
  }
  for (const auto& r : c.refs) { lo = std::min(lo, r.value); hi = std::max(hi, r.value); }
  const std::pair<double, double> vr = Domain(lo, hi, Axis{});
  const double v0 = vr.first, v1 = vr.second;
  const Scale sv{v0, v1, left, left + plot_w, false};

  std::vector<LegendEntry> legend;
  for (size_t s = 0; s < c.series.size(); ++s) legend.push_back({c.series[s], static_cast<int>(s), false, false, false, true});
  double legend_h = 0;
  const std::string legend_svg =
      c.series.size() > 1 ? Legend(legend, left, top + plot_h + 40, plot_w, &legend_h) : "";
  std::string svg = Header(c.width, top + plot_h + 44 + legend_h, c.title);
  for (double t : Ticks(sv, 6)) {
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#e4e4e4\"/>\n",
                       sv(t), top, top + plot_h);
    svg += Text(sv(t), top + plot_h + 16, CompactNumber(t), "middle");
  }
  svg += AxisLabel(left + plot_w / 2, top + plot_h + 34, c.value_label, false);
  for (size_t g = 0; g < c.groups.size(); ++g) {
    const double gy = top + 4 + group_h * static_cast<double>(g);
    std::string label = c.groups[g];
    const size_t max_chars = std::max<size_t>(4, static_cast<size_t>((label_w - 16) / kCharPx + 0.5));
    if (label.size() > max_chars) label = label.substr(0, max_chars - 1) + "~";
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}{}</text>\n", left - 6,
                       gy + (group_h - 8) / 2 + 4, Escape(label), Tip(c.groups[g]));
    double pos = 0, neg = 0;
    for (size_t s = 0; s < ns; ++s) {
      const double v = value(g, s);
      if (!std::isfinite(v)) {
        if (!c.stacked && bar_h >= 12) {
          svg += Text(sv(0) + 4, gy + bar_h * static_cast<double>(s) + bar_h - 3, "no value", "start",
                      " font-size=\"10\" fill=\"#666\"");
        }
        continue;
      }
      double a = 0, b = v, y = gy + bar_h * static_cast<double>(s);
      if (c.stacked) {
        double& acc = v >= 0 ? pos : neg;
        a = acc; b = acc + v; acc = b; y = gy;
      }
      const double xa = sv(std::min(a, b)), xb = sv(std::max(a, b));
      std::string tip = g < c.tips.size() && s < c.tips[g].size() && !c.tips[g][s].empty()
                            ? c.tips[g][s]
                            : c.groups[g] + (c.series.empty() ? "" : " / " + c.series[s]) + ": " + CompactNumber(v, 4);
      svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\">{}</rect>\n",
                         xa, y, std::max(0.0, xb - xa), bar_h - 1, SeriesColor(static_cast<int>(s)), Tip(tip));
      if (!c.stacked && bar_h >= 12) svg += Text(xb + 3, y + bar_h - 3, CompactNumber(v), "start", " font-size=\"10\"");
    }
    if (c.stacked && pos > 0) svg += Text(sv(pos) + 3, gy + bar_h - 4, CompactNumber(pos), "start", " font-size=\"10\"");
  }
  svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#444\"/>\n",
                     sv(0), top, top + plot_h);
  for (const auto& r : c.refs) {
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#444\" "
                       "stroke-dasharray=\"5 4\"/>\n", sv(r.value), top - 4, top + plot_h);
    svg += Text(sv(r.value) + 4, top - 6, r.label);
  }
  return svg + legend_svg + "</svg>\n";
}

std::string GanttSvg(const Gantt& g) {
  size_t longest = 0;
  for (const auto& r : g.rows) longest = std::max(longest, r.size());
  const double left = std::min(220.0, 16 + kCharPx * static_cast<double>(longest)), right = 20, top = 36;
  const double row_h = 22, plot_w = g.width - left - right;
  const double plot_h = row_h * static_cast<double>(g.rows.size());
  double end = 0;
  for (const auto& b : g.bars) end = std::max(end, b.end);
  const std::pair<double, double> tr = Domain(0, end > 0 ? end : 1, Axis{});
  const double t0 = tr.first, t1 = tr.second;
  const Scale st{t0, t1, left, left + plot_w, false};

  std::vector<LegendEntry> legend;
  for (size_t k = 0; k < g.kinds.size(); ++k) legend.push_back({g.kinds[k], static_cast<int>(k), false, false, false, true});
  double legend_h = 0;
  const std::string legend_svg = Legend(legend, left, top + plot_h + 40, plot_w, &legend_h);
  std::string svg = Header(g.width, top + plot_h + 44 + legend_h, g.title);
  for (size_t r = 0; r < g.rows.size(); ++r) {
    const double y = top + row_h * static_cast<double>(r);
    if (r % 2 == 1) {
      svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#f4f4f4\"/>\n",
                         left, y, plot_w, row_h);
    }
    svg += Text(left - 6, y + row_h / 2 + 4, g.rows[r], "end");
  }
  for (double t : Ticks(st, 8)) {
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/>\n",
                       st(t), top, top + plot_h);
    svg += Text(st(t), top + plot_h + 16, CompactNumber(t), "middle");
  }
  svg += AxisLabel(left + plot_w / 2, top + plot_h + 34, g.time_label, false);

  std::vector<GanttBar> bars;
  for (const auto& b : g.bars) {
    if (b.end > b.start && b.row >= 0 && static_cast<size_t>(b.row) < g.rows.size()) bars.push_back(b);
  }
  std::stable_sort(bars.begin(), bars.end(), [](const GanttBar& a, const GanttBar& b) {
    return a.row != b.row ? a.row < b.row : a.start < b.start;
  });
  const double px = (t1 - t0) / plot_w;  // time per pixel
  auto emit = [&](const GanttBar& b, int merged) {
    const double y = top + row_h * static_cast<double>(b.row) + 3;
    const std::string tip = merged > 1 ? fmt::format("{} ops, {:.3f}-{:.3f} ms", merged, b.start, b.end) : b.tip;
    svg += fmt::format("<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\">{}</rect>\n",
                       st(b.start), y, std::max(0.4, st(b.end) - st(b.start)), row_h - 6,
                       SeriesColor(b.kind), Tip(tip));
  };
  for (size_t i = 0; i < bars.size();) {
    GanttBar cur = bars[i];
    int merged = 1;
    size_t j = i + 1;
    while (j < bars.size() && bars[j].row == cur.row && bars[j].kind == cur.kind &&
           cur.end - cur.start < px && bars[j].end - bars[j].start < px && bars[j].start - cur.end < px / 2) {
      cur.end = std::max(cur.end, bars[j].end);
      ++merged;
      ++j;
    }
    emit(cur, merged);
    i = j;
  }
  return svg + legend_svg + "</svg>\n";
}

}  // namespace frugal::report
