// Placeholder until the importer lands.
#include "frugal/graph/importers/importers.h"
namespace frugal::importers {
bool DetectOnnx(const std::string& path, std::string_view) { return false && path.empty(); }
Result<OpGraph> ImportOnnx(const std::string& path, std::string_view, const ImportOptions&) { return Unimplemented(path + ": ONNX import"); }
}
