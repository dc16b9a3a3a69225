// `frugal profile`: measure op latencies on the local CPU or GPU and write
// them as timing CSVs (the shared schema), ready for `frugal perf train`.
#include <unistd.h>

#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli_util.h"
#include "frugal/perf/dataset.h"
#include "frugal/perf/profiler/profiler.h"
#include "verbs.h"

namespace frugal::cli {
namespace {

struct ProfileArgs {
  std::string backend = "cpu";
  std::string ops = "all";
  std::string shapes;  // timing CSV file or folder whose shapes to re-measure
  int64_t limit = 0;   // per op type; 0 = all
  int warmup = 2;
  int reps = 7;
  std::string out = "profile-out";
  bool json = false;
  bool list = false;
};

Result<std::vector<PerfOp>> ParseOps(const std::string& spec) {
  if (spec == "all") return AllPerfOps();
  std::vector<PerfOp> ops;
  std::stringstream ss(spec);
  std::string name;
  while (std::getline(ss, name, ',')) {
    PerfOp op;
    if (!ParsePerfOp(name, &op)) {
      return InvalidArgument("unknown op '" + name +
                             "' (expected all or a list of conv, linear, bmm, softmax, ln, "
                             "add, mul, div, pow, relu, gelu, tanh)");
    }
    ops.push_back(op);
  }
  return ops;
}

// Every k-th shape so that a limit still spans the whole range of sizes.
std::vector<OpShape> Thin(const std::vector<OpShape>& shapes, int64_t limit) {
  if (limit <= 0 || static_cast<int64_t>(shapes.size()) <= limit) return shapes;
  std::vector<OpShape> out;
  const double step = static_cast<double>(shapes.size()) / static_cast<double>(limit);
  for (int64_t i = 0; i < limit; ++i) {
    out.push_back(shapes[static_cast<size_t>(static_cast<double>(i) * step)]);
  }
  return out;
}

Result<std::vector<OpShape>> ShapesToMeasure(const ProfileArgs& a) {
  FRUGAL_ASSIGN_OR_RETURN(std::vector<PerfOp> ops, ParseOps(a.ops));
  std::map<PerfOp, std::vector<OpShape>> by_op;
  if (a.shapes.empty()) {
    for (PerfOp op : ops) by_op[op] = DefaultSweep(op);
  } else {
    FRUGAL_ASSIGN_OR_RETURN(Dataset data, LoadTimingData(a.shapes));
    for (const OpSample& s : data.samples) {
      for (PerfOp op : ops) {
        if (s.shape.op == op) by_op[op].push_back(s.shape);
      }
    }
  }
  std::vector<OpShape> all;
  for (const auto& [op, shapes] : by_op) {
    for (const OpShape& s : Thin(shapes, a.limit)) all.push_back(s);
  }
  if (all.empty()) return InvalidArgument("no shapes to measure for --op " + a.ops);
  return all;
}

int ListBackends() { return PrintRegistry(ProfileBackends(), false); }

int RunProfile(const ProfileArgs& a) {
  if (a.list) return ListBackends();
  const auto* row = FindRow(ProfileBackends(), a.backend);
  if (row == nullptr) {
    return ReportError(NotFound("unknown backend '" + a.backend + "' (expected " +
                                RowNames(ProfileBackends()) + ")"));
  }
  Result<std::vector<OpShape>> shapes = ShapesToMeasure(a);
  if (!shapes.ok()) return ReportError(shapes.status());
  auto backend = row->factory();
  if (!backend.ok()) return ReportError(backend.status().WithPrefix("backend " + a.backend));
  ProfileOptions opts;
  opts.warmup = a.warmup;
  opts.repetitions = a.reps;
  if (isatty(STDERR_FILENO)) {
    opts.progress = [](size_t done, size_t total) {
      std::fprintf(stderr, "\rprofiling %zu/%zu", done, total);
      if (done == total) std::fputc('\n', stderr);
    };
  }
  Result<ProfileResult> r = ProfileShapes(**backend, *shapes, opts);
  if (!r.ok()) return ReportError(r.status());
  Result<std::vector<std::string>> paths = WriteTimingCsvs(r->samples, a.out);
  if (!paths.ok()) return ReportError(paths.status());

  std::map<std::string, std::vector<double>> by_op;
  for (const OpSample& s : r->samples) by_op[PerfOpName(s.shape.op)].push_back(s.latency_ms);
  if (a.json) {
    nlohmann::json j{{"device", (*backend)->DeviceName()},
                     {"backend", a.backend},
                     {"files", *paths},
                     {"skipped", r->skipped}};
    j["ops"] = nlohmann::json::array();
    for (const auto& [op, ms] : by_op) {
      j["ops"].push_back({{"op", op}, {"shapes", ms.size()}, {"median_ms", Median(ms)}});
    }
    PrintJson(j);
    return 0;
  }
  std::fputs(fmt::format("device: {}\n{:<8} {:>7} {:>12}\n", (*backend)->DeviceName(), "OP",
                         "SHAPES", "MEDIAN_MS")
                 .c_str(),
             stdout);
  for (const auto& [op, ms] : by_op) {
    std::fputs(fmt::format("{:<8} {:>7} {:>12.4f}\n", op, ms.size(), Median(ms)).c_str(),
               stdout);
  }
  for (const std::string& s : r->skipped) std::fprintf(stderr, "skipped %s\n", s.c_str());
  for (const std::string& p : *paths) std::fprintf(stderr, "wrote %s\n", p.c_str());
  return 0;
}

}  // namespace

void SetupProfile(CLI::App& sub, int* exit_code) {
  auto a = std::make_shared<ProfileArgs>();
  sub.add_option("--backend", a->backend, "cpu or cuda (see --list)")->capture_default_str();
  sub.add_flag("--list", a->list, "List the profiler backends");
  sub.add_option("--op", a->ops, "Op types: all, or a comma list (conv,linear,bmm,...)")
      ->capture_default_str();
  sub.add_option("--shapes", a->shapes,
                 "Timing CSV file or folder whose shapes to re-measure (default: a "
                 "built-in sweep)");
  sub.add_option("--limit", a->limit, "At most N shapes per op type, evenly spaced (0 = all)")
      ->check(IntIn(0, 1000000000));
  sub.add_option("--warmup", a->warmup, "Untimed launches per shape")
      ->capture_default_str()
      ->check(IntIn(0, 100000));
  sub.add_option("--reps", a->reps, "Timed launches per shape; the median is kept")
      ->capture_default_str()
      ->check(IntIn(1, 100000));
  sub.add_option("--out", a->out, "Output folder: OUT/<op>/<device>.csv")
      ->capture_default_str();
  sub.add_flag("--json", a->json, "Machine-readable summary");
  sub.callback([a, exit_code] { *exit_code = RunProfile(*a); });
}

}  // namespace frugal::cli
