// The frugal CLI's verbs. Each verb is one cmd_<verb>.cc that defines a
// Setup function; main.cc lists them in one table. A Setup function adds its
// options to the subcommand and installs a callback that stores the exit
// code (0 ok, 1 error; CLI11 reports usage errors as 2).
#ifndef FRUGAL_TOOLS_FRUGAL_VERBS_H_
#define FRUGAL_TOOLS_FRUGAL_VERBS_H_

#include <CLI/CLI.hpp>

namespace frugal::cli {

using VerbSetup = void (*)(CLI::App& sub, int* exit_code);

void SetupGraph(CLI::App& sub, int* exit_code);
void SetupCatalog(CLI::App& sub, int* exit_code);
void SetupPerf(CLI::App& sub, int* exit_code);
// `perf score`, added by SetupPerf (cmd_perf_score.cc).
void AddPerfScore(CLI::App& perf, int* exit_code);
void SetupProfile(CLI::App& sub, int* exit_code);
void SetupPredict(CLI::App& sub, int* exit_code);
void SetupAdvise(CLI::App& sub, int* exit_code);
void SetupPlace(CLI::App& sub, int* exit_code);
void SetupCache(CLI::App& sub, int* exit_code);
// `cache mount` and `cache stats`, added by SetupCache (cmd_cache_mount.cc).
void AddCacheMount(CLI::App& cache, int* exit_code);
void SetupShare(CLI::App& sub, int* exit_code);
void SetupReport(CLI::App& sub, int* exit_code);
void SetupDemo(CLI::App& sub, int* exit_code);

}  // namespace frugal::cli

#endif  // FRUGAL_TOOLS_FRUGAL_VERBS_H_
