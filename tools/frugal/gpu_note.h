// --gpu NAME for the CLI: resolves catalog names, aliases and family names
// ("A100"), keeping the family name's note so a verb can print it on
// stderr next to its result. Header-only; stateless.
#ifndef FRUGAL_TOOLS_FRUGAL_GPU_NOTE_H_
#define FRUGAL_TOOLS_FRUGAL_GPU_NOTE_H_

#include <cstdio>
#include <string>
#include <string_view>

#include "frugal/hw/catalog.h"

namespace frugal::cli {

// As Catalog::LookupGpu; `*note` gets the family-name note (empty if none).
inline Result<const GpuSpec*> LookupGpuNoted(const Catalog& catalog, std::string_view name,
                                             std::string* note) {
  FRUGAL_ASSIGN_OR_RETURN(Catalog::GpuMatch m, catalog.ResolveGpu(name));
  *note = m.note;
  return m.gpu;
}

// "frugal: note: ..." on stderr, when there is a note.
inline void PrintNote(const std::string& note) {
  if (!note.empty()) std::fprintf(stderr, "frugal: note: %s\n", note.c_str());
}

}  // namespace frugal::cli

#endif  // FRUGAL_TOOLS_FRUGAL_GPU_NOTE_H_
