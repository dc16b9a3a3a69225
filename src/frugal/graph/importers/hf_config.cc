// Placeholder until the importer lands.
#include "frugal/graph/importers/importers.h"
namespace frugal::importers {
bool DetectHfConfig(const std::string& path, std::string_view) { return false && path.empty(); }
Result<OpGraph> ImportHfConfig(const std::string& path, std::string_view, const ImportOptions&) { return Unimplemented(path + ": HF import"); }
}
