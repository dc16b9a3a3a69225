// `frugal demo`: all four systems end to end on the bundled models and the
// shared data. Runs this binary's own verbs with --json (up to --jobs at a
// time; progress on stderr), keeps their output in DIR/results/, renders
// DIR/index.html with `frugal report`'s renderer and prints the headlines.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "cli_util.h"
#include "frugal/base/file_io.h"
#include "frugal/report/report.h"
#include "verbs.h"

extern char** environ;

namespace frugal::cli {
namespace {

namespace fs = std::filesystem;

struct DemoArgs {
  std::string out = "frugal-report";
  int jobs = 0;  // 0: min(4, cores)
  bool json = false;
};

struct Step {
  std::string name;   // results/NAME.json
  std::string title;  // progress line
  std::vector<std::string> args;
  std::string needs;          // a file the step reads; absent: skipped
};

std::string Root(const std::string& rel) { return std::string(FRUGAL_SOURCE_ROOT) + "/" + rel; }

std::vector<Step> Steps(const std::string& dir) {
  const std::string text = dir + "/text.frt";
  const std::string recorded = Root("testdata/cache/recorded/dask_pipeline_100mb.frt");
  const std::string cache_policies = "lru,s3fifo,glcache,smartcache,belady";
  return {
      {"ceer_advise_resnet50", "Ceer: cheapest way to train ResNet-50 on ImageNet (90 epochs) in 24 h",
       {"advise", Root("models/resnet50.onnx"), "--batch", "64", "--samples", "1281167", "--epochs", "90",
        "--deadline", "24", "--json"}, ""},
      {"ceer_advise_llama2_7b", "Ceer: cheapest AWS plan to pre-train Llama-2-7B on 2T tokens in 30 days",
       {"advise", Root("models/hf/llama2_7b.json"), "--batch", "1", "--seq", "4096", "--tokens", "2e12",
        "--global-batch", "1024", "--precision", "amp-bf16", "--providers", "aws", "--max-instances", "32",
        "--deadline", "720", "--json"}, ""},
      {"ceer_predict_gpt2_large", "Ceer: where a GPT-2 large training step goes on 8 V100s (p3.16xlarge)",
       {"predict", Root("models/hf/gpt2_large.json"), "--instance", "p3.16xlarge", "--batch", "1", "--seq", "1024",
        "--json"}, ""},
      {"ceer_perf_score", "Ceer: op-time error on measured timings of 5 GPUs",
       {"perf", "score", "--data", SharedDataDir() + "/perf/neusight-op-timings-test", "--json"},
       SharedDataDir() + "/perf/neusight-op-timings-test"},
      {"pesto_place_gpt2_large", "Pesto: GPT-2 large training (48 GB) across 4 V100-16GB, every method",
       {"place", Root("models/hf/gpt2_large.json"), "--train", "--gpu", "V100-SXM2-16GB", "--gpus", "4", "--seq",
        "1024", "--batch", "4", "--microbatches", "4", "--time-limit", "10", "--trace",
        dir + "/pesto_schedule_gpt2_large.json", "--json"}, ""},
      {"gshare_frag_alibaba", "G-Share: FGD's experiment on Alibaba's GPU-sharing trace (2 seeds, 7 policies)",
       {"share", "frag", "--policy", "all", "--seeds", "42-43", "--json"}, ""},
      {"gshare_simulate_mixed", "G-Share: a day of inference services and training jobs sharing A100s",
       {"share", "simulate", "--workload", "mixed", "--seed", "1", "--gpu", "A100-SXM4-80GB", "--policy", "all",
        "--json"}, ""},
      {"smartcache_simulate_text", "SmartCache: a generated text-tokenisation pipeline trace, 6 cache sizes",
       {"cache", "simulate", text, "--policy", cache_policies, "--size", "0.5%,1%,2%,5%,10%,20%", "--breakdown",
        "pattern,day", "--json"},
       text},
      {"smartcache_simulate_dask", "SmartCache: the I/O trace recorded under a real Dask pipeline",
       {"cache", "simulate", recorded, "--policy", cache_policies, "--size", "1%,2%,5%,10%,20%,50%", "--breakdown",
        "pattern", "--json"},
       recorded},
  };
}

// Starts `self args` with stdout and stderr redirected; returns its pid.
Result<pid_t> Start(const std::string& self, const std::vector<std::string>& args, const std::string& out,
                    const std::string& log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> argv{const_cast<char*>(self.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, self.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return Internal(fmt::format("demo: cannot start {}: {}", self, std::strerror(rc)));
  return pid;
}

// The last non-empty line of a log file.
std::string LastLine(const std::string& path) {
  Result<std::string> text = ReadFileToString(path, 1 << 20);
  if (!text.ok()) return "";
  std::string s = *text;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  const size_t nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

int RunDemo(const DemoArgs& a) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const std::string dir = (fs::path(a.out) / "results").string();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    return ReportError(InvalidArgument(fmt::format("{}: cannot create the output directory", dir)));
  }
  const std::string self = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec) return ReportError(Internal("demo: cannot find this program's path (/proc/self/exe)"));

  // The one input a step makes for another: the generated pipeline trace.
  const std::string text = dir + "/text.frt";
  {
    Result<pid_t> pid = Start(self, {"cache", "gen", "--preset", "text", "-o", text}, dir + "/text_gen.out",
                              dir + "/text_gen.log");
    int status = 0;
    if (pid.ok()) waitpid(*pid, &status, 0);
    if (!pid.ok() || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fmt::print(stderr, "demo: generating the pipeline trace failed: {}\n", LastLine(dir + "/text_gen.log"));
    }
  }
  const std::vector<Step> steps = Steps(dir);
  const int jobs = a.jobs > 0 ? a.jobs
                              : static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 4u));
  struct Running {
    size_t step;
    Clock::time_point start;
  };
  std::map<pid_t, Running> running;
  std::vector<int> outcome(steps.size(), -1);  // 0 ok, 1 failed, 2 skipped
  std::vector<std::string> results;
  size_t next = 0, done = 0;
  int failed = 0;
  nlohmann::json step_json = nlohmann::json::array();
  auto progress = [&](size_t i, const std::string& what) {
    fmt::print(stderr, "[{}/{}] {}: {}\n", ++done, steps.size(), steps[i].title, what);
  };
  while (done < steps.size()) {
    while (next < steps.size() && static_cast<int>(running.size()) < jobs) {
      const Step& s = steps[next];
      if (!s.needs.empty() && !fs::exists(s.needs)) {
        outcome[next] = 2;
        progress(next, "skipped, " + s.needs + " is missing");
        ++next;
        continue;
      }
      Result<pid_t> pid = Start(self, s.args, dir + "/" + s.name + ".json", dir + "/" + s.name + ".log");
      if (!pid.ok()) return ReportError(pid.status());
      running[*pid] = {next, Clock::now()};
      ++next;
    }
    if (running.empty()) continue;
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const size_t i = it->second.step;
    const double secs = std::chrono::duration<double>(Clock::now() - it->second.start).count();
    running.erase(it);
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    outcome[i] = ok ? 0 : 1;
    if (!ok) ++failed;
    progress(i, ok ? fmt::format("done in {:.1f} s", secs)
                   : fmt::format("FAILED ({})", LastLine(dir + "/" + steps[i].name + ".log")));
    step_json.push_back({{"step", steps[i].name}, {"ok", ok}, {"seconds", secs}});
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    if (outcome[i] != 0) continue;
    results.push_back(dir + "/" + steps[i].name + ".json");
    if (steps[i].name == "pesto_place_gpt2_large") results.push_back(dir + "/pesto_schedule_gpt2_large.json");
  }
  const std::string pipeline = Root("bench/results/pipeline.json");
  if (fs::exists(pipeline)) results.push_back(pipeline);

