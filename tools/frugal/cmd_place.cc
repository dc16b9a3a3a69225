// Placeholder until the place module lands.
#include "verbs.h"
namespace frugal::cli {
void SetupPlace(CLI::App& sub, int* exit_code) { (void)sub; (void)exit_code; }
}  // namespace frugal::cli
