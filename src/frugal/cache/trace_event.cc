#include "frugal/cache/trace_event.h"

#include "frugal/base/enum_names.h"

namespace frugal::cache {

const char* EventKindName(EventKind kind) { return EnumName(kEventKindNames, kind); }

bool ParseEventKind(const std::string& name, EventKind* kind) {
  return ParseEnumName(name, kEventKindNames, kind);
}

}  // namespace frugal::cache
