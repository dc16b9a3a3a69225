// Names of small enums whose values are 0..N-1, kept in one array of
// strings per enum: EnumName(names, value) and ParseEnumName(name, names).
// Read-only data; thread-safe.
#ifndef FRUGAL_BASE_ENUM_NAMES_H_
#define FRUGAL_BASE_ENUM_NAMES_H_

#include <cstddef>
#include <string_view>

namespace frugal {

template <typename E, size_t N>
const char* EnumName(const char* const (&names)[N], E value) {
  const size_t i = static_cast<size_t>(value);
  return i < N ? names[i] : "unknown";
}

// Sets *out and returns true when `name` is one of `names`.
template <typename E, size_t N>
bool ParseEnumName(std::string_view name, const char* const (&names)[N], E* out) {
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) {
      *out = static_cast<E>(i);
      return true;
    }
  }
  return false;
}

}  // namespace frugal

#endif  // FRUGAL_BASE_ENUM_NAMES_H_
