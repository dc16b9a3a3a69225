// CacheTier without FUSE: a remote directory and a cache directory under a
// temporary root, driven through the tier's file operations.
#include "frugal/cache/fuse/cache_tier.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "frugal/cache/simulator.h"

namespace frugal::cache::fuse {
namespace {

namespace fs = std::filesystem;

class TierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/frugal_tier_XXXXXX";
    root_ = ::mkdtemp(tmpl);
    fs::create_directories(root_ + "/remote/raw");
    fs::create_directories(root_ + "/cache");
  }
  void TearDown() override { fs::remove_all(root_); }

  void Put(const std::string& rel, const std::string& data) {
    std::ofstream(root_ + "/remote" + rel, std::ios::binary) << data;
  }
  std::string Remote(const std::string& rel) {
    std::ifstream in(root_ + "/remote" + rel, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  int CachedFiles() {
    int n = 0;
    for (const auto& e : fs::directory_iterator(root_ + "/cache/objects")) n += e.is_regular_file();
    return n;
  }
  std::unique_ptr<CacheTier> Make(int64_t capacity, const std::string& policy = "lru",
                                  const std::string& trace = "") {
    TierOptions o;
    o.remote_dir = root_ + "/remote";
    o.cache_dir = root_ + "/cache";
    o.capacity_bytes = capacity;
    o.policy = policy;
    o.trace_out = trace;
    auto t = CacheTier::Create(o);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return std::move(t).value();
  }
  // Opens, reads all of `path` and releases; returns the bytes (or "ERR<n>").
  static std::string ReadAll(CacheTier& t, const std::string& path) {
    TierHandle* h = nullptr;
    const int rc = t.Open(path, O_RDONLY, &h);
    if (rc < 0) return "ERR" + std::to_string(-rc);
    std::string out;
    char buf[7];  // odd-sized reads cross chunk boundaries
    off_t off = 0;
    while (true) {
      const int64_t n = t.Read(h, buf, sizeof(buf), off);
      if (n < 0) {
        t.Release(h);
        return "ERR" + std::to_string(-n);
      }
      if (n == 0) break;
      out.append(buf, static_cast<size_t>(n));
      off += n;
    }
    EXPECT_EQ(t.Release(h), 0);
    return out;
  }
  static void WriteNew(CacheTier& t, const std::string& path, const std::string& data) {
    TierHandle* h = nullptr;
    ASSERT_EQ(t.Create(path, O_WRONLY | O_TRUNC, 0644, &h), 0);
    for (size_t off = 0; off < data.size(); off += 5) {
      const size_t n = std::min<size_t>(5, data.size() - off);
      ASSERT_EQ(t.Write(h, data.data() + off, n, static_cast<off_t>(off)), static_cast<int64_t>(n));
    }
    ASSERT_EQ(t.Release(h), 0);
  }

  std::string root_;
};

TEST_F(TierTest, MissIsAdmittedThenServedFromTheCache) {
  Put("/raw/a", std::string(100, 'a'));
  auto t = Make(1000);
  EXPECT_EQ(ReadAll(*t, "/raw/a"), std::string(100, 'a'));
  auto s = t->Stats();
  EXPECT_EQ(s["misses"], 1);
  EXPECT_EQ(s["fills"], 1);
  EXPECT_EQ(CachedFiles(), 1);
  EXPECT_EQ(ReadAll(*t, "/raw/a"), std::string(100, 'a'));
  s = t->Stats();
  EXPECT_EQ(s["hits"], 1);
  EXPECT_EQ(s["bytes_read_from_cache"], 200);
  EXPECT_EQ(s["bytes_read_from_remote"], 0);  // the first read came from the filled copy too
}

TEST_F(TierTest, WritesReachTheRemoteAndAWrittenFileIsCachedFromItsBytes) {
  auto t = Make(1000);
  WriteNew(*t, "/out.bin", "hello, cache tier");
  EXPECT_EQ(Remote("/out.bin"), "hello, cache tier");
  EXPECT_EQ(t->Stats()["bytes_written_to_remote"], 17);
  EXPECT_EQ(CachedFiles(), 1);  // lru admits writes
  EXPECT_EQ(ReadAll(*t, "/out.bin"), "hello, cache tier");
  auto s = t->Stats();
  EXPECT_EQ(s["hits"], 1);
  EXPECT_EQ(s["fills"], 0);
  EXPECT_EQ(s["bytes_read_from_remote"], 0);
}

TEST_F(TierTest, OverwriteOfACachedFileUpdatesTheCopy) {
  Put("/raw/a", "old contents");
  auto t = Make(1000);
  EXPECT_EQ(ReadAll(*t, "/raw/a"), "old contents");
  TierHandle* h = nullptr;
  ASSERT_EQ(t->Open("/raw/a", O_WRONLY, &h), 0);
  ASSERT_EQ(t->Write(h, "NEW", 3, 0), 3);
  ASSERT_EQ(t->Release(h), 0);
  EXPECT_EQ(Remote("/raw/a"), "NEW contents");
  EXPECT_EQ(ReadAll(*t, "/raw/a"), "NEW contents");
  ASSERT_EQ(t->Truncate("/raw/a", 3), 0);
  EXPECT_EQ(ReadAll(*t, "/raw/a"), "NEW");
}

TEST_F(TierTest, EvictionRemovesTheCacheCopy) {
  Put("/raw/a", std::string(100, 'a'));
  Put("/raw/b", std::string(100, 'b'));
  auto t = Make(150);
  EXPECT_EQ(ReadAll(*t, "/raw/a"), std::string(100, 'a'));
  EXPECT_EQ(ReadAll(*t, "/raw/b"), std::string(100, 'b'));
  EXPECT_EQ(t->Stats()["evictions"], 1);
  EXPECT_EQ(CachedFiles(), 1);
  EXPECT_EQ(ReadAll(*t, "/raw/a"), std::string(100, 'a'));  // a miss, from the remote
  EXPECT_EQ(t->Stats()["hits"], 0);
}

TEST_F(TierTest, DeleteFreesTheCacheAtOnce) {
  Put("/raw/a", std::string(100, 'a'));
  auto t = Make(1000);
  ReadAll(*t, "/raw/a");
  ASSERT_EQ(t->Unlink("/raw/a"), 0);
  EXPECT_FALSE(fs::exists(root_ + "/remote/raw/a"));
  EXPECT_EQ(CachedFiles(), 0);
  EXPECT_EQ(t->Stats()["used_bytes"], 0);
  EXPECT_EQ(t->Stats()["evictions"], 0);
  EXPECT_EQ(ReadAll(*t, "/raw/a"), "ERR" + std::to_string(ENOENT));
}

TEST_F(TierTest, RenameKeepsTheCachedCopyForFilesAndDirectories) {
  Put("/raw/a", "alpha");
  auto t = Make(1000);
  ReadAll(*t, "/raw/a");
  ASSERT_EQ(t->Rename("/raw/a", "/raw/b", 0), 0);
  EXPECT_EQ(ReadAll(*t, "/raw/b"), "alpha");
  EXPECT_EQ(t->Stats()["hits"], 1);
  ASSERT_EQ(t->Rename("/raw", "/moved", 0), 0);
  EXPECT_EQ(ReadAll(*t, "/moved/b"), "alpha");
  EXPECT_EQ(t->Stats()["hits"], 2);
  // A rename over a cached file frees the replaced copy.
  Put("/moved/c", "gamma");
  ReadAll(*t, "/moved/c");
  EXPECT_EQ(CachedFiles(), 2);
  ASSERT_EQ(t->Rename("/moved/c", "/moved/b", 0), 0);
  EXPECT_EQ(CachedFiles(), 1);
  EXPECT_EQ(ReadAll(*t, "/moved/b"), "gamma");
}

TEST_F(TierTest, AFileChangedBehindTheMountIsNotServedStale) {
  Put("/raw/a", "first version");
  auto t = Make(1000);
  EXPECT_EQ(ReadAll(*t, "/raw/a"), "first version");
  Put("/raw/a", "second, longer version");  // straight into REMOTE_DIR
  EXPECT_EQ(ReadAll(*t, "/raw/a"), "second, longer version");
  EXPECT_EQ(t->Stats()["stale_copies_dropped"], 1);
  EXPECT_EQ(ReadAll(*t, "/raw/a"), "second, longer version");  // refilled
  // A file renamed over a cached one behind the tier's back replaces it.
  Put("/raw/b", "bee");
  ASSERT_EQ(t->Rename("/raw/b", "/raw/a", 0), 0);
  EXPECT_EQ(ReadAll(*t, "/raw/a"), "bee");
}

TEST_F(TierTest, RemoteErrorsReachTheCallerAsTheirErrno) {
  auto t = Make(1000);
  EXPECT_EQ(ReadAll(*t, "/missing"), "ERR" + std::to_string(ENOENT));
  // A directory opens but cannot be read: EISDIR, not data.
  EXPECT_EQ(ReadAll(*t, "/raw"), "ERR" + std::to_string(EISDIR));
  EXPECT_GE(t->Stats()["remote_errors"].get<int64_t>(), 2);
}

TEST_F(TierTest, BadOptionsAreErrors) {
  TierOptions o;
  o.remote_dir = root_ + "/remote";
  o.cache_dir = root_ + "/cache";
  o.capacity_bytes = 0;
  EXPECT_FALSE(CacheTier::Create(o).ok());
  o.capacity_bytes = 100;
  o.policy = "belady";
  auto r = CacheTier::Create(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("online"), std::string::npos);
  o.policy = "nosuch";
  EXPECT_FALSE(CacheTier::Create(o).ok());
}

TEST_F(TierTest, FilesBeyondMaxFilesPassThrough) {
  Put("/raw/a", "a");
  Put("/raw/b", "b");
  TierOptions o;
  o.remote_dir = root_ + "/remote";
  o.cache_dir = root_ + "/cache";
  o.capacity_bytes = 100;
  o.max_files = 1;
  auto t = std::move(CacheTier::Create(o)).value();
  EXPECT_EQ(ReadAll(*t, "/raw/a"), "a");
  EXPECT_EQ(ReadAll(*t, "/raw/b"), "b");
  EXPECT_EQ(t->Stats()["untracked_opens"], 1);
}

// The recorded trace replays in the simulator with the tier's own outcome.
TEST_F(TierTest, RecordedTraceReplaysToTheSameHits) {
  for (int i = 0; i < 6; ++i) Put("/raw/f" + std::to_string(i), std::string(100 + 10 * i, 'x'));
  const std::string trace = root_ + "/run.frt";
  auto t = Make(400, "lru", trace);
  const int order[] = {0, 1, 2, 0, 3, 1, 4, 0, 5, 2, 0, 1};
  for (int i : order) ReadAll(*t, "/raw/f" + std::to_string(i));
  WriteNew(*t, "/shard", "0123456789");
  ASSERT_EQ(t->Rename("/shard", "/shard2", 0), 0);
  ReadAll(*t, "/shard2");
  ASSERT_EQ(t->Unlink("/raw/f3"), 0);
  const auto stats = t->Stats();
  ASSERT_TRUE(t->Close().ok());
  auto loaded = LoadRequestTrace(trace);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  SimulationOptions so;
  auto sim = SimulateOne(loaded.value(), "lru", 400, so);
  ASSERT_TRUE(sim.ok());
  EXPECT_EQ(sim.value().reads, stats["read_opens"].get<int64_t>());
  EXPECT_EQ(sim.value().hits, stats["hits"].get<int64_t>());
  EXPECT_DOUBLE_EQ(sim.value().byte_miss_ratio, stats["byte_miss_ratio"].get<double>());
  EXPECT_TRUE(fs::exists(root_ + "/cache/stats.json"));
}

}  // namespace
}  // namespace frugal::cache::fuse
