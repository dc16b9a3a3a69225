// SmartCache's parts: `cache simulate --json` (miss-ratio curves per policy
// over cache size, modelled pipeline speed-up) and bench/pipeline's measured
// result (speed-up of a real Dask pipeline through the mounted cache).
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "frugal/report/parts.h"
#include "frugal/report/report.h"
#include "frugal/report/svg.h"

namespace frugal::report {
namespace {

using nlohmann::json;

// Policies in first-seen order, and cache sizes (% of the footprint) sorted.
struct Grid {
  std::vector<std::string> policies;
  std::vector<double> sizes;
};
Grid GridOf(const json& results, const char* size_key, double scale) {
  Grid g;
  for (const json& r : results) {
    const std::string p = r.at("policy").get<std::string>();
    if (std::find(g.policies.begin(), g.policies.end(), p) == g.policies.end()) g.policies.push_back(p);
    const double s = scale * FiniteNum(r, size_key);
    if (!std::isfinite(s) || s < 0) throw BadField(fmt::format("\"{}\" is not a cache size", size_key));
    if (std::none_of(g.sizes.begin(), g.sizes.end(),
                                         [&](double x) { return std::abs(x - s) <= 1e-6 * std::max(1.0, s); })) {
      g.sizes.push_back(s);
    }
  }
  std::sort(g.sizes.begin(), g.sizes.end());
  return g;
}

size_t SizeIndex(const Grid& g, double s) {
  size_t best = 0;
  for (size_t i = 0; i < g.sizes.size(); ++i) {
    if (std::abs(g.sizes[i] - s) < std::abs(g.sizes[best] - s)) best = i;
  }
  return best;
}

XYChart Curves(const json& results, const char* key, const std::string& title, const std::string& y_label) {
  const Grid g = GridOf(results, "cache_fraction", 100);
  const bool log_x = g.sizes.size() >= 3 && g.sizes.front() > 0 && g.sizes.back() / g.sizes.front() >= 10;
  XYChart c{title, {"cache size (% of the trace's footprint)", log_x}, {y_label}};
  c.y.min = 0;
  for (const std::string& p : g.policies) {
    Series s{p};
    std::vector<std::pair<double, double>> pts;
    for (const json& r : results) {
      if (r.at("policy").get<std::string>() == p) pts.emplace_back(100 * Num(r, "cache_fraction"), Num(r, key));
    }
    std::sort(pts.begin(), pts.end());
    for (auto [x, y] : pts) {
      s.x.push_back(x);
      s.y.push_back(y);
      s.tips.push_back(fmt::format("{} at {}% of the footprint: {:.4f}", p, CompactNumber(x), y));
    }
    c.series.push_back(s);
  }
  return c;
}

std::string SizeLabel(double pct) { return "cache " + CompactNumber(pct) + "% of the footprint"; }

// `cache simulate --breakdown`: per policy at one cache size, its byte
// miss ratio stacked by key, the keys on which the policies differ most
// named and the rest as "other"; empty when no result carries a
// breakdown at that size.
std::string BreakdownSvg(const json& results, const Grid& g, size_t at) {
  constexpr size_t kKeys = 6;
  std::vector<const json*> at_size;
  std::string by;
  for (const json& r : results) {
    if (SizeIndex(g, 100 * Num(r, "cache_fraction")) != at || !r.contains("breakdown")) continue;
    at_size.push_back(&r);
    by = r.at("breakdown").at("by").get<std::string>();
  }
  if (at_size.empty()) return "";
  // Keys named by how much the policies differ on them (the largest less
  // the smallest contribution), first-seen order breaking ties: a key that
  // every policy misses alike (input read once) tells nothing apart.
  struct Key {
    std::string name;
    double lo = INFINITY, hi = -INFINITY;
  };
  std::vector<Key> keys;
  for (const json* r : at_size) {
    for (const json& row : r->at("breakdown").at("rows")) {
      const std::string k = row.at("key").get<std::string>();
      double v = Num(row, "byte_miss_contribution");
      if (!std::isfinite(v)) v = 0;
      auto it = std::find_if(keys.begin(), keys.end(), [&](const Key& e) { return e.name == k; });
      if (it == keys.end()) it = keys.insert(keys.end(), Key{k});
      it->lo = std::min(it->lo, v);
      it->hi = std::max(it->hi, v);
    }
  }
  std::stable_sort(keys.begin(), keys.end(),
                   [](const Key& a, const Key& b) { return a.hi - a.lo > b.hi - b.lo; });
  const size_t shown = std::min(keys.size(), keys.size() > kKeys ? kKeys - 1 : kKeys);
  BarChart c{"Where each policy's byte misses are, by " + by + " (" + SizeLabel(g.sizes[at]) + ")",
             "byte miss ratio (of bytes read), by " + by, {}};
  c.stacked = true;
  for (size_t k = 0; k < shown; ++k) c.series.push_back(keys[k].name);
  if (shown < keys.size()) c.series.push_back("other " + std::to_string(keys.size() - shown) + " keys");
  for (const json* r : at_size) {
    const std::string policy = r->at("policy").get<std::string>();
    c.groups.push_back(policy);
    std::vector<double> v(c.series.size(), 0);
    std::vector<std::string> tips(c.series.size());
    for (const json& row : r->at("breakdown").at("rows")) {
      const std::string k = row.at("key").get<std::string>();
      const auto it = std::find_if(keys.begin(), keys.begin() + static_cast<ptrdiff_t>(shown),
                                   [&](const Key& e) { return e.name == k; });
      const size_t i = static_cast<size_t>(it - keys.begin());
      const double x = Num(row, "byte_miss_contribution");
      if (std::isfinite(x)) v[i] += x;
    }
    for (size_t i = 0; i < v.size(); ++i) {
      tips[i] = fmt::format("{}: {} misses {:.4f} of all bytes read", policy, c.series[i], v[i]);
    }
    c.values.push_back(v);
    c.tips.push_back(tips);
  }
  return BarChartSvg(c);
}

}  // namespace

std::string CacheCurvesSvg(const json& doc, const std::string& title) {
  const json& results = doc.at("results");
  XYChart miss = Curves(results, "miss_ratio", title + ": miss ratio", "miss ratio (of read requests)");
  XYChart bytes = Curves(results, "byte_miss_ratio", title + ": byte miss ratio", "byte miss ratio (of bytes read)");
  const std::string left = XYChartSvg(miss), right = XYChartSvg(bytes);
  // Two charts side by side in one file: nested <svg> elements.
  auto height = [](const std::string& svg) {
    const size_t at = svg.find("height=\"");
    return at == std::string::npos ? 0.0 : std::atof(svg.c_str() + at + 8);
  };
  const double h = std::max(height(left), height(right));
  return fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{:.0f}\">\n", 2 * miss.width, h) +
         "<svg x=\"0\" y=\"0\"" + left.substr(4) + "<svg x=\"" + std::to_string(miss.width) + "\" y=\"0\"" +
         right.substr(4) + "</svg>\n";
}

