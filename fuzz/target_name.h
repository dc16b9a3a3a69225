// The fuzz target a multi-target fuzzer binary runs as: its program name
// fuzz_<name> (a link fuzz/CMakeLists.txt makes) must be one of `names`;
// anything else exits 2 with a line saying so.
#ifndef FRUGAL_FUZZ_TARGET_NAME_H_
#define FRUGAL_FUZZ_TARGET_NAME_H_

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>

inline std::string FuzzTargetName(int argc, char** argv, std::initializer_list<const char*> names) {
  std::string name = argc > 0 ? argv[0] : "";
  name = name.substr(name.rfind('/') + 1);
  if (name.rfind("fuzz_", 0) == 0) name = name.substr(5);
  for (const char* n : names) {
    if (name == n) return name;
  }
  std::fprintf(stderr, "run this fuzzer as fuzz_<target>, not '%s' (fuzz/CMakeLists.txt makes the links)\n",
               name.c_str());
  std::exit(2);
}

#endif  // FRUGAL_FUZZ_TARGET_NAME_H_
