// The online cost labels smartcache learns from.
#include "frugal/cache/policies/cost_labeler.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace frugal::cache {
namespace {

constexpr int64_t kHorizonUs = 1000;
constexpr double kNeverCost = 1e9;

struct Labels {
  std::vector<std::pair<int, double>> got;  // (payload, cost) in closing order
  auto Done() {
    return [this](int& payload, double cost) { got.push_back({payload, cost}); };
  }
};

TEST(CostLabeler, AWholeReReadCostsTheTicksUntilIt) {
  CostLabeler<int> c(4, kHorizonUs, kNeverCost);
  Labels l;
  c.Open(1, 0, 10, 100, 7);
  c.Read(1, 17, 100, l.Done());
  ASSERT_EQ(l.got.size(), 1u);
  EXPECT_EQ(l.got[0].first, 7);
  EXPECT_DOUBLE_EQ(l.got[0].second, 7);
}

TEST(CostLabeler, SlicesCostTheBestPrefixAndCloseAtTheFullSize) {
  // Quarter slices at ticks 1, 2, 10, 11: costs 4, 4, 13.3, 11 per size.
  CostLabeler<int> c(4, kHorizonUs, kNeverCost);
  Labels l;
  c.Open(2, 0, 0, 100, 1);
  for (int64_t t : {1, 2, 10}) c.Read(2, t, 25, l.Done());
  EXPECT_TRUE(l.got.empty());
  c.Read(2, 11, 25, l.Done());
  ASSERT_EQ(l.got.size(), 1u);
  EXPECT_DOUBLE_EQ(l.got[0].second, 4);
}

TEST(CostLabeler, EachAccessIsItsOwnSample) {
  // Written at 0, half read at 4 (a new sample), the rest at 6: the write's
  // sample closes at 6 (cost 6), the read's stays open (50 of 100 bytes).
  CostLabeler<int> c(4, kHorizonUs, kNeverCost);
  Labels l;
  c.Open(0, 0, 0, 100, 1);
  c.Read(0, 4, 50, l.Done());
  c.Open(0, 4, 4, 100, 2);
  c.Read(0, 6, 50, l.Done());
  ASSERT_EQ(l.got.size(), 1u);
  EXPECT_EQ(l.got[0].first, 1);
  EXPECT_DOUBLE_EQ(l.got[0].second, 6);
  EXPECT_EQ(c.kept_samples(), 2u);  // the closed one leaves with Advance
}

TEST(CostLabeler, DeathClosesWithWhatWasSeen) {
  CostLabeler<int> c(4, kHorizonUs, kNeverCost);
  Labels l;
  c.Open(3, 0, 0, 100, 1);  // never read: costs `never`
  c.Open(2, 0, 0, 100, 2);  // read a quarter at tick 5: 20
  c.Read(2, 5, 25, l.Done());
  c.Death(3, l.Done());
  c.Death(2, l.Done());
  ASSERT_EQ(l.got.size(), 2u);
  EXPECT_EQ(l.got[0], (std::pair<int, double>{1, kNeverCost}));
  EXPECT_EQ(l.got[1], (std::pair<int, double>{2, 20}));
  c.Death(2, l.Done());  // nothing left open
  EXPECT_EQ(l.got.size(), 2u);
}

TEST(CostLabeler, TheHorizonCensorsOldSamplesOnly) {
  CostLabeler<int> c(4, kHorizonUs, kNeverCost);
  Labels l;
  c.Open(1, 0, 0, 100, 1);
  c.Open(1, 600, 5, 100, 2);
  c.Advance(kHorizonUs - 1, l.Done());
  EXPECT_TRUE(l.got.empty());
  c.Advance(kHorizonUs, l.Done());
  ASSERT_EQ(l.got.size(), 1u);
  EXPECT_EQ(l.got[0], (std::pair<int, double>{1, kNeverCost}));
  EXPECT_EQ(c.kept_samples(), 1u);
  c.Read(1, 9, 100, l.Done());  // only the second sample sees this read
  ASSERT_EQ(l.got.size(), 2u);
  EXPECT_EQ(l.got[1], (std::pair<int, double>{2, 4}));
}

}  // namespace
}  // namespace frugal::cache
