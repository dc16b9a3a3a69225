#include "verbs.h"
namespace frugal::cli {
void SetupGraph(CLI::App& sub, int* exit_code) { (void)sub; (void)exit_code; }
}
