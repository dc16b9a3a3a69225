// frugal: one binary, one table of verbs.
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "frugal/base/registry.h"
#include "verbs.h"

namespace frugal::cli {
namespace {

constexpr RegistryRow<VerbSetup> kVerbs[] = {
    {"graph", "Inspect and convert operator graphs (ONNX, HF config, JSON)",
     &SetupGraph},
    {"catalog", "List the GPU and cloud-instance catalog", &SetupCatalog},
    {"perf", "Per-op time models: list, train, eval, score, calibrate, query (Ceer)", &SetupPerf},
    {"predict", "Predict a model's iteration time on N GPUs (Ceer)", &SetupPredict},
    {"advise", "Choose the GPU, count and cloud instance for a job (Ceer)", &SetupAdvise},
    {"profile", "Measure op latencies on this machine's CPU or GPU (Ceer)", &SetupProfile},
    {"place", "Place and schedule a model's ops across GPUs (Pesto)", &SetupPlace},
    {"cache", "Simulate cache policies on pipeline I/O traces (SmartCache)", &SetupCache},
    {"share", "Share GPUs among training and inference jobs (G-Share)", &SetupShare},
    {"report", "Render verbs' --json output as one HTML page with charts", &SetupReport},
    {"demo", "All four systems on bundled data: a summary and an HTML report", &SetupDemo},
};

// Every --seed is an unsigned integer; CLI11 would wrap "-1" to 2^64 - 1.
void CheckSeeds(CLI::App* app) {
  for (CLI::Option* o : app->get_options()) {
    if (!o->check_lname("seed")) continue;
    o->check(CLI::Validator(
        [](std::string& v) {
          return !v.empty() && v[0] == '-' ? "must be an integer >= 0, got " + v : std::string();
        },
        ""));
  }
  for (CLI::App* sub : app->get_subcommands({})) CheckSeeds(sub);
}

// "frugal graph info" names no command of `graph`: say which word was not
// understood and what the choices are, instead of CLI11's "A subcommand is
// required". Returns "" when the error is not of that kind.
std::string UnknownCommand(CLI::App& app) {
  CLI::App* at = &app;
  std::string path = "frugal";
  for (;;) {
    std::vector<CLI::App*> parsed = at->get_subcommands();
    if (parsed.empty()) break;
    at = parsed.front();
    path += " " + at->get_name();
  }
  std::vector<std::string> left = at->remaining();
  if (left.empty() || at->get_subcommands({}).empty()) return "";
  std::string choices;
  for (const CLI::App* sub : at->get_subcommands({})) {
    choices += (choices.empty() ? "" : ", ") + sub->get_name();
  }
  return "frugal: error: " + path + ": unknown command '" + left.front() + "' (commands: " +
         choices + ")\n";
}

}  // namespace
}  // namespace frugal::cli

int main(int argc, char** argv) {
  CLI::App app{
      "frugal: cheaper deep-learning infrastructure.\n"
      "Predict op times, choose GPUs and instances, place models across GPUs,\n"
      "share GPUs between jobs, and cache pipeline files."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "frugal 0.1.0");
  int exit_code = 0;
  for (const auto& verb : frugal::cli::kVerbs) {
    CLI::App* sub = app.add_subcommand(verb.name, verb.help);
    verb.factory(*sub, &exit_code);
  }
  frugal::cli::CheckSeeds(&app);
  // Errors print one line: "frugal: error: ...". A value a check rejects
  // (`--gpus 0`) is a bad value, exit 1; other parse errors (unknown flag,
  // missing argument, text that is no number) are usage errors, exit 2.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("frugal: error: ") + e.what() + " (see --help)\n";
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ValidationError& e) {
    std::fprintf(stderr, "frugal: error: %s\n", e.what());
    return 1;
  } catch (const CLI::RequiredError& e) {
    if (std::string unknown = frugal::cli::UnknownCommand(app); !unknown.empty()) {
      std::fputs(unknown.c_str(), stderr);
      return 2;
    }
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  } catch (const std::bad_alloc&) {
    // Inputs are sized before they are loaded; this is the last line for
    // what slips past (a memory limit tighter than the estimates).
    std::fprintf(stderr, "frugal: error: out of memory\n");
    return 1;
  }
  return exit_code;
}
