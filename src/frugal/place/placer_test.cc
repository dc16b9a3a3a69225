// Conformance suite: every registered placer, on every test problem, returns
// a placement the simulator accepts (or says it is infeasible), is
// deterministic and never beats the lower bound; pesto never loses to the
// best baseline.
#include "frugal/place/placer.h"

#include <gtest/gtest.h>

#include "frugal/place/bounds.h"
#include "frugal/place/test_problems.h"

namespace frugal::place {
namespace {

std::vector<PlacementProblem> Problems() {
  return {testing::ForkJoin(6, 2, 0.3, 3), testing::ForkJoin(5, 1, 0.1, 2, "pcie"),
          testing::TrainingLike(8, 2), testing::TrainingLike(10, 4),
          testing::TrainingLike(10, 2, 900),  // forced split
          testing::MakeProblem({1, 2, 3}, {{0, 1, 1}, {1, 2, 1}}, 1)};
}

class PlacerConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(PlacerConformance, ProducesFeasibleDeterministicPlacements) {
  PlaceOptions o;
  o.time_limit_s = 2;
  for (const PlacementProblem& p : Problems()) {
    ASSERT_EQ(p.name, "test");
    auto a = RunPlacer(GetParam(), p, o);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    if (a->status == SolveStatus::kInfeasible) {
      EXPECT_FALSE(a->note.empty());
      continue;
    }
    SimResult s = Simulate(p, a->placement);
    ASSERT_TRUE(s.feasible) << GetParam() << ": " << s.reason;
    EXPECT_GE(s.makespan_ms, ComputeLowerBounds(p).best_ms() - 1e-9);
    if (GetParam() != "pesto") {  // pesto's refinement is bounded by time
      auto b = RunPlacer(GetParam(), p, o);
      ASSERT_TRUE(b.ok());
      EXPECT_EQ(a->placement.device, b->placement.device);
      EXPECT_EQ(a->placement.order, b->placement.order);
    }
  }
}

std::vector<std::string> Names() {
  std::vector<std::string> out;
  for (const auto& row : Placers()) out.push_back(row.name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllPlacers, PlacerConformance, ::testing::ValuesIn(Names()),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (char& c : s) if (c == '-') c = '_';
                           return s;
                         });

TEST(Pesto, NeverWorseThanTheBestBaseline) {
  PlaceOptions o;
  o.time_limit_s = 3;
  for (const PlacementProblem& p : Problems()) {
    double best = 1e300;
    for (const auto& row : Placers()) {
      if (std::string(row.name) == "pesto") continue;
      auto r = RunPlacer(row.name, p, o);
      ASSERT_TRUE(r.ok());
      if (r->status != SolveStatus::kInfeasible) {
        best = std::min(best, Simulate(p, r->placement).makespan_ms);
      }
    }
    auto r = RunPlacer("pesto", p, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_LE(Simulate(p, r->placement).makespan_ms, best + 1e-9);
  }
}

TEST(Pesto, SolvesTheForkJoinOptimallyOnTwoDevices) {
  // Two branches of 4 ms, transfers 0.5 ms: one branch moves to GPU 1 and
  // the join follows it: 1 + 0.5 + 4 + 1 = 6.5 ms against 10 on one GPU.
  PlacementProblem p = testing::MakeProblem(
      {1, 4, 4, 1}, {{0, 1, 0.5}, {0, 2, 0.5}, {1, 3, 0.5}, {2, 3, 0.5}}, 2);
  PlaceOptions o;
  o.time_limit_s = 5;
  auto r = RunPlacer("pesto", p, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, SolveStatus::kOptimal);
  EXPECT_NEAR(Simulate(p, r->placement).makespan_ms, 6.5, 1e-6);
  EXPECT_TRUE(r->bound_is_global);
  EXPECT_NEAR(r->bound_ms, 6.5, 1e-4);
}

TEST(Placers, UnknownNameIsNotFound) {
  auto r = RunPlacer("nope", testing::ForkJoin(2, 1, 1, 2), {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace frugal::place
