// One registry table per plug-in kind (importers, op-time models, placers,
// policies, CLI verbs). A table is a constant array of RegistryRow; lookups
// are linear because tables are short. Thread-safe (read-only data).
#ifndef FRUGAL_BASE_REGISTRY_H_
#define FRUGAL_BASE_REGISTRY_H_

#include <span>
#include <string>
#include <string_view>

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

}  // namespace frugal

#endif  // FRUGAL_BASE_REGISTRY_H_
