// `frugal share` (G-Share). cmd_share.cc adds the verb and calls one setup
// function per part; each part's subcommands live in cmd_share_<part>.cc.
#ifndef FRUGAL_TOOLS_FRUGAL_SHARE_VERBS_H_
#define FRUGAL_TOOLS_FRUGAL_SHARE_VERBS_H_

#include <string>

#include <CLI/CLI.hpp>

#include "frugal/share/node_trace.h"

namespace frugal::cli {

// The shared Alibaba GPU trace's folder ($FRUGAL_SHARED_DATA overrides
// the shared data folder).
std::string AlibabaTraceDir();
// Trace reading that also accepts the catalog's GPU names as models.
share::TraceReadOptions ShareTraceReadOptions();

// `share policies`, `share frag`: placement policies and FGD's experiment.
void SetupShareCluster(CLI::App& share, int* exit_code);
// `share interference fit|eval`: the co-location interference model.
void SetupShareInterference(CLI::App& share, int* exit_code);
// `share simulate`, `share plan`, `share workload`: SLO-aware sharing.
void SetupShareServing(CLI::App& share, int* exit_code);
// `share extender`: G-Share's placement as a Kubernetes scheduler extender.
void SetupShareExtender(CLI::App& share, int* exit_code);

}  // namespace frugal::cli

#endif  // FRUGAL_TOOLS_FRUGAL_SHARE_VERBS_H_
