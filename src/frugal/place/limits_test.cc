// Bad or huge inputs and time limits: absurd numbers are refused before a
// solver sees them, the transfer envelope equals the brute-force minimum,
// and every placer, the bounds and coarsening return by their deadline.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "frugal/place/bounds.h"
#include "frugal/place/coarsen.h"
#include "frugal/place/lp_model.h"
#include "frugal/place/placer.h"
#include "frugal/place/quiet_output.h"
#include "frugal/place/test_problems.h"

namespace frugal::place {
namespace {

double BruteMinMs(const Topology& t, int64_t bytes, double measured) {
  double best = std::numeric_limits<double>::infinity();
  for (int a = 0; a < t.num_devices; ++a) {
    for (int b = 0; b < t.num_devices; ++b) {
      if (a != b) best = std::min(best, t.TransferMs(bytes, measured, a, b));
    }
  }
  return std::isinf(best) ? 0 : best;
}

TEST(TransferEnvelope, EqualsTheMinimumOverDevicePairs) {
  // Three routes: fast with high latency, slow with low latency, and a
  // two-hop one that is never the cheapest.
  auto t = ParseTopology("t.json", R"({"devices": 3, "measured_scale": 2, "links": [
      {"name": "fast", "bw_gbps": 100, "latency_us": 50, "pairs": [[0, 1], [1, 0]]},
      {"name": "slow", "bw_gbps": 1, "latency_us": 1, "pairs": [[0, 2], [2, 0]]},
      {"name": "mid", "bw_gbps": 10, "latency_us": 10, "pairs": [[1, 2], [2, 1]]},
      {"name": "hop", "bw_gbps": 5, "latency_us": 100, "pairs": [[1, 2]]}]})", 3);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  for (const Topology& topo : {*t, NvlinkTopology(4), PcieTopology(3), NvlinkTopology(1)}) {
    const TransferEnvelope env(topo);
    for (int64_t bytes : {int64_t{0}, int64_t{1}, int64_t{1000}, int64_t{10'000}, int64_t{54'444},
                          int64_t{1} << 20, int64_t{1} << 30, int64_t{1} << 40}) {
      EXPECT_EQ(env.MinMs(bytes, -1), BruteMinMs(topo, bytes, -1)) << topo.name << " " << bytes;
    }
    EXPECT_EQ(env.MinMs(123, 0.75), BruteMinMs(topo, 123, 0.75)) << topo.name;
  }
}

TEST(TransferEnvelope, ThousandGpusAreCheap) {
  // MinEdgeTransferMs tried all K^2 pairs per call: 35 s for --gpus 1000.
  PlacementProblem p = testing::TrainingLike(30, 1000);
  ASSERT_EQ(p.name, "test");
  auto t0 = std::chrono::steady_clock::now();
  double sum = 0;
  for (int r = 0; r < 1000; ++r) {
    for (int e = 0; e < static_cast<int>(p.edges.size()); ++e) sum += p.MinEdgeTransferMs(e);
  }
  EXPECT_GT(sum, 0);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5);
}

TEST(Limits, AbsurdTimesAndDeviceCountsAreRefused) {
  PlacementProblem p = testing::MakeProblem({1, 1e100}, {{0, 1, 1}}, 2);
  EXPECT_NE(p.name.find("absurd time 1e+100 ms"), std::string::npos) << p.name;
  p = testing::MakeProblem({1, 1}, {{0, 1, 1e12}}, 2);
  EXPECT_NE(p.name.find("absurd transfer cost"), std::string::npos) << p.name;
  p = testing::MakeProblem({1, kMaxSaneTimeMs}, {{0, 1, kMaxSaneTimeMs}}, 2);
  EXPECT_EQ(p.name, "test");
  EXPECT_FALSE(MakeTopology("nvlink", kMaxPlaceDevices + 1).ok());
  EXPECT_TRUE(MakeTopology("pcie", kMaxPlaceDevices).ok());
}

TEST(Limits, AbsurdLinkFiguresAreRefused) {
  for (const char* bad : {
           R"({"links": [{"bw_gbps": 1e-300, "pairs": [[0, 1], [1, 0]]}]})",
           R"({"links": [{"bw_gbps": 10, "latency_us": 1e300, "pairs": [[0, 1], [1, 0]]}]})",
           R"({"measured_scale": 1e300, "links": [{"bw_gbps": 10, "pairs": [[0, 1], [1, 0]]}]})",
       }) {
    auto t = ParseTopology("t.json", bad, 2);
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_EQ(t.status().message().rfind("t.json: ", 0), 0u) << t.status().message();
  }
}

