#include "frugal/report/report.h"

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "frugal/base/file_io.h"
#include "frugal/report/test_text.h"

namespace frugal::report {
namespace {

const std::string kDir = std::string(FRUGAL_SOURCE_ROOT) + "/testdata/report/";
const std::vector<std::string> kAll = {"advise", "predict", "predict_generation", "perf_score", "place", "schedule",
                                       "share_frag", "share_simulate", "cache_simulate", "pipeline"};

std::vector<std::string> Paths(const std::vector<std::string>& names) {
  std::vector<std::string> p;
  for (const auto& n : names) p.push_back(kDir + n + ".json");
  return p;
}

std::string Temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "report_" + std::to_string(::getpid()) + "_" + name;
  EXPECT_TRUE(WriteStringToFile(path, text).ok());
  return path;
}

using testing::CountOccurrences;

TEST(Report, EveryKindRendersIntoItsSystemsSection) {
  Result<Report> r = BuildReport(Paths(kAll));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->sections, (std::vector<std::string>{"ceer", "pesto", "gshare", "smartcache"}));
  for (const char* h : {"advise: llama2_7b.json", "predict: t5_small.json on p3.8xlarge",
                        "predict (generation): llama2_70b.json on p4de.24xlarge", "perf score: ",
                        "place: gnmt_training on 4 GPUs", "schedule (Chrome trace)", "share frag: ",
                        "share simulate: mixed workload", "cache simulate: dask_pipeline_100mb.frt",
                        "mounted cache under a Dask pipeline"}) {
    EXPECT_NE(r->html.find("<h3>" + std::string(h)), std::string::npos) << h;
  }
  EXPECT_GE(r->headlines.size(), kAll.size());
  // Self-contained: no scripts, no external resources.
  EXPECT_EQ(r->html.find("<script"), std::string::npos);
  EXPECT_EQ(r->html.find("http://"), r->html.find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(r->html.find("https://"), std::string::npos);
  EXPECT_EQ(r->html.find("nan"), std::string::npos);
  EXPECT_GE(CountOccurrences(r->html, "<svg "), 15);
  EXPECT_EQ(CountOccurrences(r->html, "<svg "), CountOccurrences(r->html, "</svg>"));
}

TEST(Report, SameInputsSameBytes) {
  Result<Report> a = BuildReport(Paths(kAll)), b = BuildReport(Paths(kAll));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->html, b->html);
}

// share frag: the values are medians over seeds, and a policy's own
// decision (gshare's chosen descent) is said in the text.
TEST(Report, ShareFragSaysMediansAndGsharesDecision) {
  const std::string path = Temp("frag.json", R"json({"num_nodes": 2, "cluster_gpus": 8, "arrived_pct": [50, 100],
    "results": [{"policy": "fgd", "unallocated_gpu_pct": [50, 6], "frag_gpu_pct": [1, 2], "failed_pods": 3},
                {"policy": "gshare", "unallocated_gpu_pct": [50, 5], "frag_gpu_pct": [1, 1], "failed_pods": 2,
                 "decision": "blend descent (rollouts)"}]})json");
  Result<Report> r = BuildReport({path});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE(r->html.find("gshare chose the blend descent (rollouts)."), std::string::npos);
  EXPECT_NE(r->html.find("Median over seeds"), std::string::npos);
  EXPECT_NE(r->html.find("failed pods (median)"), std::string::npos);
  EXPECT_EQ(r->html.find("fgd chose"), std::string::npos);
}

TEST(Report, AdviseMarksTheRecommendationRulesAndDeadline) {
  Result<Report> r = BuildReport(Paths({"advise"}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE(r->html.find(">deadline 720 h</text>"), std::string::npos);
  for (const char* s : {"data-name=\"recommended\"", "data-name=\"rule: newest GPU\"",
                        "data-name=\"rule: cheapest instance\"", "Pareto frontier"}) {
    EXPECT_NE(r->html.find(s), std::string::npos) << s;
  }
  EXPECT_NE(r->headlines.at(0).find("p5en.48xlarge"), std::string::npos) << r->headlines.at(0);
}

TEST(Report, ScheduleHasARowPerGpuAndPhases) {
  Result<Report> r = BuildReport(Paths({"schedule"}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (const char* s : {">GPU 0</text>", ">GPU 3</text>", ">forward</text>", ">backward</text>", ">transfer</text>"}) {
    EXPECT_NE(r->html.find(s), std::string::npos) << s;
  }
}

TEST(Report, UnreadableOrForeignFilesAreOneLineErrorsNamingThem) {
  const std::string missing = kDir + "no_such.json";
  Result<Report> r = BuildReport({missing});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(missing), std::string::npos);

  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"garbage.json", "{\"configs\": [1, 2"}, {"foreign.json", "{\"a\": 1}"}, {"array.json", "[1, 2, 3]"},
           {"empty.json", ""}}) {
    const std::string path = Temp(name, text);
    Result<Report> bad = BuildReport({kDir + "place.json", path});
    ASSERT_FALSE(bad.ok()) << name;
    EXPECT_NE(bad.status().message().find(path), std::string::npos) << bad.status().message();
    EXPECT_EQ(bad.status().message().find('\n'), std::string::npos);
  }
  EXPECT_FALSE(BuildReport({}).ok());
  EXPECT_FALSE(BuildReport({"/dev/zero"}).ok());
}

TEST(Report, MistypedFieldsAreErrorsNotCrashes) {
  const std::string path = Temp("mistyped.json", R"({"configs": 5, "recommended": null, "plans_priced": 3})");
  Result<Report> r = BuildReport({path});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a valid advise result"), std::string::npos) << r.status().message();
}

