#include "frugal/base/status.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgument("odd: " + std::to_string(x));
  return x / 2;
}

Result<int> Quarter(int x) {
  FRUGAL_ASSIGN_OR_RETURN(int h, Half(x));
  return Half(h);
}

TEST(Status, OkAndErrorsFormat) {
  EXPECT_TRUE(Status::Ok().ok());
  Status s = NotFound("model.onnx: no such file");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.ToString(), "not found: model.onnx: no such file");
  EXPECT_EQ(s.WithPrefix("graph").message(), "graph: model.onnx: no such file");
}

TEST(Result, PropagatesErrorsThroughAssignOrReturn) {
  EXPECT_EQ(Quarter(8).value(), 2);
  Result<int> r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "odd: 3");
}

}  // namespace
}  // namespace frugal
