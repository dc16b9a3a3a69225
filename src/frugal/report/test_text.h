// Text helpers for the report module's tests.
#ifndef FRUGAL_REPORT_TEST_TEXT_H_
#define FRUGAL_REPORT_TEST_TEXT_H_

#include <string>

namespace frugal::testing {

// How many times `what` occurs in `s` (overlapping occurrences counted).
inline int CountOccurrences(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace frugal::testing

#endif  // FRUGAL_REPORT_TEST_TEXT_H_
