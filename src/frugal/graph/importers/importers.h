// The importer entry points registered in importer.cc. Internal to the graph
// module: other modules call ImportGraph().
#ifndef FRUGAL_GRAPH_IMPORTERS_IMPORTERS_H_
#define FRUGAL_GRAPH_IMPORTERS_IMPORTERS_H_

#include <string>
#include <string_view>

#include "frugal/graph/importer.h"

namespace frugal::importers {

bool DetectOnnx(const std::string& path, std::string_view contents);
Result<OpGraph> ImportOnnx(const std::string& path, std::string_view contents,
                           const ImportOptions& options);

bool DetectHfConfig(const std::string& path, std::string_view contents);
Result<OpGraph> ImportHfConfig(const std::string& path,
                               std::string_view contents,
                               const ImportOptions& options);

bool DetectPartitionJson(const std::string& path, std::string_view contents);
Result<OpGraph> ImportPartitionJson(const std::string& path,
                                    std::string_view contents,
                                    const ImportOptions& options);

bool DetectFrugalJson(const std::string& path, std::string_view contents);
Result<OpGraph> ImportFrugalJson(const std::string& path,
                                 std::string_view contents,
                                 const ImportOptions& options);

}  // namespace frugal::importers

#endif  // FRUGAL_GRAPH_IMPORTERS_IMPORTERS_H_
