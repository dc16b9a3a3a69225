// The bundled catalog, loaded once, for the perf module's tests.
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

}  // namespace frugal::testing

#endif  // FRUGAL_PERF_TEST_CATALOG_H_
