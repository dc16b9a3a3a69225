// Test helpers for the hf_config importer's tests: import a bundled config
// from models/hf, or a config written to a temporary file. Test-only.
#ifndef FRUGAL_GRAPH_IMPORTERS_HF_TEST_UTIL_H_
#define FRUGAL_GRAPH_IMPORTERS_HF_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>

#include "frugal/base/file_io.h"
#include "frugal/graph/importer.h"

namespace frugal::testing {

// models/hf holds the bundled configs, so the tests run from a bare
// checkout.
inline std::string HfConfigPath(const std::string& name) {
  return std::string(FRUGAL_SOURCE_ROOT) + "/models/hf/" + name + ".json";
}

// Imports the bundled config `name` (batch 0: the importer's default).
inline Result<OpGraph> ImportHfConfig(const std::string& name, int64_t batch = 0, int64_t seq = 0,
                                      ModelHead head = ModelHead::kAuto) {
  ImportOptions o;
  o.batch = batch;
  o.seq_len = seq;
  o.head = head;
  return ImportGraph(HfConfigPath(name), o, "hf");
}

// Writes `text` to a temporary file called `file` and imports it.
inline Result<OpGraph> ImportHfText(const std::string& file, const std::string& text,
                                    const ImportOptions& o = {}) {
  std::string path = ::testing::TempDir() + file;
  Status s = WriteStringToFile(path, text);
  if (!s.ok()) return s;
  return ImportGraph(path, o, "hf");
}

}  // namespace frugal::testing

#endif  // FRUGAL_GRAPH_IMPORTERS_HF_TEST_UTIL_H_
