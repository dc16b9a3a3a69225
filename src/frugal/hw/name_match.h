// Suggestions for a hardware name nobody has: the catalog names closest to
// what the user typed, so "unknown GPU" can say "did you mean". Names are
// compared by their lookup keys (CatalogKey: lower case, letters and
// digits only) and by their tokens (runs of letters or digits, so
// "A100 40GB" has tokens a, 100, 40, gb). Stateless; thread-safe.
#ifndef FRUGAL_HW_NAME_MATCH_H_
#define FRUGAL_HW_NAME_MATCH_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace frugal {

// One spelling of a catalog entry and the entry's canonical name, which is
// what a suggestion shows. An entry may have several spellings.
struct NameCandidate {
  std::string spelling;   // a name or alias, as written in the catalog
  std::string canonical;  // the entry's name
};

// Levenshtein distance between `a` and `b` (insert, delete, substitute).
size_t EditDistance(std::string_view a, std::string_view b);

// Up to `max` distinct canonical names, best first: most tokens of `query`
// shared with a spelling, then smallest key edit distance, then name order.
// Deterministic for equal inputs. Empty when `candidates` is.
std::vector<std::string> ClosestNames(std::string_view query,
                                      const std::vector<NameCandidate>& candidates,
                                      size_t max);

}  // namespace frugal

#endif  // FRUGAL_HW_NAME_MATCH_H_