  Result<report::Report> r = report::BuildReport(results);
  if (!r.ok()) return ReportError(r.status());
  Result<std::string> path = report::WriteReport(*r, a.out);
  if (!path.ok()) return ReportError(path.status());
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  if (a.json) {
    PrintJson({{"report", *path}, {"results", results}, {"steps", step_json}, {"failed", failed},
               {"headlines", r->headlines}, {"seconds", secs}});
  } else {
    fmt::print("frugal demo: four systems on bundled models and the shared data ({:.0f} s)\n\n", secs);
    for (const auto& line : r->headlines) fmt::print("  {}\n", line);
    fmt::print("\nreport: {}  (results and logs in {})\n", *path, dir);
  }
  if (failed > 0) {
    return ReportError(Internal(fmt::format("demo: {} of {} steps failed; their logs are in {}", failed,
                                            steps.size(), dir)));
  }
  return 0;
}

}  // namespace

void SetupDemo(CLI::App& sub, int* exit_code) {
  auto a = std::make_shared<DemoArgs>();
  sub.add_option("--out", a->out, "Directory for index.html and results/ (created if missing)")
      ->capture_default_str();
  sub.add_option("--jobs", a->jobs, "Steps run at a time (default: min(4, cores))")->check(IntIn(1, 64));
  sub.add_flag("--json", a->json, "Print the report's path, the steps and the headlines as JSON");
  sub.callback([a, exit_code] { *exit_code = RunDemo(*a); });
}

}  // namespace frugal::cli
