#include "frugal/cache/policies/path_features.h"

#include <gtest/gtest.h>

namespace frugal::cache {
namespace {

TEST(PathPattern, DigitsHexAndRandomNamesCollapse) {
  EXPECT_EQ(PathInterner::Pattern("/tmp/beam/p3/run-2-ab12cd34/shuffle-0/w007.shuffle"),
            "/tmp/beam/p#/run-#-*/shuffle-#/w#.shuffle");
  EXPECT_EQ(PathInterner::Pattern("/shards/day1/part-0003.csv"), "/shards/day#/part-#.csv");
  // Python's tempfile.mkdtemp(suffix=".partd") and Dask's worker directories:
  // each run's random name, one pattern.
  EXPECT_EQ(PathInterner::Pattern("/tmp/tmpjw3saxjk.partd/17"), "/tmp/tmp*.partd/#");
  EXPECT_EQ(PathInterner::Pattern("/tmp/tmpqsygyynb.partd/17"), "/tmp/tmp*.partd/#");
  EXPECT_EQ(PathInterner::Pattern("/tmp/tmpa_b4c9de/x"), "/tmp/tmp*/x");
  EXPECT_EQ(PathInterner::Pattern("/tmp/dask-worker-space/worker-h3zyvzwy.dirlock"),
            "/tmp/dask-worker-space/worker-*.dirlock");
  // Not random: short tokens, words, "tmp" + other lengths.
  EXPECT_EQ(PathInterner::Pattern("/data/tmpfiles/images.tar"), "/data/tmpfiles/images.tar");
  EXPECT_EQ(PathInterner::Pattern("/data/tmp/a.txt"), "/data/tmp/a.txt");
  EXPECT_EQ(PathInterner::Pattern("/x/tmpabcdefghij/y"), "/x/tmpabcdefghij/y");
  EXPECT_EQ(PathInterner::Pattern("/models/v2/ckpt"), "/models/v#/ckpt");
}

TEST(PathPattern, Extension) {
  EXPECT_EQ(PathInterner::Extension("/a.b/c.tar.gz"), "tar.gz");
  EXPECT_EQ(PathInterner::Extension("/a/b"), "");
}

}  // namespace
}  // namespace frugal::cache
