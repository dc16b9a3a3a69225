// smartcache's model files: train, write, warm-start, and every bad file
// an error from MakePolicy naming it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "frugal/base/file_io.h"
#include "frugal/cache/generated_test_trace.h"
#include "frugal/cache/job_test_trace.h"
#include "frugal/cache/policy_registry.h"
#include "frugal/cache/request_trace.h"
#include "frugal/cache/simulator.h"
#include "frugal/cache/smartcache_model.h"

namespace frugal::cache {
namespace {

const RequestTrace& JoinTrace() {
  static const RequestTrace t = GeneratedTestTrace("join", 1, 2, 0.01);
  return t;
}

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/smartcache_" + std::to_string(::getpid()) + "_" + name;
}

// The model file trained on JoinTrace at 5%, written once.
const std::string& TrainedModel() {
  static const std::string* path = [] {
    PolicyOptions o;
    o.capacity_bytes = JoinTrace().footprint_bytes / 20;
    auto m = TrainSmartCacheModel(JoinTrace(), o);
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    auto* p = new std::string(TempPath("model.json"));
    EXPECT_TRUE(WriteStringToFile(*p, m->dump()).ok());
    return p;
  }();
  return *path;
}

Status MakeWithModel(const std::string& policy, const std::string& path) {
  PolicyOptions o;
  o.capacity_bytes = JoinTrace().footprint_bytes / 20;
  o.trace = &JoinTrace();
  o.model_path = path;
  auto p = MakePolicy(policy, o);
  return p.ok() ? Status::Ok() : p.status();
}

TEST(SmartCacheModel, TrainsDeterministicallyAndHoldsFittedModels) {
  PolicyOptions o;
  o.capacity_bytes = JoinTrace().footprint_bytes / 20;
  auto a = TrainSmartCacheModel(JoinTrace(), o);
  auto b = TrainSmartCacheModel(JoinTrace(), o);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->dump(), b->dump());
  EXPECT_EQ((*a)["format"], "frugal-smartcache-model");
  for (const char* m : {"live", "cost", "reuse", "ttl"}) EXPECT_TRUE((*a)["models"][m].is_object()) << m;
  EXPECT_FALSE((*a)["interned"].empty());
  EXPECT_TRUE(CheckSmartCacheModel(TrainedModel()).ok());
}

TEST(SmartCacheModel, WarmStartsFromTheFile) {
  ASSERT_TRUE(MakeWithModel("smartcache", TrainedModel()).ok());
  PolicyOptions o;
  o.capacity_bytes = JoinTrace().footprint_bytes / 20;
  o.trace = &JoinTrace();
  o.model_path = TrainedModel();
  auto p = std::move(MakePolicy("smartcache", o)).value();
  // Predictions from the first access on: the cost model is checked against
  // labels long before a cold start's first fit.
  int64_t i = 0;
  for (; i < 300 && i < static_cast<int64_t>(JoinTrace().requests.size()); ++i) {
    const Request& r = JoinTrace().requests[static_cast<size_t>(i)];
    if (r.kind == RequestKind::kRead || r.kind == RequestKind::kWrite) p->Access(r, i);
    if (r.kind == RequestKind::kDelete) p->Delete(r.obj);
  }
  EXPECT_GT(p->Report()["cost_evaluated"].get<int64_t>(), 0);
  EXPECT_EQ(p->Report()["retrains"].get<int64_t>(), 0);
}

