// Pesto's parts: `place --json` (every method against the lower bound) and
// `place --trace` (a Gantt chart of the chosen schedule, per GPU and link).
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "frugal/report/parts.h"
#include "frugal/report/svg.h"

namespace frugal::report {
namespace {

using nlohmann::json;

}  // namespace

Part RenderPlace(const json& doc) {
  const std::string graph = doc.value("graph", std::string("graph"));
  const int gpus = doc.value("gpus", 0);
  Part part{System::kPesto, fmt::format("place: {} on {} GPUs", graph, gpus)};
  const double bound = Num(doc, "lower_bound_ms");
  BarChart bars{"Step time of each placement method", "makespan (ms)", {"makespan"}};
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> infeasible;
  const std::string best = doc.value("best", std::string());
  double best_ms = NAN, best_other_ms = INFINITY;
  std::string best_other;
  for (const json& m : doc.at("methods")) {
    const std::string name = m.at("name").get<std::string>();
    const double ms = Num(m, "makespan_ms");
    const std::string status = m.value("status", std::string());
    bars.groups.push_back(name == best ? name + " (best)" : name);
    bars.values.push_back({ms});
    bars.tips.push_back({std::isfinite(ms) ? fmt::format("{}: {} ms, {:.2f}x the lower bound", name,
                                                         CompactNumber(ms, 5), ms / bound)
                                           : name + ": " + status});
    if (!std::isfinite(ms)) infeasible.push_back(name + " (" + status + ")");
    if (name == best) best_ms = ms;
    else if (ms < best_other_ms) { best_other_ms = ms; best_other = name; }
    rows.push_back({name, std::isfinite(ms) ? fmt::format("{:.1f}", ms) : "-",
                    std::isfinite(ms) && bound > 0 ? fmt::format("{:.3f}", ms / bound) : "-",
                    fmt::format("{:.2f}", Num(m, "seconds")), status, m.value("note", std::string())});
  }
  if (std::isfinite(bound)) bars.refs.push_back({true, bound, fmt::format("lower bound {} ms", CompactNumber(bound, 4))});
  part.html += ParagraphHtml(fmt::format(
      "{} step of {} ({} ops, {} colocation groups) on {} GPUs over {}, {} GB of model state and activations in all "
      "and {} GB per GPU.",
      doc.value("mode", std::string("training")), graph, doc.value("ops", 0), doc.value("colocation_groups", 0), gpus,
      doc.value("topology", std::string()), CompactNumber(Num(doc, "memory_bytes") / 1e9),
      CompactNumber(Num(doc, "device_mem_bytes") / 1e9)));
  part.html += FigureHtml(BarChartSvg(bars),
                          "Makespan of one step per method (shorter is better); the dashed line is the lower bound "
                          "no placement can beat." + (infeasible.empty() ? "" : " No bar: " + [&] {
                            std::string s;
                            for (const auto& i : infeasible) s += (s.empty() ? "" : "; ") + i;
                            return s;
                          }()));
  part.html += TableHtml({"method", "makespan ms", "vs lower bound", "seconds", "status", "note"}, rows);
  std::string line = fmt::format("Pesto: {} on {} GPUs: {} {} ms", graph, gpus, best, CompactNumber(best_ms, 4));
  if (std::isfinite(best_other_ms)) {
    line += fmt::format(", {:.2f}x faster than {} ({} ms)", best_other_ms / best_ms, best_other,
                        CompactNumber(best_other_ms, 4));
  }
  if (std::isfinite(bound)) line += fmt::format("; lower bound {} ms", CompactNumber(bound, 4));
  if (!infeasible.empty()) line += "; " + infeasible.front();
  part.headlines.push_back(line);
  return part;
}

Part RenderSchedule(const json& doc) {
  Part part{System::kPesto, "schedule (Chrome trace)"};
  const json& events = doc.at("traceEvents");
  std::map<std::pair<int, int>, std::string> thread_names;
  std::map<int, std::string> process_names;
  for (const json& e : events) {
    if (e.value("ph", std::string()) != "M") continue;
    const std::string what = e.value("name", std::string());
    const std::string name = e.contains("args") ? e.at("args").value("name", std::string()) : "";
    if (what == "thread_name") thread_names[{e.value("pid", 0), e.value("tid", 0)}] = name;
    if (what == "process_name") process_names[e.value("pid", 0)] = name;
  }
  Gantt g{"Schedule of one step: ops per GPU, transfers per link", "time (ms)"};
  std::map<std::pair<int, int>, int> row_of;
  std::map<std::string, int> kind_of;
  std::map<int, double> busy;
  double end = 0;
  int ops = 0;
  std::vector<std::pair<std::pair<int, int>, GanttBar>> pending;
  for (const json& e : events) {
    if (e.value("ph", std::string()) != "X") continue;
    const std::pair<int, int> key{e.value("pid", 0), e.value("tid", 0)};
    const json args = e.contains("args") && e.at("args").is_object() ? e.at("args") : json::object();
    std::string kind = args.value("phase", e.value("cat", std::string("op")));
    kind_of.emplace(kind, static_cast<int>(kind_of.size()));
    const double start = Num(e, "ts") / 1e3, dur = Num(e, "dur") / 1e3;
    if (!std::isfinite(start) || !std::isfinite(dur) || dur < 0) continue;
    std::string tip = fmt::format("{} ({}): {:.3f}-{:.3f} ms", e.value("name", std::string()), kind, start, start + dur);
    if (args.contains("module") && args.at("module").is_string()) tip += ", module " + args.at("module").get<std::string>();
    pending.push_back({key, GanttBar{0, start, start + dur, kind_of[kind], tip}});
    end = std::max(end, start + dur);
    if (dur > 0 && kind != "transfer") { busy[key.second] += dur; ++ops; }
  }
  // Rows: every named thread of the first process (the GPUs), then the other
  // threads that carry at least one slice, in (process, thread) order.
  std::map<std::pair<int, int>, bool> used;
  for (const auto& [key, bar] : pending) if (bar.end > bar.start) used[key] = true;
  std::vector<std::pair<int, int>> keys;
  for (const auto& [key, name] : thread_names) if (key.first == 0 || used.count(key)) keys.push_back(key);
  for (const auto& [key, u] : used) if (!thread_names.count(key)) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  for (const auto& key : keys) {
    row_of[key] = static_cast<int>(g.rows.size());
    auto it = thread_names.find(key);
    g.rows.push_back(it != thread_names.end() ? it->second : fmt::format("{} {}", key.first, key.second));
  }
  g.kinds.resize(kind_of.size());
  for (const auto& [k, i] : kind_of) g.kinds[static_cast<size_t>(i)] = k;
  for (auto& [key, bar] : pending) {
    bar.row = row_of.count(key) ? row_of[key] : -1;
    g.bars.push_back(bar);
  }
  g.width = 1100;
  std::vector<std::vector<std::string>> rows;
  double busiest = 0;
  for (const auto& key : keys) {
    if (key.first != 0 || end <= 0) continue;
    busiest = std::max(busiest, busy[key.second] / end);
    rows.push_back({g.rows[static_cast<size_t>(row_of[key])], fmt::format("{:.1f}", busy[key.second]),
                    fmt::format("{:.0f}%", 100 * busy[key.second] / end)});
  }
  part.html += ParagraphHtml(fmt::format("{} ops over {} rows, makespan {} ms. Hover a bar for the op, its module "
                                         "and times; slivers under a pixel are merged.",
                                         ops, g.rows.size(), CompactNumber(end, 5)));
  part.html += FigureHtml(GanttSvg(g), "Each row is a GPU or a link; bars are ops (coloured by pass) and transfers.");
  if (!rows.empty()) part.html += TableHtml({"GPU", "busy ms", "busy % of the step"}, rows);
  part.headlines.push_back(fmt::format("Pesto schedule: {} ops, makespan {} ms, busiest GPU {:.0f}% busy", ops,
                                       CompactNumber(end, 4), 100 * busiest));
  return part;
}

}  // namespace frugal::report