Part RenderCacheSimulate(const json& doc) {
  const std::string trace = BaseName(doc.value("trace", std::string("trace")));
  Part part{System::kCache, "cache simulate: " + trace};
  const json& results = doc.at("results");
  const Grid g = GridOf(results, "cache_fraction", 100);
  part.html += ParagraphHtml(fmt::format(
      "{} reads of {} files ({} GB read, footprint {} GB) replayed through each policy at {} cache size{}.",
      doc.value("reads", 0), doc.value("objects", 0), CompactNumber(Num(doc, "read_bytes") / 1e9),
      CompactNumber(Num(doc, "footprint_bytes") / 1e9), g.sizes.size(), g.sizes.size() == 1 ? "" : "s"));
  part.html += FigureHtml(XYChartSvg(Curves(results, "byte_miss_ratio", "Byte miss ratio per policy",
                                            "byte miss ratio (of bytes read)")),
                          "Share of the bytes read that came from the remote store (lower is better). belady, where "
                          "present, is the offline optimum for object counts, not a bound on bytes.");
  part.html += FigureHtml(XYChartSvg(Curves(results, "miss_ratio", "Miss ratio per policy", "miss ratio (of reads)")),
                          "Share of whole-file reads that missed.");
  BarChart speed{"Modelled pipeline speed-up per policy", "speed-up over no cache (x)", g.policies};
  for (double s : g.sizes) speed.groups.push_back(SizeLabel(s));
  speed.values.assign(g.sizes.size(), std::vector<double>(g.policies.size(), NAN));
  std::vector<std::vector<std::string>> rows;
  for (const json& r : results) {
    const std::string p = r.at("policy").get<std::string>();
    const size_t i = SizeIndex(g, 100 * Num(r, "cache_fraction"));
    const size_t k = static_cast<size_t>(std::find(g.policies.begin(), g.policies.end(), p) - g.policies.begin());
    speed.values[i][k] = Num(r, "pipeline_speedup");
    rows.push_back({p, CompactNumber(g.sizes[i]) + "%", fmt::format("{:.4f}", Num(r, "miss_ratio")),
                    fmt::format("{:.4f}", Num(r, "byte_miss_ratio")), fmt::format("{:.3f}", Num(r, "pipeline_speedup"))});
  }
  speed.refs.push_back({true, 1.0, "no cache"});
  part.html += FigureHtml(BarChartSvg(speed), "The pipeline's throughput model: compute overlapped with remote I/O, "
                                              "at the trace's recorded rates.");
  part.html += TableHtml({"policy", "cache size", "miss ratio", "byte miss ratio", "pipeline speed-up"}, rows);
  if (!g.sizes.empty()) {
    const std::string bd = BreakdownSvg(results, g, g.sizes.size() / 2);
    if (!bd.empty()) {
      part.html += FigureHtml(bd, "cache simulate --breakdown: each bar is a policy's byte miss ratio, split by "
                                  "the keys whose reads missed; named are the keys on which the policies differ "
                                  "most, the rest (input every policy misses alike) is \"other\".");
    }
  }
  // Headline: smartcache against the best other online policy at the
  // smallest, middle and largest size (belady is offline).
  std::string line;
  std::vector<size_t> at;
  if (!g.sizes.empty()) at = {0, g.sizes.size() / 2, g.sizes.size() - 1};
  at.erase(std::unique(at.begin(), at.end()), at.end());
  for (size_t i : at) {
    double ours = NAN, best = INFINITY;
    std::string best_name;
    for (const json& r : results) {
      if (SizeIndex(g, 100 * Num(r, "cache_fraction")) != i) continue;
      const std::string p = r.at("policy").get<std::string>();
      const double b = Num(r, "byte_miss_ratio");
      if (p == "smartcache") ours = b;
      else if (p != "belady" && b < best) { best = b; best_name = p; }
    }
    if (!std::isfinite(ours) || best_name.empty()) continue;
    line += fmt::format("{} {}%: {:.3f} vs {:.3f} ({})", line.empty() ? "" : ";", CompactNumber(g.sizes[i]), ours,
                        best, best_name);
  }
  if (!line.empty()) {
    part.headlines.push_back("SmartCache: " + trace + ", byte miss ratio of smartcache vs the best other online "
                             "policy at" + line);
  }
  return part;
}

