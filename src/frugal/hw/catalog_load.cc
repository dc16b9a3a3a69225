#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "frugal/base/file_io.h"
#include "frugal/hw/catalog.h"
#include "frugal/hw/catalog_json.h"

namespace frugal {
namespace {

namespace fs = std::filesystem;

Status AppendFile(const std::string& path, CatalogData* data) {
  FRUGAL_ASSIGN_OR_RETURN(nlohmann::json doc, ReadJsonFile(path));
  return AppendCatalogJson(doc, path, data);
}

}  // namespace

Result<Catalog> LoadCatalog(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    return NotFound(path + ": no such catalog file or directory");
  }
  CatalogData data;
  if (fs::is_directory(path, ec)) {
    std::string gpus = (fs::path(path) / "gpus.json").string();
    std::string instances = (fs::path(path) / "instances.json").string();
    FRUGAL_RETURN_IF_ERROR(AppendFile(gpus, &data));
    if (fs::exists(instances, ec)) {
      FRUGAL_RETURN_IF_ERROR(AppendFile(instances, &data));
    }
  } else {
    FRUGAL_RETURN_IF_ERROR(AppendFile(path, &data));
  }
  return Catalog::Build(std::move(data));
}

std::string DefaultCatalogPath() {
  if (const char* p = std::getenv("FRUGAL_CATALOG"); p != nullptr && *p) {
    return p;
  }
  if (const char* d = std::getenv("FRUGAL_DATA_DIR"); d != nullptr && *d) {
    return (fs::path(d) / "catalog").string();
  }
  return std::string(FRUGAL_SOURCE_ROOT) + "/data/catalog";
}

}  // namespace frugal
