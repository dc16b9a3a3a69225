// G-Share's parts: `share frag` (FGD's figure: unallocated GPUs against the
// arrived workload, per placement policy) and `share simulate` (GPUs in use
// over time, GPU-hours and SLO attainment per service, per sharing policy).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "frugal/report/parts.h"
#include "frugal/report/svg.h"

namespace frugal::report {
namespace {

using nlohmann::json;

std::vector<double> Numbers(const json& j, const char* key) {
  std::vector<double> v;
  if (!j.contains(key)) return v;
  for (const json& x : j.at(key)) v.push_back(x.is_number() ? x.get<double>() : NAN);
  return v;
}

// The value of ys where xs is closest to x.
double At(const std::vector<double>& xs, const std::vector<double>& ys, double x) {
  size_t best = 0;
  for (size_t i = 0; i < xs.size() && i < ys.size(); ++i) {
    if (std::abs(xs[i] - x) < std::abs(xs[best] - x)) best = i;
  }
  return best < ys.size() ? ys[best] : NAN;
}

}  // namespace

Part RenderShareFrag(const json& doc) {
  Part part{System::kShare, fmt::format("share frag: {} nodes, {} GPUs", doc.value("num_nodes", 0),
                                        doc.value("cluster_gpus", 0))};
  const std::vector<double> arrived = Numbers(doc, "arrived_pct");
  XYChart unalloc{"Unallocated GPUs as the workload arrives (FGD's experiment)",
                  {"arrived workload (% of the cluster's GPU capacity)"}, {"unallocated GPUs (% of capacity)"}};
  XYChart frag{"Fragmented GPU capacity as the workload arrives", unalloc.x, {"fragmented GPUs (% of capacity)"}};
  std::vector<std::vector<std::string>> rows;
  const double at = std::find(arrived.begin(), arrived.end(), 100.0) != arrived.end() ? 100.0
                    : arrived.empty() ? 0 : arrived.back();
  std::string line = fmt::format("G-Share: unallocated GPUs at {:.0f}% arrived:", at);
  std::string decisions;
  for (const json& r : doc.at("results")) {
    const std::string policy = r.at("policy").get<std::string>();
    if (r.contains("decision") && r.at("decision").is_string()) {
      decisions += fmt::format(" {} chose the {}.", policy, r.at("decision").get<std::string>());
    }
    const std::vector<double> x = r.contains("arrived_pct") ? Numbers(r, "arrived_pct") : arrived;
    const std::vector<double> u = Numbers(r, "unallocated_gpu_pct"), f = Numbers(r, "frag_gpu_pct");
    unalloc.series.push_back({policy, x, u});
    frag.series.push_back({policy, x, f});
    const double u_at = At(x, u, at);
    rows.push_back({policy, fmt::format("{:.2f}", u_at), fmt::format("{:.2f}", At(x, f, at)),
                    fmt::format("{:.0f}", Num(r, "failed_pods"))});
    line += fmt::format(" {} {:.2f}%", policy, u_at);
  }
  const size_t seeds = doc.contains("seeds") ? doc.at("seeds").size() : 0;
  part.html += ParagraphHtml(fmt::format(
      "{} pods of the trace arrive in random order ({} seed{}) until the cluster is full; the cluster's {} GPUs on {} "
      "nodes. Lower is better: capacity left unallocated is capacity no pod could use.{}",
      doc.value("trace_pods", 0), seeds, seeds == 1 ? "" : "s", doc.value("cluster_gpus", 0), doc.value("num_nodes", 0),
      decisions));
  part.html += FigureHtml(XYChartSvg(unalloc), "Median over seeds. FGD's paper plots the same quantity for the same trace.");
  part.html += FigureHtml(XYChartSvg(frag), "GPU capacity that the typical pods could not use, by FGD's definition.");
  part.html += TableHtml({"policy", fmt::format("unallocated % at {:.0f}%", at), fmt::format("fragmented % at {:.0f}%", at),
                          "failed pods (median)"}, rows);
  part.headlines.push_back(line);
  return part;
}

Part RenderShareSimulate(const json& doc) {
  Part part{System::kShare, "share simulate: " + doc.value("workload", std::string("workload"))};
  XYChart gpus{"GPUs in use over time", {"time (h)"}, {"GPUs in use (hourly mean)"}};
  BarChart hours{"GPU-hours per policy", "GPU-hours"};
  BarChart slo{"SLO attainment per service: p99 latency as % of its SLO", "p99 latency / SLO p99 (%)"};
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> services;
  const json& results = doc.at("results");
  for (const json& r : results) {
    for (const json& s : r.at("services")) {
      const std::string name = s.at("name").get<std::string>();
      if (std::find(services.begin(), services.end(), name) == services.end()) services.push_back(name);
    }
  }
  slo.groups = services;
  slo.values.assign(services.size(), std::vector<double>(results.size(), NAN));
  slo.tips.assign(services.size(), std::vector<std::string>(results.size()));
  double exclusive_hours = NAN;
  const json* gshare = nullptr;
  for (size_t k = 0; k < results.size(); ++k) {
    const json& r = results[k];
    const std::string policy = r.at("policy").get<std::string>();
    if (policy == "exclusive") exclusive_hours = Num(r, "gpu_hours");
    if (policy == "gshare") gshare = &r;
    Series s{policy};
    s.points = false;
    const std::vector<double> by_hour = Numbers(r, "gpus_by_hour");
    for (size_t h = 0; h < by_hour.size(); ++h) {
      s.x.push_back(static_cast<double>(h));
      s.y.push_back(by_hour[h]);
    }
    gpus.series.push_back(s);
    hours.groups.push_back(policy);
    hours.values.push_back({Num(r, "gpu_hours")});
    slo.series.push_back(policy);
    for (const json& sv : r.at("services")) {
      const size_t i = static_cast<size_t>(
          std::find(services.begin(), services.end(), sv.at("name").get<std::string>()) - services.begin());
      const double p99 = Num(sv, "p99_ms"), target = Num(sv, "slo_p99_ms");
      slo.values[i][k] = 100 * p99 / target;
      slo.tips[i][k] = fmt::format("{} under {}: p99 {} ms, SLO {} ms, {:.3f}% of requests over the SLO",
                                   services[i], policy, CompactNumber(p99, 4), CompactNumber(target, 4),
                                   Num(sv, "over_slo_pct"));
    }
    rows.push_back({policy, fmt::format("{:.1f}", Num(r, "gpu_hours")),
                    fmt::format("{:.1f}", Num(r, "gpu_hours_saved_vs_exclusive_pct")),
                    fmt::format("{:.0f}", Num(r, "peak_gpus")), fmt::format("{:.3f}", Num(r, "over_slo_pct")),
                    fmt::format("{:.3f}", Num(r, "mean_training_speed")), fmt::format("{}", r.value("migrations", 0)),
                    fmt::format("{}", r.contains("unschedulable") ? r.at("unschedulable").size() : 0)});
  }
  slo.refs.push_back({true, 100, "SLO"});
  if (std::isfinite(exclusive_hours)) hours.refs.push_back({true, exclusive_hours, "exclusive"});
  part.html += ParagraphHtml(fmt::format(
      "{} inference services and {} training jobs on {} GPUs; a training job must keep {:.0f}% of its exclusive speed.",
      doc.value("services", 0), doc.value("training_jobs", 0), doc.value("gpu", std::string()),
      100 * Num(doc, "min_training_speed")));
  part.html += FigureHtml(XYChartSvg(gpus), "GPUs each sharing policy keeps busy, hour by hour.");
  part.html += FigureHtml(BarChartSvg(hours), "GPU-hours for the whole workload (fewer is better).");
  part.html += FigureHtml(BarChartSvg(slo), "A bar past the 100% line is a service whose p99 latency broke its SLO. "
                                            "Hover for the share of requests over the SLO.");
  part.html += TableHtml({"policy", "GPU-hours", "saved vs exclusive %", "peak GPUs", "requests over SLO %",
                          "mean training speed", "migrations", "unschedulable"}, rows);
  if (gshare != nullptr) {
    part.headlines.push_back(fmt::format(
        "G-Share: {}: gshare {:.0f} GPU-hours, {:.1f}% fewer than exclusive GPUs, {:.3f}% of requests over SLO",
        doc.value("workload", std::string()), Num(*gshare, "gpu_hours"),
        std::isfinite(exclusive_hours) ? 100 * (1 - Num(*gshare, "gpu_hours") / exclusive_hours) : NAN,
        Num(*gshare, "over_slo_pct")));
  }
  return part;
}

}  // namespace frugal::report
