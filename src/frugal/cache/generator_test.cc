#include "frugal/cache/generator.h"

#include <gtest/gtest.h>

#include "frugal/cache/request_trace.h"

namespace frugal::cache {
namespace {

GeneratorOptions Small(const std::string& preset, uint64_t seed = 1) {
  GeneratorOptions o;
  o.preset = preset;
  o.pipelines = 2;
  o.days = 2;
  o.scale = 0.01;
  o.seed = seed;
  return o;
}

TEST(Generator, SameSeedSameEvents) {
  auto a = GenerateTrace(Small("text", 3));
  auto b = GenerateTrace(Small("text", 3));
  auto c = GenerateTrace(Small("text", 4));
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  ASSERT_EQ(a->size(), b->size());
  bool differs = a->size() != c->size();
  for (size_t i = 0; i < a->size(); ++i) {
    EXPECT_EQ((*a)[i].time_us, (*b)[i].time_us);
    EXPECT_EQ((*a)[i].path, (*b)[i].path);
    if (!differs && ((*a)[i].path != (*c)[i].path || (*a)[i].time_us != (*c)[i].time_us)) differs = true;
  }
  EXPECT_TRUE(differs);
}

TEST(Generator, EveryPresetMakesAValidPipelineTrace) {
  for (const auto& row : Presets()) {
    auto ev = GenerateTrace(Small(row.name));
    ASSERT_TRUE(ev.ok()) << row.name;
    int kinds[5] = {0, 0, 0, 0, 0};
    for (const auto& e : *ev) ++kinds[static_cast<int>(e.kind)];
    EXPECT_GT(kinds[static_cast<int>(EventKind::kCreate)], 0) << row.name;
    EXPECT_GT(kinds[static_cast<int>(EventKind::kRead)], 0) << row.name;
    EXPECT_GT(kinds[static_cast<int>(EventKind::kRename)], 0) << row.name;
    EXPECT_GT(kinds[static_cast<int>(EventKind::kDelete)], 0) << row.name;
    auto t = LoadRequestTrace(*ev, row.name);
    ASSERT_TRUE(t.ok()) << t.status().ToString();  // sorted, no negative sizes
    EXPECT_EQ(t->skipped.total(), 0) << row.name << ": reads only live files";
    // Raw input is re-read on day 2: some reads have a next read.
    int64_t reused = 0;
    for (const auto& r : t->requests) reused += r.next_read != kNever;
    EXPECT_GT(reused, 0);
  }
}

TEST(Generator, TempBundlesAreRenamedToOutputShards) {
  auto ev = GenerateTrace(Small("image"));
  ASSERT_TRUE(ev.ok());
  int renames = 0;
  for (const auto& e : *ev) {
    if (e.kind != EventKind::kRename) continue;
    ++renames;
    EXPECT_NE(e.path.find(".temp-beam-"), std::string::npos);
    EXPECT_NE(e.new_path.find(".tfrecord"), std::string::npos);
  }
  EXPECT_EQ(renames, 2 * 2 * 32);
}

TEST(Generator, RejectsBadOptions) {
  GeneratorOptions o;
  o.preset = "video";
  EXPECT_FALSE(GenerateTrace(o).ok());
  o = GeneratorOptions{};
  o.days = 0;
  EXPECT_FALSE(GenerateTrace(o).ok());
  o = GeneratorOptions{};
  o.scale = -1;
  EXPECT_FALSE(GenerateTrace(o).ok());
  o = GeneratorOptions{};
  o.retry_prob = 2;
  EXPECT_FALSE(GenerateTrace(o).ok());
}

}  // namespace
}  // namespace frugal::cache
