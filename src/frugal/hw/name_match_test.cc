#include "frugal/hw/name_match.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace frugal {
namespace {

TEST(EditDistance, CountsInsertsDeletesAndSubstitutions) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("", "ab"), 2u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("a100", "a100"), 0u);
  EXPECT_EQ(EditDistance("h100", "h200"), 1u);
}

std::vector<NameCandidate> Gpus() {
  return {{"K80", "K80"},
          {"A100-PCIE-40GB", "A100-PCIE-40GB"},
          {"A100-SXM4-40GB", "A100-SXM4-40GB"},
          {"NVIDIA A100-SXM4-40GB", "A100-SXM4-40GB"},
          {"A100-SXM4-80GB", "A100-SXM4-80GB"},
          {"H100-SXM5-80GB", "H100-SXM5-80GB"},
          {"T4", "T4"}};
}

TEST(ClosestNames, PrefersSharedTokensThenEditDistance) {
  std::vector<std::string> got = ClosestNames("A100 40G", Gpus(), 3);
  ASSERT_EQ(got.size(), 3u);
  // a, 100 and 40 shared by both 40 GB parts; the 80 GB one shares two.
  EXPECT_EQ(got[0], "A100-PCIE-40GB");
  EXPECT_EQ(got[1], "A100-SXM4-40GB");
  EXPECT_EQ(got[2], "A100-SXM4-80GB");
}

TEST(ClosestNames, ListsEachEntryOnceWhateverItsSpellings) {
  std::vector<std::string> got = ClosestNames("nvidia a100 sxm4", Gpus(), 10);
  EXPECT_EQ(got.size(), 6u);
  EXPECT_EQ(got[0], "A100-SXM4-40GB");
  EXPECT_EQ(std::count(got.begin(), got.end(), "A100-SXM4-40GB"), 1);
}

TEST(ClosestNames, TyposFindTheNearKey) {
  EXPECT_EQ(ClosestNames("H10O-SXM5-80GB", Gpus(), 1),
            std::vector<std::string>{"H100-SXM5-80GB"});
  EXPECT_EQ(ClosestNames("T5", Gpus(), 1), std::vector<std::string>{"T4"});
}

TEST(ClosestNames, EmptyCandidatesGiveNothingAndOrderIsStable) {
  EXPECT_TRUE(ClosestNames("x", {}, 5).empty());
  EXPECT_EQ(ClosestNames("zzz", Gpus(), 7), ClosestNames("zzz", Gpus(), 7));
}

}  // namespace
}  // namespace frugal
