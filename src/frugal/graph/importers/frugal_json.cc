// frugal graph JSON importer: the registry entry around GraphFromJson.
#include "frugal/base/file_io.h"
#include "frugal/graph/graph_json.h"
#include "frugal/graph/importers/importers.h"

namespace frugal::importers {

bool DetectFrugalJson(const std::string& path, std::string_view contents) {
  (void)path;
  std::string_view head = contents.substr(0, std::min<size_t>(contents.size(), 256));
  return head.find(kGraphFormatTag) != std::string_view::npos;
}

Result<OpGraph> ImportFrugalJson(const std::string& path,
                                 std::string_view contents,
                                 const ImportOptions&) {
  FRUGAL_ASSIGN_OR_RETURN(nlohmann::json doc, ParseJson(std::string(contents), path));
  return GraphFromJson(doc, path);
}

}  // namespace frugal::importers
