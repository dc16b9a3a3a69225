// Ceer's parts: `advise` (time-cost scatter with the Pareto frontier, the
// recommendation and the naive rules), `predict` (where a step's time goes;
// prefill and decode of LLM generation) and `perf score` (error per op
// type, predicted against measured).
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "frugal/report/parts.h"
#include "frugal/report/svg.h"

namespace frugal::report {
namespace {

using nlohmann::json;

std::string ConfigLabel(const json& c) {
  const int n = c.value("instances", 1);
  return fmt::format("{}{} ({} x {})", n > 1 ? fmt::format("{} x ", n) : "", c.at("instance").get<std::string>(),
                     c.value("gpus", 0), c.value("gpu", std::string("?")));
}

std::string ConfigTip(const json& c) {
  return fmt::format("{}: {} h, {}; {}, {}", ConfigLabel(c), CompactNumber(Num(c, "hours")), Usd(Num(c, "cost_usd")),
                     c.value("precision", std::string()), c.value("plan", std::string()));
}

// What a predict result ran on: its instance, else "N x GPU".
std::string Where(const json& doc) {
  const std::string instance = doc.value("instance", std::string());
  return instance.empty() ? fmt::format("{} x {}", doc.value("gpus", 1), doc.value("gpu", std::string())) : instance;
}

Series Point(const std::string& name, const json& c, int style) {
  Series s{name, {Num(c, "hours")}, {Num(c, "cost_usd")}, {name + ": " + ConfigTip(c)}};
  s.line = false;
  s.point_radius = 7;
  s.style = style;
  return s;
}

}  // namespace

Part RenderAdvise(const json& doc) {
  Part part{System::kCeer, "advise: " + BaseName(doc.value("model", std::string("model")))};
  const json& configs = doc.at("configs");
  Series all{"every configuration priced"};
  all.line = false;
  all.muted = true;
  all.point_radius = 2.5;
  std::vector<std::pair<double, const json*>> frontier;
  for (const json& c : configs) {
    const double h = Num(c, "hours"), usd = Num(c, "cost_usd");
    if (!std::isfinite(h) || !std::isfinite(usd)) continue;
    all.x.push_back(h);
    all.y.push_back(usd);
    all.tips.push_back(ConfigTip(c));
    if (c.value("pareto", false)) frontier.emplace_back(h, &c);
  }
  std::sort(frontier.begin(), frontier.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  Series pareto{"Pareto frontier (no faster config is cheaper)"};
  pareto.style = 0;
  for (const auto& [h, c] : frontier) {
    pareto.x.push_back(h);
    pareto.y.push_back(Num(*c, "cost_usd"));
    pareto.tips.push_back(ConfigTip(*c));
  }
  XYChart chart{"Training time and cost of every configuration", {"training time (h)", true},
                {"cost (USD)", true}, {all, pareto}};
  const json& rec = doc.at("recommended");
  const json& newest = doc.at("newest_gpu_rule");
  const json& cheapest = doc.at("cheapest_instance_rule");
  if (!rec.is_null()) chart.series.push_back(Point("recommended", rec, 1));
  if (!newest.is_null()) chart.series.push_back(Point("rule: newest GPU", newest, 2));
  if (!cheapest.is_null()) chart.series.push_back(Point("rule: cheapest instance", cheapest, 3));
  const double deadline = Num(doc, "deadline_h"), budget = Num(doc, "budget_usd");
  if (std::isfinite(deadline)) chart.refs.push_back({true, deadline, fmt::format("deadline {} h", CompactNumber(deadline))});
  if (std::isfinite(budget)) chart.refs.push_back({false, budget, "budget " + Usd(budget)});

  const std::string what = doc.value("tokens", json()).is_number()
                               ? CompactNumber(Num(doc, "tokens")) + " tokens"
                               : fmt::format("{} epochs of {} samples", CompactNumber(Num(doc, "epochs")),
                                             CompactNumber(Num(doc, "samples")));
  part.html += ParagraphHtml(fmt::format("Training {} for {}; {} plans priced ({} configurations shown). {}.",
                                         BaseName(doc.value("model", std::string())), what,
                                         doc.value("plans_priced", 0), configs.size(),
                                         doc.value("reason", std::string())));
  part.html += FigureHtml(XYChartSvg(chart),
                          "Each grey point is a GPU type, count, instance and parallel plan; lower-left is better. "
                          "Hover a point for its plan.");
  std::vector<std::vector<std::string>> rows;
  const double rec_cost = rec.is_null() ? std::nan("") : Num(rec, "cost_usd");
  auto row = [&](const std::string& who, const json& c) {
    if (c.is_null()) return;
    const double usd = Num(c, "cost_usd"), h = Num(c, "hours");
    std::string verdict = std::isfinite(rec_cost) && rec_cost > 0 ? fmt::format("{:.2f}x", usd / rec_cost) : "-";
    if (std::isfinite(deadline) && h > deadline) verdict += ", misses the deadline";
    if (std::isfinite(budget) && usd > budget) verdict += ", over budget";
    rows.push_back({who, ConfigLabel(c), c.value("precision", std::string()), c.value("plan", std::string()),
                    fmt::format("{:.1f}", h), Usd(usd), verdict});
  };
  row("recommended", rec);
  row("rule: newest GPU", newest);
  row("rule: cheapest instance", cheapest);
  part.html += TableHtml({"choice", "configuration", "precision", "plan", "hours", "cost", "cost vs recommended"}, rows);
  if (!rec.is_null()) {
    std::string line = fmt::format("Ceer: {} -> {}, {:.1f} h, {}", BaseName(doc.value("model", std::string())),
                                   ConfigLabel(rec), Num(rec, "hours"), Usd(Num(rec, "cost_usd")));
    auto rule = [&](const char* name, const json& c) {
      if (c.is_null()) return;
      const double h = Num(c, "hours");
      line += std::isfinite(deadline) && h > deadline
                  ? fmt::format("; {} rule misses the deadline ({:.0f} h)", name, h)
                  : fmt::format("; {} rule {:.2f}x the cost", name, Num(c, "cost_usd") / rec_cost);
    };
    rule("newest-GPU", newest);
    rule("cheapest-instance", cheapest);
    part.headlines.push_back(line);
  } else {
    part.headlines.push_back("Ceer: " + doc.value("reason", std::string("no configuration meets the constraints")));
  }
  return part;
}

Part RenderPredict(const json& doc) {
  const std::string where = Where(doc);
  Part part{System::kCeer, fmt::format("predict: {} on {}", BaseName(doc.value("model", std::string("model"))), where)};
  // One stacked bar per pipeline stage (or the whole step).
  const std::vector<std::pair<const char*, const char*>> parts = {
      {"forward_ms", "forward"},   {"backward_ms", "backward"},  {"recompute_ms", "recompute"},
      {"optimizer_ms", "optimizer"}, {"tp_comm_ms", "tensor-parallel comm"}, {"p2p_ms", "pipeline p2p"},
      {"dp_comm_ms", "data-parallel comm"}};
  BarChart bars{"Where a step's time goes", "time (ms)"};
  for (const auto& p : parts) bars.series.push_back(p.second);
  const json& stages = doc.contains("stages") ? doc.at("stages") : json::array();
  for (size_t i = 0; i < stages.size(); ++i) {
    const json& st = stages[i];
    bars.groups.push_back(stages.size() == 1 ? "whole step"
                                             : fmt::format("stage {} (blocks {}-{})", i, st.value("first_block", 0),
                                                           st.value("last_block", 0)));
    std::vector<double> v;
    for (const auto& p : parts) v.push_back(Num(st, p.first));
    bars.values.push_back(v);
  }
  if (stages.empty()) {
    bars.groups.push_back("whole step");
    std::vector<double> v;
    for (const auto& p : parts) v.push_back(Num(doc, p.first));
    bars.values.push_back(v);
  }
  bars.stacked = true;
  const double iter = Num(doc, "iteration_ms"), bubble = Num(doc, "bubble_ms");
  if (std::isfinite(iter)) bars.refs.push_back({true, iter, fmt::format("step {} ms", CompactNumber(iter))});
  part.html += ParagraphHtml(fmt::format(
      "{} of batch {} per GPU{}, {}, on {}: {} ms per step{}; {} of memory per GPU.",
      doc.value("mode", std::string("training")), doc.value("batch_per_gpu", 0),
      Num(doc, "seq_len") > 0 ? fmt::format(" at sequence {}", doc.value("seq_len", 0)) : "",
      doc.value("precision", std::string()), where, CompactNumber(iter, 4),
      bubble > 0 ? fmt::format(" (pipeline bubble {} ms)", CompactNumber(bubble)) : "",
      CompactNumber(Num(doc, "memory_bytes") / 1e9) + " GB"));
  part.html += FigureHtml(BarChartSvg(bars), "Per pipeline stage: forward, backward, recomputation, optimizer and "
                                             "communication time; the dashed line is the predicted step time (communication that overlaps the "
                                             "backward pass reaches past it).");

  // Time by op kind, split by phase, heaviest kinds first.
  std::map<std::string, std::map<std::string, double>> by_kind;
  std::map<std::string, double> total;
  for (const json& op : doc.at("ops")) {
    const std::string kind = op.value("kind", std::string("?"));
    const double t = Num(op, "time_ms");
    if (!std::isfinite(t)) continue;
    by_kind[kind][op.value("phase", std::string("forward"))] += t;
    total[kind] += t;
  }
  std::vector<std::pair<double, std::string>> order;
  for (const auto& [k, t] : total) order.emplace_back(-t, k);
  std::sort(order.begin(), order.end());
  if (order.size() > 12) order.resize(12);
  BarChart kinds{"Heaviest op kinds", "time per step (ms)", {"forward", "backward", "optimizer"}};
  kinds.stacked = true;
  for (const auto& [neg, k] : order) {
    kinds.groups.push_back(k);
    kinds.values.push_back({by_kind[k]["forward"], by_kind[k]["backward"], by_kind[k]["optimizer"]});
  }
  if (!order.empty()) {
    part.html += FigureHtml(BarChartSvg(kinds), fmt::format("The {} op kinds that take the most time (sum over the "
                                                            "step's ops of one GPU), by pass.", order.size()));
  }
  part.headlines.push_back(fmt::format("Ceer: {} on {}: {} ms per step, {} GB per GPU",
                                       BaseName(doc.value("model", std::string())), where, CompactNumber(iter, 4),
                                       CompactNumber(Num(doc, "memory_bytes") / 1e9)));
  return part;
}

Part RenderGeneration(const json& doc) {
  const std::string where = Where(doc);
  const std::string model = BaseName(doc.value("model", std::string("model")));
  Part part{System::kCeer, fmt::format("predict (generation): {} on {}", model, where)};
  const double prefill = Num(doc, "prefill_ms"), decode = Num(doc, "decode_total_ms");
  BarChart split{"Where a request's time goes", "time (ms)", {"prefill (time to first token)", "decode"},
                 {"whole request"}, {{prefill, decode}}};
  split.stacked = true;
  XYChart per_token{"Per-token decode latency as the KV cache grows", {"tokens in the KV cache"},
                    {"decode step (ms)"}};
  per_token.y.min = 0;
  Series s{"decode step"};
  for (const json& p : doc.at("decode_samples")) {
    s.x.push_back(Num(p, "cache_len"));
    s.y.push_back(Num(p, "ms"));
  }
  per_token.series.push_back(s);
  part.html += ParagraphHtml(fmt::format(
      "Batch {} of {}-token prompts generating {} tokens each, {}, on {}: time to first token {} ms, {} ms per "
      "token on average, {} tokens/s; KV cache {} GB, {} GB per GPU in all{}; the largest batch that fits is {}.",
      doc.value("batch", 0), doc.value("prompt_len", 0), doc.value("generate_len", 0),
      doc.value("precision", std::string()), where, CompactNumber(prefill, 4), CompactNumber(Num(doc, "decode_mean_ms"), 4),
      CompactNumber(Num(doc, "tokens_per_s"), 4), CompactNumber(Num(doc, "kv_cache_bytes") / 1e9),
      CompactNumber(Num(doc, "memory_bytes") / 1e9), doc.value("fits", true) ? "" : " (does not fit)",
      doc.value("max_batch", 0)));
  part.html += FigureHtml(BarChartSvg(split), "Prefill of the prompts, then every decode step.");
  part.html += FigureHtml(XYChartSvg(per_token), "Each decode step reads the weights and the KV cache so far.");
  part.headlines.push_back(fmt::format("Ceer: {} on {}: first token in {} ms, then {} ms per token, {} tokens/s",
                                       model, where, CompactNumber(prefill, 4),
                                       CompactNumber(Num(doc, "decode_mean_ms"), 4),
                                       CompactNumber(Num(doc, "tokens_per_s"), 4)));
  return part;
}

Part RenderPerfScore(const json& doc) {
  Part part{System::kCeer, "perf score: " + doc.value("data", std::string("timings"))};
  BarChart bars{"Prediction error per op type (all GPUs)", "absolute percentage error (%)", {"median", "p90"}};
  std::vector<std::vector<std::string>> rows;
  std::string overall;
  for (const json& r : doc.at("rows")) {
    const std::string op = r.at("op").get<std::string>(), gpu = r.at("gpu").get<std::string>();
    rows.push_back({op, gpu, fmt::format("{}", r.value("n", 0)), fmt::format("{:.1f}", Num(r, "median_ape_pct")),
                    fmt::format("{:.1f}", Num(r, "p90_ape_pct")), fmt::format("{:+.1f}", Num(r, "median_bias_pct"))});
    if (gpu != "all") continue;
    if (op == "all") {
      overall = fmt::format("median {:.1f}% / p90 {:.1f}% over {} rows", Num(r, "median_ape_pct"),
                            Num(r, "p90_ape_pct"), r.value("n", 0));
      continue;
    }
    bars.groups.push_back(op);
    bars.values.push_back({Num(r, "median_ape_pct"), Num(r, "p90_ape_pct")});
  }
  part.html += ParagraphHtml(fmt::format("The {} model ({}) scored on measured op timings, no retraining{}.",
                                         doc.value("model", std::string()), BaseName(doc.value("perf_model", std::string())),
                                         overall.empty() ? "" : ": " + overall));
  if (!bars.groups.empty()) part.html += FigureHtml(BarChartSvg(bars), "Median and 90th-percentile error per op type.");

  // Predicted against measured: a series per op type (the 5 most common,
  // then "other"); the diagonal in black.
  const json& points = doc.contains("points") ? doc.at("points") : json::array();
  if (!points.empty()) {
    std::map<std::string, int> count;
    for (const json& p : points) ++count[p.value("op", std::string("?"))];
    std::vector<std::pair<int, std::string>> ops;
    for (const auto& [op, n] : count) ops.emplace_back(-n, op);
    std::sort(ops.begin(), ops.end());
    std::map<std::string, size_t> series_of;
    XYChart chart{"Predicted against measured op time", {"measured (ms)", true}, {"predicted (ms)", true}};
    for (const auto& [n, op] : ops) {
      const std::string name = series_of.size() < 5 ? op : "other";
      if (!series_of.count(name)) {
        Series s{name};
        s.line = false;
        s.point_radius = 2.5;
        chart.series.push_back(s);
        series_of[name] = chart.series.size() - 1;
      }
      series_of[op] = series_of[name];
    }
    double lo = INFINITY, hi = 0;
    for (const json& p : points) {
      Series& s = chart.series[series_of[p.value("op", std::string("?"))]];
      const double m = Num(p, "measured_ms"), pr = Num(p, "predicted_ms");
      s.x.push_back(m);
      s.y.push_back(pr);
      s.tips.push_back(fmt::format("{} on {}: measured {} ms, predicted {} ms", p.value("op", std::string()),
                                   p.value("gpu", std::string()), CompactNumber(m, 4), CompactNumber(pr, 4)));
      if (m > 0) { lo = std::min(lo, m); hi = std::max(hi, m); }
    }
    if (hi > 0) {
      Series diag{"predicted = measured", {lo, hi}, {lo, hi}};
      diag.points = false;
      diag.style = 6;
      chart.series.push_back(diag);
    }
    chart.height = 480;
    part.html += FigureHtml(XYChartSvg(chart), fmt::format("{} measured rows, evenly sampled; on the black line the "
                                                           "prediction is exact.", points.size()));
  }
  part.html += TableHtml({"op", "GPU", "rows", "median APE %", "p90 APE %", "median bias %"}, rows);
  if (!overall.empty()) part.headlines.push_back("Ceer: op-time error " + overall);
  return part;
}

}  // namespace frugal::report
