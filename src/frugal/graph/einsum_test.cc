#include "frugal/graph/einsum.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

double Flops(const std::string& eq, const std::vector<std::vector<int64_t>>& shapes) {
  Result<double> f = EinsumFlops(eq, shapes);
  EXPECT_TRUE(f.ok()) << eq << ": " << f.status().message();
  return f.ok() ? *f : -1;
}

TEST(EinsumFlops, BatchedMatMulIsTwiceTheProductOfAllLabels) {
  // Same count as a bmm: 2 * |Y| * K.
  EXPECT_DOUBLE_EQ(Flops("bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}), 2.0 * (2 * 3 * 5) * 4);
  EXPECT_DOUBLE_EQ(Flops("bhqd,bhkd->bhqk", {{2, 4, 8, 16}, {2, 4, 8, 16}}),
                   2.0 * (2 * 4 * 8 * 8) * 16);
}

TEST(EinsumFlops, ImplicitOutputKeepsLabelsUsedOnce) {
  EXPECT_DOUBLE_EQ(Flops("ij,jk", {{3, 4}, {4, 5}}), 2.0 * 3 * 4 * 5);
  // "ii" alone: i is used twice, so the output is a scalar (the trace).
  EXPECT_DOUBLE_EQ(Flops("ii", {{5, 5}}), 5);
}

TEST(EinsumFlops, ProductsWithoutSumsCostOneMultiply) {
  EXPECT_DOUBLE_EQ(Flops("ij,ij->ij", {{3, 4}, {3, 4}}), 12);
  EXPECT_DOUBLE_EQ(Flops("i,j->ij", {{3}, {4}}), 12);
  EXPECT_DOUBLE_EQ(Flops("ij,ij->", {{3, 4}, {3, 4}}), 24);
}

TEST(EinsumFlops, OneOperandSumsPermutesOrTakesDiagonal) {
  EXPECT_DOUBLE_EQ(Flops("ij->ji", {{3, 4}}), 0);
  EXPECT_DOUBLE_EQ(Flops("ii->i", {{5, 5}}), 0);
  EXPECT_DOUBLE_EQ(Flops("ij->j", {{3, 4}}), 12);
  EXPECT_DOUBLE_EQ(Flops("...->", {{2, 3}}), 6);
}

TEST(EinsumFlops, EllipsisBroadcastsLeadingDims) {
  // Ranks 2 and 0 under "...": broadcast to [7, 2].
  EXPECT_DOUBLE_EQ(Flops("...ij,...jk->...ik", {{7, 2, 3, 4}, {4, 5}}),
                   2.0 * 7 * 2 * 3 * 4 * 5);
  EXPECT_DOUBLE_EQ(Flops("...i,...i->...i", {{1, 3}, {5, 3}}), 15);
  // Implicit output keeps the ellipsis dims.
  EXPECT_DOUBLE_EQ(Flops("b...i,b...i", {{2, 6, 3}, {2, 6, 3}}), 2.0 * 2 * 6 * 3);
  EXPECT_DOUBLE_EQ(Flops("a...b -> b...a", {{2, 3, 4, 5}}), 0);
}

TEST(EinsumFlops, ThreeOperandsContractLeftToRight) {
  // (ab,bc -> ac): 2*2*3*4; (ac,cd -> ad): 2*2*4*5.
  EXPECT_DOUBLE_EQ(Flops("ab,bc,cd->ad", {{2, 3}, {3, 4}, {4, 5}}), 48 + 80);
}

TEST(EinsumFlops, MalformedEquationsAreErrors) {
  EXPECT_FALSE(EinsumFlops("ij,jk->ik", {{3, 4}}).ok());           // operands
  EXPECT_FALSE(EinsumFlops("ij", {{3, 4, 5}}).ok());               // rank
  EXPECT_FALSE(EinsumFlops("i.j", {{3, 4}}).ok());                 // lone dot
  EXPECT_FALSE(EinsumFlops("ij->ik", {{3, 4}}).ok());              // new label
  EXPECT_FALSE(EinsumFlops("ij->ii", {{3, 4}}).ok());              // repeat
  EXPECT_FALSE(EinsumFlops("ij,jk->ik", {{3, 4}, {5, 6}}).ok());   // j: 4 vs 5
  EXPECT_FALSE(EinsumFlops("i1", {{3, 4}}).ok());                  // character
  EXPECT_FALSE(EinsumFlops("......", {{3}}).ok());                 // two ellipses
}

TEST(EinsumOutputShape, FollowsTheOutputTermOrImplicitOrder) {
  using Shape = std::vector<int64_t>;
  EXPECT_EQ(*EinsumOutputShape("bhqd,bhkd->bhqk", {{2, 4, 8, 16}, {2, 4, 7, 16}}),
            (Shape{2, 4, 8, 7}));
  EXPECT_EQ(*EinsumOutputShape("...qk,...kd->...qd", {{2, 4, 8, 7}, {4, 7, 16}}),
            (Shape{2, 4, 8, 16}));
  EXPECT_EQ(*EinsumOutputShape("ki,jk", {{3, 5}, {6, 3}}), (Shape{5, 6}));  // i, j
  EXPECT_EQ(*EinsumOutputShape("a...b->b...a", {{2, 3, 4, 5}}), (Shape{5, 3, 4, 2}));
  EXPECT_EQ(*EinsumOutputShape("ij->", {{2, 3}}), Shape{});
  EXPECT_FALSE(EinsumOutputShape("ij->ik", {{2, 3}}).ok());
}

}  // namespace
}  // namespace frugal
