#include "frugal/cache/simulator.h"

#include "frugal/cache/policy_registry.h"

#include <filesystem>

#include <gtest/gtest.h>

namespace frugal::cache {
namespace {

const char kCloudPhysics[] = FRUGAL_SHARED_DATA "/traces/cloudphysics/cloudPhysicsIO.oracleGeneral.bin";

struct Reference {
  const char* policy;
  double fraction;
  double miss_ratio;
  double byte_miss_ratio;
};

// From ../shared/data/README.md (libCacheSim, no per-object metadata).
constexpr Reference kReferences[] = {
    {"lru", 0.01, 0.8339, 0.9800}, {"lru", 0.10, 0.8097, 0.9518},
    {"arc", 0.10, 0.7688, 0.9026}, {"s3fifo", 0.10, 0.7356, 0.8619},
    {"sieve", 0.10, 0.7903, 0.9296},
};

TEST(Simulator, ReproducesLibCacheSimReferenceOnCloudPhysics) {
  if (!std::filesystem::exists(kCloudPhysics)) GTEST_SKIP() << "no shared data";
  Result<RequestTrace> t = LoadRequestTrace(kCloudPhysics);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->footprint_bytes, 2029769728);
  EXPECT_EQ(t->objects.size(), 48974u);
  for (const Reference& ref : kReferences) {
    const int64_t bytes = static_cast<int64_t>(static_cast<double>(t->footprint_bytes) * ref.fraction);
    Result<SimulationResult> r = SimulateOne(*t, ref.policy, bytes, SimulationOptions{});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_NEAR(r->miss_ratio, ref.miss_ratio, 0.00005) << ref.policy << " " << ref.fraction;
    EXPECT_NEAR(r->byte_miss_ratio, ref.byte_miss_ratio, 0.00005) << ref.policy << " " << ref.fraction;
  }
}

}  // namespace
}  // namespace frugal::cache

namespace frugal::cache {
namespace {

TEST(Simulator, ResultsDoNotDependOnThreads) {
  auto t = LoadRequestTrace("testdata/cache/cloudphysics_head.oracleGeneral.bin");
  ASSERT_TRUE(t.ok());
  SimulationOptions o;
  o.policies = {"lru", "arc", "s3fifo", "sieve", "belady"};
  o.cache_bytes = {t->footprint_bytes / 100, t->footprint_bytes / 10};
  o.threads = 1;
  auto a = Simulate(*t, o);
  o.threads = 4;
  auto b = Simulate(*t, o);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), 10u);
  for (size_t i = 0; i < a->size(); ++i) {
    EXPECT_EQ(ResultToJson((*a)[i]).dump(), ResultToJson((*b)[i]).dump());
  }
  EXPECT_EQ((*a)[0].policy, "lru");
  EXPECT_EQ((*a)[1].cache_bytes, t->footprint_bytes / 10);
}