TEST(SmartCacheModel, BadFilesAreErrorsNamingTheFile) {
  const std::string text = std::move(ReadFileToString(TrainedModel())).value();
  auto expect_error = [](const std::string& path, const std::string& needle) {
    Status st = MakeWithModel("smartcache", path);
    ASSERT_FALSE(st.ok()) << path;
    EXPECT_NE(st.message().find(path), std::string::npos) << st.message();
    EXPECT_NE(st.message().find(needle), std::string::npos) << st.message();
    EXPECT_EQ(st.message().find('\n'), std::string::npos) << st.message();
  };
  expect_error(TempPath("missing.json"), "no such file");
  const std::string trunc = TempPath("trunc.json");
  ASSERT_TRUE(WriteStringToFile(trunc, text.substr(0, text.size() / 2)).ok());
  expect_error(trunc, "malformed JSON");
  const std::string garbage = TempPath("garbage.json");
  ASSERT_TRUE(WriteStringToFile(garbage, std::string("\x01\xff\x13 garbage", 11)).ok());
  expect_error(garbage, "");
  const std::string kind = TempPath("kind.json");
  ASSERT_TRUE(WriteStringToFile(kind, R"({"format": "frugal-perf-model", "models": {}})").ok());
  expect_error(kind, "not a smartcache model");
  nlohmann::json j = nlohmann::json::parse(text);
  j["features"] = 7;
  const std::string features = TempPath("features.json");
  ASSERT_TRUE(WriteStringToFile(features, j.dump()).ok());
  expect_error(features, "features");
  // A tree whose child points back up would make XGBoost loop forever.
  j = nlohmann::json::parse(text);
  auto& tree = j["models"]["live"]["learner"]["gradient_booster"]["model"]["trees"][0];
  tree["left_children"][0] = 0;
  const std::string loop = TempPath("loop.json");
  ASSERT_TRUE(WriteStringToFile(loop, j.dump()).ok());
  expect_error(loop, "model 'live'");
}

TEST(SmartCacheModel, PoliciesWithoutAModelRefuseOne) {
  Status st = MakeWithModel("lru", TrainedModel());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("policy 'lru' takes no model file"), std::string::npos) << st.message();
  EXPECT_FALSE(MakeWithModel("glcache", TrainedModel()).ok());
}

TEST(SmartCacheModel, AnAppendKeepsTheEarlierWritesReadable) {
  // A shuffle spill (a partd file) grows by 6 appends, is read whole once
  // and deleted; 100 such files. An append keeps the bytes already
  // written, so each write's cost sample closes at the read as "read
  // again" (6 of the file's 7 samples; the read's own dies unread at the
  // delete). Were an append an overwrite, 5 of the 6 would close unread.
  constexpr int kFiles = 100, kAppends = 6;
  JobTrace job;
  for (int f = 0; f < kFiles; ++f) {
    const std::string spill = "/tmp/tmp" + std::to_string(f) + ".partd/0";
    for (int a = 0; a < kAppends; ++a) job.Add(EventKind::kWrite, spill, a * 100, 100, (a + 1) * 100);
    job.Add(EventKind::kRead, spill, 0, kAppends * 100, kAppends * 100);
    job.Add(EventKind::kDelete, spill, 0, 0, 0);
  }
  auto trace = LoadRequestTrace(job.ev);
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  PolicyOptions o;
  o.capacity_bytes = 10000;
  auto m = TrainSmartCacheModel(*trace, o);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const auto& keys = (*m)["interned"];
  const auto it = std::find(keys.begin(), keys.end(), "/tmp/tmp#.partd/#");
  ASSERT_NE(it, keys.end()) << keys.dump();
  const auto& stats = (*m)["patterns"][static_cast<size_t>(it - keys.begin())];
  const double labels = stats[0].get<double>(), read_again = stats[1].get<double>();
  EXPECT_EQ(labels, kFiles * (kAppends + 1));
  EXPECT_EQ(read_again, kFiles * kAppends);
}

// A Dask job re-run 7 times through the mount (bench/pipeline): each run
// writes the same 16 output shards and reads them for 3 epochs. Every
// shard write before was read again, and a write's features are the same
// every day but for the pattern's statistics, which drift with each label:
// predicted with the statistics of the models' own fit, the writes of days
// 6 and 7 are still rated live and kept (with drifting ones, they were
// rated dead after a refit, every shard missed its first epoch, and
// smartcache's byte miss ratio was 0.083 against LRU's 0.072).
TEST(SmartCacheModel, ADailyRunsOutputsStayLiveAcrossRefits) {
  auto trace = LoadRequestTrace("testdata/cache/recorded/dask_pipeline_100mb_7days_run2.frt");
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  const int64_t bytes = trace->footprint_bytes / 5;
  auto sc = SimulateOne(*trace, "smartcache", bytes, SimulationOptions{});
  auto lru = SimulateOne(*trace, "lru", bytes, SimulationOptions{});
  ASSERT_TRUE(sc.ok() && lru.ok());
  EXPECT_LT(sc->byte_miss_ratio, lru->byte_miss_ratio);
  EXPECT_LT(sc->byte_miss_ratio, 0.04);
}

}  // namespace
}  // namespace frugal::cache
