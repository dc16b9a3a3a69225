#include "frugal/share/filter_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

namespace frugal::share {
namespace {

// The node indices in increasing key order (lower index first on ties).
std::vector<size_t> Order(const std::vector<double>& keys) {
  std::vector<size_t> v(keys.size());
  std::iota(v.begin(), v.end(), size_t{0});
  std::stable_sort(v.begin(), v.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  return v;
}

TEST(FilterOrder, ChunkSizeIsKubernetes) {
  EXPECT_EQ(FilterChunkSize(1213), 34u);  // sqrt(1213) = 34.8, 1213 / 16 + 1 = 76
  EXPECT_EQ(FilterChunkSize(100), 7u);    // sqrt = 10, 100 / 16 + 1 = 7
  EXPECT_EQ(FilterChunkSize(1), 1u);
  EXPECT_EQ(FilterChunkSize(0), 1u);
}

TEST(FilterOrder, OneGoroutineIsNodeListOrder) {
  SplitMix64 rng(1);
  std::vector<double> keys;
  FilterOrderKeys({1, 0}, 50, &rng, &keys);
  std::vector<size_t> want(50);
  std::iota(want.begin(), want.end(), size_t{0});
  EXPECT_EQ(Order(keys), want);
}

TEST(FilterOrder, ParallelInterleavesChunksOfARound) {
  // 16 nodes: chunks of 2; with 4 goroutines, chunks 0-3 are checked side
  // by side, then chunks 4-7.
  SplitMix64 rng(1);
  std::vector<double> keys;
  FilterOrderKeys({4, 0}, 16, &rng, &keys);
  EXPECT_EQ(Order(keys), (std::vector<size_t>{0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15}));
}

TEST(FilterOrder, JitterIsSeededAndKeepsEachChunkInOrder) {
  SplitMix64 a(7), b(7), c(8);
  std::vector<double> ka, kb, kc;
  FilterOrderKeys({16, 1.0}, 1213, &a, &ka);
  FilterOrderKeys({16, 1.0}, 1213, &b, &kb);
  FilterOrderKeys({16, 1.0}, 1213, &c, &kc);
  EXPECT_EQ(ka, kb);
  EXPECT_NE(ka, kc);
  for (size_t i = 1; i < ka.size(); ++i) {
    if (i % 34 != 0) {
      EXPECT_GE(ka[i], ka[i - 1]) << i;  // a chunk is checked in order
    }
  }
  // Without jitter nothing is drawn.
  SplitMix64 d(7);
  std::vector<double> kd;
  FilterOrderKeys({16, 0}, 1213, &d, &kd);
  EXPECT_EQ(d.Next(), SplitMix64(7).Next());
}

TEST(FilterOrder, ParsesAndNamesEveryForm) {
  auto l = ParseFilterOrder("list");
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(l->node_list());
  EXPECT_EQ(FilterOrderName(*l), "list");
  auto p = ParseFilterOrder("parallel:4");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->running, 4);
  EXPECT_EQ(p->jitter, 0);
  EXPECT_EQ(FilterOrderName(*p), "parallel:4");
  auto j = ParseFilterOrder("parallel:16:0.5");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(j->running, 16);
  EXPECT_EQ(j->jitter, 0.5);
  EXPECT_EQ(FilterOrderName(*j), "parallel:16:0.5");
  for (const char* bad : {"", "lists", "parallel", "parallel:", "parallel:0", "parallel:17",
                          "parallel:2.5", "parallel:x", "parallel:4:", "parallel:4:1.5",
                          "parallel:4:-0.1", "parallel:4:nan", "serial:1"}) {
    auto r = ParseFilterOrder(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("filter order"), std::string::npos) << bad;
    }
  }
}

}  // namespace
}  // namespace frugal::share
