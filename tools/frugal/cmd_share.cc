// frugal share: G-Share's subcommands, one setup function per part.
#include "share_verbs.h"
#include "verbs.h"

namespace frugal::cli {

void SetupShare(CLI::App& sub, int* exit_code) {
  sub.require_subcommand(1);
  SetupShareCluster(sub, exit_code);
  SetupShareInterference(sub, exit_code);
  SetupShareServing(sub, exit_code);
  SetupShareExtender(sub, exit_code);
}

}  // namespace frugal::cli
