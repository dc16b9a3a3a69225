// frugal's own graph JSON: a lossless serialisation of OpGraph (write ->
// read gives an identical graph). Schema in docs/graph.md. Stateless.
#ifndef FRUGAL_GRAPH_GRAPH_JSON_H_
#define FRUGAL_GRAPH_GRAPH_JSON_H_

#include <string>

#include <nlohmann/json.hpp>

#include "frugal/base/status.h"
#include "frugal/graph/op_graph.h"

namespace frugal {

inline constexpr const char* kGraphFormatTag = "frugal-graph";
inline constexpr int kGraphFormatVersion = 1;

// Keys keep a fixed order ("format" first) so files are recognisable from
// their first bytes.
nlohmann::ordered_json GraphToJson(const OpGraph& g);
// `what` names the source in errors. Does not Validate().
Result<OpGraph> GraphFromJson(const nlohmann::json& j, const std::string& what);
Status WriteGraphJson(const OpGraph& g, const std::string& path);

}  // namespace frugal

#endif  // FRUGAL_GRAPH_GRAPH_JSON_H_