// Streamed = loaded + SimulateOne for every online policy, alone or in a
// list of policies and sizes replayed together; offline ones are not
// streamed.
TEST(Simulator, StreamedMatchesLoadedForOnlinePolicies) {
  const std::string path = "testdata/cache/cloudphysics_head.oracleGeneral.bin";
  auto t = LoadRequestTrace(path);
  ASSERT_TRUE(t.ok());
  SimulationOptions o;
  std::vector<std::string> online;
  for (const auto& row : Policies()) {
    const std::string name = row.name;
    if (IsOfflinePolicy(name)) {
      EXPECT_FALSE(CanSimulateStreamed(path, "auto", {name}));
      EXPECT_FALSE(CanSimulateStreamed(path, "auto", {"lru", name}));
      EXPECT_FALSE(SimulateStreamed(path, {name}, "10%", o).ok());
      continue;
    }
    online.push_back(name);
    EXPECT_TRUE(CanSimulateStreamed(path, "auto", {name})) << name;
    for (const char* size : {"1%", "10%"}) {
      auto s = SimulateStreamed(path, {name}, size, o);
      ASSERT_TRUE(s.ok()) << name << ": " << s.status().ToString();
      ASSERT_EQ(s->results.size(), 1u);
      auto bytes = ParseCacheSizes(size, t->footprint_bytes);
      ASSERT_TRUE(bytes.ok());
      auto l = SimulateOne(*t, name, bytes->front(), o);
      ASSERT_TRUE(l.ok());
      EXPECT_EQ(ResultToJson(s->results[0]).dump(), ResultToJson(*l).dump()) << name << " " << size;
      EXPECT_EQ(s->requests, static_cast<int64_t>(t->requests.size()));
      EXPECT_EQ(s->trace.footprint_bytes, t->footprint_bytes);
    }
  }
  // Every online policy x three sizes in one replay, on 1 and 3 threads:
  // the loaded Simulate's results, in its order.
  o.policies = online;
  auto sizes = ParseCacheSizes("1%,5%,10%", t->footprint_bytes);
  ASSERT_TRUE(sizes.ok());
  o.cache_bytes = *sizes;
  auto loaded = Simulate(*t, o);
  ASSERT_TRUE(loaded.ok());
  EXPECT_TRUE(CanSimulateStreamed(path, "auto", online));
  for (int threads : {1, 3}) {
    o.threads = threads;
    auto s = SimulateStreamed(path, online, "1%,5%,10%", o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    ASSERT_EQ(s->results.size(), loaded->size());
    for (size_t i = 0; i < loaded->size(); ++i) {
      EXPECT_EQ(ResultToJson(s->results[i]).dump(), ResultToJson((*loaded)[i]).dump()) << i;
    }
  }
  EXPECT_FALSE(CanSimulateStreamed(path, "auto", {"all"}));
  EXPECT_FALSE(CanSimulateStreamed(path, "auto", {}));
  EXPECT_FALSE(CanSimulateStreamed("testdata/cache/tiny.csv", "auto", {"lru"}));
  EXPECT_TRUE(CanSimulateStreamed("x.dat", "oracle", {"lru"}));
  EXPECT_FALSE(SimulateStreamed(path, {"lru"}, "0%", o).ok());
  EXPECT_EQ(SimulateStreamed("testdata/cache/nope.bin", {"lru"}, "1%", o).status().code(),
            StatusCode::kNotFound);
}

TEST(Simulator, CountsObjectAndByteMissesOnTinyTrace) {
  auto t = LoadRequestTrace("testdata/cache/tiny.csv");
  ASSERT_TRUE(t.ok());
  // A cache that holds everything: misses are the cold reads of the two raw
  // shards; the shuffle file and the bundle were written into the cache.
  auto r = SimulateOne(*t, "lru", 1 << 20, SimulationOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->reads, 7);
  EXPECT_EQ(r->hits, 5);
  EXPECT_EQ(r->read_bytes, 1000 + 1000 + 400 + 400 + 500 + 500 + 1000);
  EXPECT_EQ(r->hit_bytes, 400 + 400 + 500 + 500 + 1000);
  EXPECT_EQ(r->bytes_written_to_cache, 1000 + 1000 + 800 + 500);
  EXPECT_GT(r->pipeline_speedup, 1.0);
}

TEST(Simulator, ParsesCacheSizes) {
  auto s = ParseCacheSizes("1%, 10%,512MiB,2048", 1000000);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(*s, (std::vector<int64_t>{10000, 100000, 512LL << 20, 2048}));
  EXPECT_FALSE(ParseCacheSizes("", 100).ok());
  EXPECT_FALSE(ParseCacheSizes("ten", 100).ok());
  EXPECT_FALSE(ParseCacheSizes("5furlongs", 100).ok());
  auto zero = ParseCacheSizes("0", 100);
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("cache size must be > 0"), std::string::npos);
  EXPECT_FALSE(ParseCacheSizes("0.1%", 100).ok()) << "rounds to 0 bytes";
  EXPECT_FALSE(ParseCacheSizes("-5%", 100).ok());
}

TEST(Simulator, RejectsZeroSizeAndUnknownPolicy) {
  auto t = LoadRequestTrace("testdata/cache/tiny.csv");
  SimulationOptions o;
  o.cache_bytes = {0};
  EXPECT_FALSE(Simulate(*t, o).ok());
  o.cache_bytes = {100};
  o.policies = {"nope"};
  EXPECT_FALSE(Simulate(*t, o).ok());
}

}  // namespace
}  // namespace frugal::cache
