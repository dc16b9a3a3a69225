// Placeholder until the cache module lands.
#include "verbs.h"
namespace frugal::cli {
void SetupCache(CLI::App& sub, int* exit_code) { (void)sub; (void)exit_code; }
}  // namespace frugal::cli
