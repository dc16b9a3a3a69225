// One registry table per plug-in kind (importers, op-time models, placers,
// policies, CLI verbs). A table is a constant array of RegistryRow; lookups
// are linear because tables are short. Thread-safe (read-only data).
#ifndef FRUGAL_BASE_REGISTRY_H_
#define FRUGAL_BASE_REGISTRY_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace frugal {

template <typename Factory>
struct RegistryRow {
  const char* name;  // what users type: "onnx", "lru"
  const char* help;  // one line for `frugal <area> list`
  Factory factory;
};

// Returns the row named `name`, or nullptr.
template <typename Factory>
const RegistryRow<Factory>* FindRow(std::span<const RegistryRow<Factory>> table,
                                    std::string_view name) {
  for (const auto& row : table) {
    if (name == row.name) return &row;
  }
  return nullptr;
}

// "a, b, c" — for error messages that list the valid names.
template <typename Factory>
std::string RowNames(std::span<const RegistryRow<Factory>> table) {
  std::string out;
  for (const auto& row : table) {
    if (!out.empty()) out += ", ";
    out += row.name;
  }
  return out;
}

// "all", or a comma-separated list of row names, as the names in table / list order without
// repeats. An unknown or empty name stops the parse: it is stored in *unknown and the result
// is empty.
template <typename Factory>
std::vector<std::string> ParseRowList(std::span<const RegistryRow<Factory>> table,
                                      std::string_view spec, std::string* unknown) {
  std::vector<std::string> out;
  if (spec == "all") {
    for (const auto& row : table) out.emplace_back(row.name);
    return out;
  }
  while (true) {
    const size_t comma = spec.find(',');
    const std::string_view name = spec.substr(0, comma);
    if (FindRow(table, name) == nullptr) {
      *unknown = std::string(name);
      return {};
    }
    bool seen = false;
    for (const auto& n : out) seen |= n == name;
    if (!seen) out.emplace_back(name);
    if (comma == std::string_view::npos) return out;
    spec.remove_prefix(comma + 1);
  }
}

}  // namespace frugal

#endif  // FRUGAL_BASE_REGISTRY_H_