Part RenderPipelineBench(const json& doc) {
  Part part{System::kCache, fmt::format("mounted cache under a Dask pipeline ({} MB corpus)",
                                        CompactNumber(Num(doc, "corpus_mb")))};
  const json& cells = doc.at("cells");
  const Grid g = GridOf(cells, "size_pct", 1);
  BarChart speed{"Measured pipeline speed-up through `frugal cache mount`", "speed-up over no cache (x)", g.policies};
  for (double s : g.sizes) speed.groups.push_back(SizeLabel(s));
  speed.values.assign(g.sizes.size(), std::vector<double>(g.policies.size(), NAN));
  std::vector<std::vector<std::string>> rows;
  std::map<size_t, std::string> best;
  for (const json& c : cells) {
    const std::string p = c.at("policy").get<std::string>();
    const size_t i = SizeIndex(g, Num(c, "size_pct"));
    const size_t k = static_cast<size_t>(std::find(g.policies.begin(), g.policies.end(), p) - g.policies.begin());
    speed.values[i][k] = Num(c, "measured_speedup");
    rows.push_back({p, CompactNumber(g.sizes[i]) + "%", fmt::format("{:.1f}", Num(c, "wall_s")),
                    fmt::format("{:.3f}", Num(c, "measured_speedup")), fmt::format("{:.3f}", Num(c, "simulated_speedup")),
                    CompactNumber(Num(c, "bytes_from_remote") / 1e6) + " MB"});
  }
  speed.refs.push_back({true, 1.0, "no cache"});
  const json none = doc.contains("none_s") ? doc.at("none_s") : json::object();
  part.html += ParagraphHtml(fmt::format(
      "A Dask pipeline reading through the mounted cache; remote store emulated at {} MB/s with {} ms per request; "
      "no cache: {} s. Measured on {}.",
      CompactNumber(Num(doc, "remote_mb_per_s")), CompactNumber(Num(doc, "remote_latency_ms")),
      CompactNumber(Num(none, "first"), 4), doc.value("machine", std::string("this machine"))));
  part.html += FigureHtml(BarChartSvg(speed), "Wall-clock speed-up of the whole pipeline over running it with no cache.");
  part.html += TableHtml({"policy", "cache size", "wall s", "measured speed-up", "simulated speed-up", "read from remote"},
                         rows);
  if (!g.sizes.empty()) {
    std::string line = fmt::format("SmartCache mounted: measured speed-up at {}% cache:", CompactNumber(g.sizes.back()));
    for (size_t k = 0; k < g.policies.size(); ++k) {
      line += fmt::format(" {} {:.2f}x", g.policies[k], speed.values.back()[k]);
    }
    part.headlines.push_back(line);
  }
  return part;
}

}  // namespace frugal::report
