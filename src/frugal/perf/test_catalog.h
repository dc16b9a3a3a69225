// The bundled catalog, loaded once, and a made-up GPU, for the perf
// module's tests.
#ifndef FRUGAL_PERF_TEST_CATALOG_H_
#define FRUGAL_PERF_TEST_CATALOG_H_

#include <string>

#include <gtest/gtest.h>

#include "frugal/hw/catalog.h"

namespace frugal::testing {

inline const Catalog& TheCatalog() {
  static const Catalog* c = [] {
    Result<Catalog> r = LoadCatalog(std::string(FRUGAL_SOURCE_ROOT) + "/data/catalog");
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return new Catalog(r.ok() ? *r : Catalog());
  }();
  return *c;
}

// A GPU of the bundled catalog by name (a failed expectation and an empty
// spec when it is missing).
inline const GpuSpec& CatalogGpu(const char* name) {
  const GpuSpec* g = TheCatalog().FindGpu(name);
  EXPECT_NE(g, nullptr) << name;
  static GpuSpec none;
  return g ? *g : none;
}

// A V100-like GPU that is not in any catalog.
inline GpuSpec TestGpu() {
  GpuSpec g;
  g.name = "TestGPU";
  g.architecture = "volta";
  g.mem_gib = 16;
  g.mem_bw_gbps = 900;
  g.fp32_tflops = 15;
  g.nvlink_gbps = 300;
  g.pcie_gen = 3;
  return g;
}

}  // namespace frugal::testing

#endif  // FRUGAL_PERF_TEST_CATALOG_H_
