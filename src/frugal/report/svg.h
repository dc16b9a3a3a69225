// The report's charts as inline SVG: x-y charts (lines and points, linear or
// log axes), grouped or stacked bar charts, and Gantt charts. Every chart has
// a title, axes with tick labels and units, and a legend. Series differ in
// colour (the Okabe-Ito palette, readable with every common colour-vision
// deficiency) and also in marker shape and dash pattern, so no chart relies
// on colour alone. Hover text is SVG <title>. Output is deterministic text.
// Internal to the report module. Stateless; thread-safe.
#ifndef FRUGAL_REPORT_SVG_H_
#define FRUGAL_REPORT_SVG_H_

#include <optional>
#include <string>
#include <vector>

namespace frugal::report {

// Text with &, <, >, " escaped for HTML and SVG.
std::string Escape(const std::string& s);

// A number in at most `digits` significant digits, without trailing zeros
// ("1.5", "20", "0.003"; "12k", "3.4M" from 10^4 up).
std::string CompactNumber(double v, int digits = 3);

// The palette colour for series k (cycles after 8).
const char* SeriesColor(int k);

struct Axis {
  std::string label;  // with its unit: "training time (h)"
  bool log = false;   // needs positive values; others are dropped
  std::optional<double> min, max;  // default: the data's range, padded
};

struct Series {
  std::string name;              // legend entry
  std::vector<double> x, y;      // equal lengths
  std::vector<std::string> tips;  // per point hover text (optional)
  bool line = true;
  bool points = true;
  double point_radius = 3.5;
  int style = -1;                // palette / marker / dash index; -1: its position
  bool muted = false;            // drawn light grey, behind the others
};

struct RefLine {
  bool vertical = false;  // false: at y = value; true: at x = value
  double value = 0;
  std::string label;
};

struct XYChart {
  std::string title;
  Axis x, y;
  std::vector<Series> series;
  std::vector<RefLine> refs;
  int width = 720, height = 420;
};
std::string XYChartSvg(const XYChart& c);

// Bars: one row (group) per label; within it one bar per series, side by
// side, or one bar split into the series when stacked. Horizontal bars.
struct BarChart {
  std::string title;
  std::string value_label;          // the value axis, with its unit
  std::vector<std::string> series;  // legend entries (may be one)
  std::vector<std::string> groups;
  std::vector<std::vector<double>> values;  // [group][series]; NaN = no bar
  std::vector<std::vector<std::string>> tips;  // optional, same shape
  bool stacked = false;
  std::vector<RefLine> refs;  // vertical lines at value positions
  int width = 720;
};
std::string BarChartSvg(const BarChart& c);

// A schedule: one row per resource (GPU, link), bars from start to end.
// Bars narrower than half a pixel are merged with their neighbours of the
// same kind on the same row, their hover text counting the ops merged.
struct GanttBar {
  int row = 0;
  double start = 0, end = 0;
  int kind = 0;       // index into kinds (colour and legend)
  std::string tip;    // hover text
};
struct Gantt {
  std::string title;
  std::string time_label;  // "time (ms)"
  std::vector<std::string> rows;
  std::vector<std::string> kinds;
  std::vector<GanttBar> bars;
  int width = 960;
};
std::string GanttSvg(const Gantt& g);

}  // namespace frugal::report

#endif  // FRUGAL_REPORT_SVG_H_
