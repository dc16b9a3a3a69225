#include "frugal/cache/policies/resident_set.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace frugal::cache {
namespace {

// DistinctCandidates keeps exactly the residents Candidates draws with the
// same seed, each once, in the order first drawn.
TEST(ResidentSetTest, DistinctCandidatesIsTheDrawWithoutRepeats) {
  ResidentSet a(5000, 7), b(5000, 7);
  for (uint32_t x = 0; x < 300; ++x) {
    a.Insert(x * 13);
    b.Insert(x * 13);
  }
  a.Erase(13);
  b.Erase(13);
  std::vector<uint32_t> drawn, distinct;
  for (int round = 0; round < 20; ++round) {
    a.Candidates(256, &drawn);
    b.DistinctCandidates(256, &distinct);
    ASSERT_EQ(drawn.size(), 256u);
    std::vector<uint32_t> first;  // the draw, first occurrences only
    for (uint32_t x : drawn) {
      if (std::find(first.begin(), first.end(), x) == first.end()) first.push_back(x);
    }
    EXPECT_LT(first.size(), drawn.size());  // 256 of 299 with replacement repeats some
    EXPECT_EQ(distinct, first);
    EXPECT_EQ(std::count(distinct.begin(), distinct.end(), 13u), 0);
  }
}

TEST(ResidentSetTest, DistinctCandidatesTakesAllWhenFew) {
  ResidentSet s(10, 1);
  for (uint32_t x : {4u, 2u, 9u}) s.Insert(x);
  std::vector<uint32_t> out;
  s.DistinctCandidates(8, &out);
  EXPECT_EQ(out, (std::vector<uint32_t>{4, 2, 9}));
  s.DistinctCandidates(3, &out);
  EXPECT_EQ(out.size(), 3u);
}

}  // namespace
}  // namespace frugal::cache
