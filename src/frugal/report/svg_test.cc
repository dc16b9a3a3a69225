#include "frugal/report/svg.h"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "frugal/report/test_text.h"

namespace frugal::report {
namespace {

using testing::CountOccurrences;

void ExpectFiniteNumbers(const std::string& svg) {
  EXPECT_EQ(svg.find("nan"), std::string::npos) << svg.substr(0, 400);
  EXPECT_EQ(svg.find("inf"), std::string::npos) << svg.substr(0, 400);
}

TEST(Svg, EscapesMarkup) { EXPECT_EQ(Escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;"); }

TEST(Svg, CompactNumbers) {
  EXPECT_EQ(CompactNumber(1.5), "1.5");
  EXPECT_EQ(CompactNumber(20), "20");
  EXPECT_EQ(CompactNumber(0.003), "0.003");
  EXPECT_EQ(CompactNumber(12000), "12k");
  EXPECT_EQ(CompactNumber(3.4e6), "3.4M");
  EXPECT_EQ(CompactNumber(NAN), "-");
}

TEST(Svg, XYChartHasAxesLegendAndOneLinePerSeries) {
  XYChart c{"Curves <1>", {"size (%)"}, {"miss ratio"}};
  c.series.push_back({"lru", {1, 2, 5}, {0.9, 0.7, 0.4}});
  c.series.push_back({"smartcache", {1, 2, 5}, {0.8, 0.5, 0.2}});
  c.refs.push_back({false, 0.5, "target"});
  const std::string svg = XYChartSvg(c);
  EXPECT_NE(svg.find("Curves &lt;1&gt;"), std::string::npos);
  EXPECT_EQ(CountOccurrences(svg, "<polyline"), 2);
  EXPECT_NE(svg.find(">size (%)</text>"), std::string::npos);
  EXPECT_NE(svg.find("miss ratio</text>"), std::string::npos);
  EXPECT_NE(svg.find(">smartcache</text>"), std::string::npos);
  EXPECT_NE(svg.find("stroke-dasharray=\"6 3\""), std::string::npos);  // second series is dashed
  EXPECT_NE(svg.find(">target</text>"), std::string::npos);
  EXPECT_EQ(svg, XYChartSvg(c));
  ExpectFiniteNumbers(svg);
}

TEST(Svg, LogAxisDropsValuesItCannotShow) {
  XYChart c{"t", {"x", true}, {"y", true}};
  c.series.push_back({"s", {0, -1, 10, 1000}, {1, 2, 0, 5}});
  const std::string svg = XYChartSvg(c);
  EXPECT_EQ(CountOccurrences(svg, "</circle>"), 1);  // only (1000, 5) is positive on both axes
  EXPECT_NE(svg.find("log scale"), std::string::npos);
  ExpectFiniteNumbers(svg);
}

TEST(Svg, DegenerateChartsStayFinite) {
  XYChart one{"one", {"x"}, {"y"}};
  one.series.push_back({"s", {3}, {3}});
  ExpectFiniteNumbers(XYChartSvg(one));
  ExpectFiniteNumbers(XYChartSvg(XYChart{"empty", {"x", true}, {"y"}}));
  ExpectFiniteNumbers(BarChartSvg(BarChart{"empty", "v"}));
  ExpectFiniteNumbers(GanttSvg(Gantt{"empty", "t"}));
}

TEST(Svg, BarChartDrawsOneBarPerFiniteValue) {
  BarChart b{"bars", "time (ms)", {"a", "b"}, {"g1", "g2"}, {{1, NAN}, {-2, 3}}};
  const std::string svg = BarChartSvg(b);
  EXPECT_EQ(CountOccurrences(svg, "</rect>"), 3);  // bars carry hover text; legend boxes do not
  EXPECT_NE(svg.find(">g2<title>g2</title></text>"), std::string::npos);
  ExpectFiniteNumbers(svg);
  b.stacked = true;
  ExpectFiniteNumbers(BarChartSvg(b));
}

TEST(Svg, GanttMergesSliversAndKeepsWideBars) {
  Gantt g{"s", "time (ms)", {"GPU 0", "GPU 1"}, {"forward", "backward"}};
  for (int i = 0; i < 1000; ++i) g.bars.push_back({0, i * 0.001, i * 0.001 + 0.001, 0, "tiny"});
  g.bars.push_back({1, 0, 100, 1, "wide op"});
  g.bars.push_back({1, 50, 50, 1, "zero-length, not drawn"});
  const std::string svg = GanttSvg(g);
  EXPECT_NE(svg.find("<title>wide op</title>"), std::string::npos);
  EXPECT_EQ(svg.find("zero-length"), std::string::npos);
  // 1000 slivers of 1 us on a 100 ms axis merge into bars about a pixel wide.
  EXPECT_NE(svg.find(" ops, 0.000-"), std::string::npos);
  EXPECT_LT(CountOccurrences(svg, "</rect>"), 15);
  ExpectFiniteNumbers(svg);
}

}  // namespace
}  // namespace frugal::report