// Every fixture with each top-level field dropped, nulled or made a string:
// a page or one error line, never a crash.
TEST(Report, DamagedFixturesNeverCrash) {
  for (const auto& name : kAll) {
    Result<nlohmann::json> doc = ReadJsonFile(kDir + name + ".json");
    ASSERT_TRUE(doc.ok());
    for (const auto& [key, value] : doc->items()) {
      for (int how = 0; how < 3; ++how) {
        nlohmann::json d = *doc;
        if (how == 0) d.erase(key);
        if (how == 1) d[key] = nullptr;
        if (how == 2) d[key] = "x";
        Result<Report> r = BuildReport({Temp("damaged.json", d.dump())});
        if (!r.ok()) {
          EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
        }
      }
    }
  }
}

// The same one level down: a field of every entry of a top-level list
// (results[], cells[], configs[], ...) dropped, nulled, made a string or
// made absurdly large, in every entry at once.
TEST(Report, DamagedEntriesNeverCrash) {
  for (const auto& name : kAll) {
    Result<nlohmann::json> doc = ReadJsonFile(kDir + name + ".json");
    ASSERT_TRUE(doc.ok());
    for (const auto& [list, entries] : doc->items()) {
      if (!entries.is_array() || entries.empty() || !entries[0].is_object()) continue;
      for (const auto& [key, value] : entries[0].items()) {
        for (int how = 0; how < 4; ++how) {
          nlohmann::json d = *doc;
          for (auto& e : d[list]) {
            if (!e.is_object()) continue;
            if (how == 0) e.erase(key);
            if (how == 1) e[key] = nullptr;
            if (how == 2) e[key] = "x";
            if (how == 3) e[key] = 1e308;
          }
          Result<Report> r = BuildReport({Temp("damaged_entry.json", d.dump())});
          if (!r.ok()) {
            EXPECT_EQ(r.status().message().find('\n'), std::string::npos) << name << " " << list << "." << key;
          }
        }
      }
    }
  }
}

TEST(Report, AStringWhereANumberBelongsIsAnErrorNamingTheField) {
  Result<nlohmann::json> doc = ReadJsonFile(kDir + "cache_simulate.json");
  ASSERT_TRUE(doc.ok());
  for (const char* how : {"x", "null"}) {
    nlohmann::json d = *doc;
    for (auto& e : d["results"]) e["cache_fraction"] = std::string(how) == "x" ? nlohmann::json("x") : nlohmann::json();
    Result<Report> r = BuildReport({Temp("cache_fraction.json", d.dump())});
    ASSERT_FALSE(r.ok()) << how;
    EXPECT_NE(r.status().message().find("\"cache_fraction\""), std::string::npos) << r.status().message();
  }
  Result<nlohmann::json> advise = ReadJsonFile(kDir + "advise.json");
  ASSERT_TRUE(advise.ok());
  for (auto& c : (*advise)["configs"]) c["hours"] = "x";
  Result<Report> r = BuildReport({Temp("hours.json", advise->dump())});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("\"hours\" is string, not a number"), std::string::npos) << r.status().message();
}

TEST(Report, WritesIndexHtmlAndRefusesAFileInTheWay) {
  Result<Report> r = BuildReport(Paths({"place"}));
  ASSERT_TRUE(r.ok());
  const std::string dir = ::testing::TempDir() + "report_out_" + std::to_string(::getpid());
  Result<std::string> path = WriteReport(*r, dir + "/nested");
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  EXPECT_EQ(*path, dir + "/nested/index.html");
  EXPECT_EQ(*ReadFileToString(*path), r->html);
  const std::string file = Temp("in_the_way", "x");
  Result<std::string> bad = WriteReport(*r, file);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(file), std::string::npos);
  std::filesystem::remove_all(dir);
}

// cache simulate --breakdown: one stacked bar per policy at the middle
// size, named keys where the policies differ; a mistyped breakdown is an
// error naming the file, and a document without one has no such figure.
TEST(Report, CacheBreakdownFigure) {
  Result<Report> r = BuildReport({kDir + "cache_simulate.json"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE(r->html.find("Where each policy's byte misses are, by pattern (cache 10% of the footprint)"),
            std::string::npos);
  EXPECT_NE(r->html.find("/tmp/tmp*.partd/#"), std::string::npos);
  EXPECT_NE(r->html.find("other "), std::string::npos);

  Result<nlohmann::json> doc = ReadJsonFile(kDir + "cache_simulate.json");
  ASSERT_TRUE(doc.ok());
  nlohmann::json plain = *doc;
  for (auto& res : plain["results"]) res.erase("breakdown");
  r = BuildReport({Temp("plain.json", plain.dump())});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->html.find("Where each policy"), std::string::npos);

  nlohmann::json bad = *doc;
  for (auto& res : bad["results"]) res["breakdown"]["rows"] = "x";
  const std::string path = Temp("bad_breakdown.json", bad.dump());
  r = BuildReport({path});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(path), std::string::npos);
}

TEST(Report, CacheCurvesSvgIsOneFileWithBothPanels) {
  Result<nlohmann::json> doc = ReadJsonFile(kDir + "cache_simulate.json");
  ASSERT_TRUE(doc.ok());
  const std::string svg = CacheCurvesSvg(*doc, "curves");
  EXPECT_EQ(svg.rfind("<svg xmlns", 0), 0u);
  EXPECT_NE(svg.find("curves: miss ratio"), std::string::npos);
  EXPECT_NE(svg.find("curves: byte miss ratio"), std::string::npos);
  EXPECT_EQ(CountOccurrences(svg, "<svg"), 3);
  EXPECT_EQ(CountOccurrences(svg, "</svg>"), 3);
}

}  // namespace
}  // namespace frugal::report
