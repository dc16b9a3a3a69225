#include "frugal/share/jobs_json.h"

#include <gtest/gtest.h>

#include "frugal/base/file_io.h"
#include "frugal/share/test_util.h"

namespace frugal::share {
namespace {

const char* kGood = R"({
  "format": "frugal-share-jobs",
  "version": 1,
  "horizon_s": 3600,
  "services": [
    {"name": "r", "model": "resnet50", "batch_sizes": [1, 4], "slo_p99_ms": 40,
     "arrivals": {"kind": "poisson", "rate_rps": 10, "diurnal_amplitude": 0.5}},
    {"name": "b", "model": "bert", "seq": 64, "slo_p99_ms": 90,
     "arrivals": {"kind": "bursty", "rate_rps": 50, "on_s": 2, "off_s": 8}}
  ],
  "training": [
    {"name": "t", "model": "vgg16", "batch": 32, "arrival_s": 5, "duration_s": 600,
     "gpu_util": 0.7}
  ]
})";

std::string ErrorOf(const std::string& text) {
  auto r = ParseJobsJson(text, "jobs.json");
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().message();
}

TEST(JobsJson, ParsesAndRoundTrips) {
  auto w = ParseJobsJson(kGood, "jobs.json");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->services.size(), 2u);
  EXPECT_EQ(w->services[0].batch_sizes, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(w->services[0].end_s, 3600);
  EXPECT_EQ(w->services[1].arrivals.kind, ArrivalKind::kBursty);
  EXPECT_EQ(w->services[1].seq, 64);
  ASSERT_EQ(w->training.size(), 1u);
  EXPECT_DOUBLE_EQ(w->training[0].gpu_util, 0.7);
  const std::string once = JobsToJson(*w).dump();
  auto again = ParseJobsJson(once, "jobs.json");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(JobsToJson(*again).dump(), once);
}

TEST(JobsJson, MalformedJsonNamesFileAndLine) {
  const std::string m = ErrorOf("{\n  \"services\": [\n    {\"name\": }\n]}");
  EXPECT_NE(m.find("jobs.json:3: malformed JSON"), std::string::npos) << m;
}

TEST(JobsJson, BadFieldsNameTheirPath) {
  std::string t = kGood;
  auto bad = [&](const std::string& from, const std::string& to) {
    std::string s = t;
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return ErrorOf(s.replace(at, from.size(), to));
  };
  EXPECT_NE(bad("\"rate_rps\": 10", "\"rate_rps\": -1").find("$.services[0].arrivals.rate_rps"),
            std::string::npos);
  EXPECT_NE(bad("\"duration_s\": 600", "\"duration_s\": -5").find("$.training[0].duration_s"),
            std::string::npos);
  EXPECT_NE(bad("\"arrival_s\": 5", "\"arrival_s\": -5").find("$.training[0].arrival_s"),
            std::string::npos);
  EXPECT_NE(bad("\"slo_p99_ms\": 40", "\"slo_ms\": 40").find("unknown field"), std::string::npos);
  EXPECT_NE(bad("[1, 4]", "[4, 1]").find("ascending"), std::string::npos);
  EXPECT_NE(bad("\"name\": \"b\"", "\"name\": \"r\"").find("duplicate"), std::string::npos);
  EXPECT_NE(bad("\"gpu_util\": 0.7", "\"gpu_util\": 1.5").find("gpu_util"), std::string::npos);
  EXPECT_NE(bad("\"poisson\"", "\"gamma\"").find("unknown kind"), std::string::npos);
  EXPECT_NE(bad("\"version\": 1", "\"version\": 2").find("$.version: expected 1"), std::string::npos);
  EXPECT_NE(bad("\"slo_p99_ms\": 40", "\"slo_p99_ms\": 40, \"max_queue_delay_ms\": 1e308")
                .find("$.services[0].max_queue_delay_ms: above a year"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[]").find("expected an object"), std::string::npos);
  EXPECT_NE(ErrorOf("{}").find("no services"), std::string::npos);
}

// A field of another arrival kind, a bursty arrival without its periods, a
// key given twice: errors, not ignored or defaulted.
TEST(JobsJson, FieldsThatDoNotApplyAreErrors) {
  auto bad = [](const std::string& from, const std::string& to) {
    std::string s = kGood;
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return ErrorOf(s.replace(at, from.size(), to));
  };
  EXPECT_NE(bad("\"diurnal_amplitude\": 0.5", "\"on_s\": 3")
                .find("$.services[0].arrivals.on_s: unknown field"),
            std::string::npos);
  EXPECT_NE(bad("\"on_s\": 2, ", "").find("$.services[1].arrivals: missing field 'on_s'"),
            std::string::npos);
  EXPECT_NE(bad("\"off_s\": 8", "\"on_s\": 8").find("'on_s' given twice"), std::string::npos);
  EXPECT_NE(bad("\"version\": 1", "\"version\": 1, \"version\": 1").find("'version' given twice"),
            std::string::npos);
  EXPECT_NE(bad("\"kind\": \"poisson\", \"rate_rps\": 10", "\"kind\": \"trace\", \"rate_rps\": 10")
                .find("unknown field (expected file, kind)"),
            std::string::npos);
}

TEST(JobsJson, ServicesEndAtTheHorizon) {
  auto with = [](const std::string& life) {
    std::string s = kGood;
    const std::string from = "\"slo_p99_ms\": 40,";
    return ParseJobsJson(s.replace(s.find(from), from.size(), from + life), "jobs.json");
  };
  auto clamped = with("\"start_s\": 100, \"end_s\": 9000,");
  ASSERT_TRUE(clamped.ok()) << clamped.status().ToString();
  EXPECT_EQ(clamped->services[0].end_s, 3600);
  auto late = with("\"start_s\": 3600, \"end_s\": 9000,");
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.status().message().find("$.services[0].start_s: at or after horizon_s"),
            std::string::npos)
      << late.status().message();
}

TEST(JobsJson, TraceArrivalsFromAFileNextToIt) {
  const std::string dir = ::testing::TempDir();
  ASSERT_TRUE(WriteStringToFile(dir + "/times.txt", "0.5\n1.0\n2.5\n").ok());
  ASSERT_TRUE(WriteStringToFile(dir + "/bad.txt", "0.5\nx\n").ok());
  const std::string j = R"({"services": [{"name": "s", "model": "resnet50", "slo_p99_ms": 40,
      "arrivals": {"kind": "trace", "file": "FILE"}}]})";
  auto with = [&](const char* f) {
    std::string s = j;
    s.replace(s.find("FILE"), 4, f);
    return ParseJobsJson(s, dir + "/jobs.json");
  };
  auto ok = with("times.txt");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->services[0].arrivals.times_s, (std::vector<double>{0.5, 1.0, 2.5}));
  auto bad = with("bad.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bad.txt:2:"), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace frugal::share