TEST(Limits, LpWithAbsurdNumbersIsAnErrorNotAnAbort) {
  LpModel lp;
  int x = lp.AddColumn(0, kInf, 1);
  int y = lp.AddColumn(0, 1, 0);
  lp.AddRow({{x, 1}, {y, -1e100}}, 1e100, kInf);
  auto r = lp.SolveLp();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(lp.SolveMip({}).ok());
  LpModel nan;
  nan.AddColumn(0, std::nan(""), 1);
  EXPECT_FALSE(nan.SolveLp().ok());
}

TEST(Limits, QuietOutputSilencesStdout) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("frugal_quiet_" + std::to_string(::getpid()))).string();
  std::fflush(stdout);
  const int saved = ::dup(1);
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  ::dup2(::fileno(f), 1);
  {
    QuietOutput quiet;
    std::printf("library chatter\n");
    QuietOutput nested;
    std::printf("more\n");
  }
  std::printf("ours\n");
  std::fflush(stdout);
  ::dup2(saved, 1);
  ::close(saved);
  std::fclose(f);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(path);
  EXPECT_EQ(text, "ours\n");
}

TEST(Deadline, PassedDeadlineStopsCoarseningAndCostlyBounds) {
  PlacementProblem p = testing::TrainingLike(20, 2);
  ASSERT_EQ(p.name, "test");
  const Deadline past = Deadline::In(0);
  EXPECT_TRUE(past.Passed());
  EXPECT_FALSE(Deadline().Passed());
  EXPECT_FALSE(Deadline::In(INFINITY).Passed());
  CoarsenOptions co;
  co.target_nodes = 12;
  co.max_group_mem_bytes = 1e9;
  co.deadline = past;
  auto c = Coarsen(p, co);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->coarse.num_ops(), p.num_ops());  // no merge, still a valid coarsening
  co.deadline = Deadline();
  EXPECT_LE(Coarsen(p, co)->coarse.num_ops(), 12);
  LowerBounds quick = ComputeLowerBounds(p, past);
  LowerBounds full = ComputeLowerBounds(p);
  EXPECT_EQ(quick.chain_ms, 0);
  EXPECT_EQ(quick.memory_path_ms, 0);
  EXPECT_EQ(quick.comm_ms, full.comm_ms);
  EXPECT_EQ(quick.critical_path_ms, full.critical_path_ms);
  EXPECT_LE(quick.best_ms(), full.best_ms());
}

class PlacerDeadline : public ::testing::TestWithParam<std::string> {};

TEST_P(PlacerDeadline, PassedDeadlineStillGivesAFeasiblePlacement) {
  PlacementProblem p = testing::TrainingLike(12, 64);
  ASSERT_EQ(p.name, "test");
  PlaceOptions o;
  o.deadline = Deadline::In(0);
  auto t0 = std::chrono::steady_clock::now();
  auto r = RunPlacer(GetParam(), p, o);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_NE(r->status, SolveStatus::kInfeasible) << r->note;
  SimResult s = Simulate(p, r->placement);
  EXPECT_TRUE(s.feasible) << s.reason;
  EXPECT_LT(secs, 5);
  if (GetParam() == "heft" || GetParam() == "m-etf" || GetParam() == "m-sct" ||
      GetParam() == "pesto") {
    EXPECT_EQ(r->status, SolveStatus::kTimeLimit) << GetParam();
    EXPECT_NE(r->note.find("time limit"), std::string::npos) << r->note;
  }
}

INSTANTIATE_TEST_SUITE_P(AllPlacers, PlacerDeadline, ::testing::ValuesIn([] {
                           std::vector<std::string> out;
                           for (const auto& row : Placers()) out.push_back(row.name);
                           return out;
                         }()),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (char& c : s) if (c == '-') c = '_';
                           return s;
                         });

TEST(PlacerDeadline, TimeLimitCoversPestoWithManyGpus) {
  PlacementProblem p = testing::TrainingLike(40, 512);
  ASSERT_EQ(p.name, "test");
  PlaceOptions o;
  o.time_limit_s = 1;
  auto t0 = std::chrono::steady_clock::now();
  auto r = RunPlacer("pesto", p, o);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(Simulate(p, r->placement).feasible);
  EXPECT_LT(secs, 6) << r->note;
}

}  // namespace
}  // namespace frugal::place
