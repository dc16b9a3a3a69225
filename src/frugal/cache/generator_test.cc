#include "frugal/cache/generator.h"

#include <set>
#include <string>

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

TEST(Generator, CountIsExactWithoutGenerating) {
  for (const auto& row : Presets()) {
    GeneratorOptions o = Small(row.name, 7);
    o.retry_prob = 0.5;  // retries are random: the count follows the same stream
    auto ev = GenerateTrace(o);
    auto n = CountTraceEvents(o);
    ASSERT_TRUE(ev.ok() && n.ok()) << row.name;
    EXPECT_EQ(*n, static_cast<int64_t>(ev->size())) << row.name;
  }
}

TEST(Generator, HugeScaleIsRefusedUpFront) {
  // --scale 1e6 used to be generated until the OOM killer stopped it at 21 GB.
  GeneratorOptions o;
  o.scale = 1e6;
  auto ev = GenerateTrace(o);
  ASSERT_FALSE(ev.ok());
  EXPECT_EQ(ev.status().code(), StatusCode::kInvalidArgument);
  const std::string m = ev.status().message();
  EXPECT_NE(m.find("events, over the limit of 10000000"), std::string::npos) << m;
  EXPECT_NE(m.find("--scale"), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos);
  // Over the largest scale: the message says the range, not "must be > 0".
  o.scale = 1e7;
  ev = GenerateTrace(o);
  ASSERT_FALSE(ev.ok());
  EXPECT_NE(ev.status().message().find("--scale must be in (0, 1e+06], got 1e+07"),
            std::string::npos)
      << ev.status().message();
  // The bound is an option: a small one refuses a normal trace.
  o = Small("text");
  o.max_events = 10;
  EXPECT_FALSE(GenerateTrace(o).ok());
}

// Replays the trace: every read and write touches a live file (raw inputs,
// never created, are live until deleted).
int64_t DeadAccesses(const std::vector<TraceEvent>& ev) {
  std::set<std::string> created, live, dead;
  for (const auto& e : ev) {
    if (e.kind == EventKind::kCreate) created.insert(e.path);
    if (e.kind == EventKind::kRename) created.insert(e.new_path);
  }
  int64_t bad = 0;
  for (const auto& e : ev) {
    const bool is_live = created.count(e.path) ? live.count(e.path) != 0 : !dead.count(e.path);
    switch (e.kind) {
      case EventKind::kCreate: live.insert(e.path); break;
      case EventKind::kRead:
      case EventKind::kWrite: bad += !is_live; break;
      case EventKind::kRename:
        bad += !is_live;
        live.erase(e.path);
        dead.insert(e.path);
        live.insert(e.new_path);
        break;
      case EventKind::kDelete:
        bad += !is_live;
        live.erase(e.path);
        dead.insert(e.path);
        break;
    }
  }
  return bad;
}

TEST(Generator, LargeScalesReadOnlyLiveFiles) {
  // At --scale 200 a run and its training outlast a day; yesterday's shards
  // used to be deleted while their last epochs still read them.
  for (const auto& row : Presets()) {
    GeneratorOptions o;
    o.preset = row.name;
    o.pipelines = 2;
    o.days = 3;
    o.scale = 400;
    auto ev = GenerateTrace(o);
    ASSERT_TRUE(ev.ok()) << ev.status().ToString();
    EXPECT_EQ(DeadAccesses(*ev), 0) << row.name;
    auto t = LoadRequestTrace(*ev, row.name);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_EQ(t->skipped.total(), 0) << row.name;
  }
  EXPECT_EQ(DeadAccesses(*GenerateTrace(Small("image"))), 0);
}

}  // namespace
}  // namespace frugal::cache
