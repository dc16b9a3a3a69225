#include "frugal/graph/op_graph.h"

#include <cmath>

#include <gtest/gtest.h>

#include "frugal/graph/test_graphs.h"

namespace frugal {
namespace {

TEST(OpGraph, TinyGraphValidatesAndOrders) {
  OpGraph g = testing::TinyConvNet();
  ASSERT_TRUE(g.Validate().ok()) << g.Validate().ToString();
  auto order = g.TopologicalOrder();
  ASSERT_TRUE(order.ok());
  EXPECT_EQ(*order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(OpGraph, CycleIsAnErrorNamingAnOpOnIt) {
  OpGraph g = testing::TinyConvNet();
  g.AddEdge(3, 1, 4, "back");  // fc -> relu closes relu -> flatten -> fc
  Status st = g.Validate();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("cycle"), std::string::npos);
  bool names_cycle_op = st.message().find("'relu'") != std::string::npos ||
                        st.message().find("'flatten'") != std::string::npos ||
                        st.message().find("'fc'") != std::string::npos;
  EXPECT_TRUE(names_cycle_op) << st.message();
}

TEST(OpGraph, DanglingEdgeIsAnError) {
  OpGraph g = testing::TinyConvNet();
  g.AddEdge(0, 99, 4);
  Status st = g.Validate();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("dangling"), std::string::npos);
}

TEST(OpGraph, SelfLoopIsAnError) {
  OpGraph g = testing::TinyConvNet();
  g.AddEdge(2, 2, 4);
  EXPECT_FALSE(g.Validate().ok());
}

TEST(OpGraph, NegativeSizesAreErrors) {
  {
    OpGraph g = testing::TinyConvNet();
    g.edges[0].bytes = -1;
    EXPECT_NE(g.Validate().message().find("negative size"), std::string::npos);
  }
  {
    OpGraph g = testing::TinyConvNet();
    g.ops[1].inputs[0].shape = {2, -4, 8, 8};
    EXPECT_NE(g.Validate().message().find("negative dimension"), std::string::npos);
  }
  {
    OpGraph g = testing::TinyConvNet();
    g.ops[0].flops = -5;
    EXPECT_FALSE(g.Validate().ok());
  }
  {
    OpGraph g = testing::TinyConvNet();
    g.ops[0].measured_time_ms = -3;
    EXPECT_NE(g.Validate().message().find("negative time"), std::string::npos);
  }
}

TEST(OpGraph, AbsurdSizesAreErrors) {
  OpGraph g = testing::TinyConvNet();
  g.ops[1].outputs[0].shape = {1 << 20, 1 << 20, 1 << 20};
  EXPECT_NE(g.Validate().message().find("absurd"), std::string::npos);
}

TEST(OpGraph, NaNFlopsAreErrors) {
  OpGraph g = testing::TinyConvNet();
  g.ops[3].flops = std::nan("");
  EXPECT_FALSE(g.Validate().ok());
}

}  // namespace
}  // namespace frugal
