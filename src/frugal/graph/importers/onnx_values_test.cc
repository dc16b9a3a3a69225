#include "frugal/graph/importers/onnx_values.h"

#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "onnx/defs/attr_proto_util.h"

namespace frugal::importers {
namespace {

using onnx::TensorProto;

TensorValue Ints(std::vector<int64_t> dims, std::vector<int64_t> v) {
  TensorValue t;
  t.dims = std::move(dims);
  t.ints = std::move(v);
  return t;
}

TensorValue Floats(std::vector<int64_t> dims, std::vector<double> v) {
  TensorValue t;
  t.elem_type = TensorProto::FLOAT;
  t.dims = std::move(dims);
  t.floats = std::move(v);
  return t;
}

onnx::NodeProto Node(const std::string& op, int inputs) {
  onnx::NodeProto n;
  n.set_op_type(op);
  for (int i = 0; i < inputs; ++i) n.add_input("in" + std::to_string(i));
  n.add_output("out");
  return n;
}

std::optional<TensorValue> Eval(const onnx::NodeProto& node, std::vector<const TensorValue*> in,
                                int opset = 15) {
  auto out = EvaluateNode(node, opset, in, std::vector<const onnx::TypeProto*>(in.size()));
  if (!out || out->empty()) return std::nullopt;
  return (*out)[0];
}

TEST(OnnxValues, GatherTakesNegativeIndices) {
  TensorValue shape = Ints({4}, {2, 3, 5, 7}), idx = Ints({}, {-1});
  auto v = Eval(Node("Gather", 2), {&shape, &idx});
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->dims.empty());
  EXPECT_EQ(v->ints, (std::vector<int64_t>{7}));
  TensorValue out_of_range = Ints({}, {4});
  EXPECT_FALSE(Eval(Node("Gather", 2), {&shape, &out_of_range}));
}

TEST(OnnxValues, SliceClampsAndStepsBackwards) {
  TensorValue data = Ints({5}, {10, 11, 12, 13, 14});
  TensorValue starts = Ints({1}, {-1}), ends = Ints({1}, {std::numeric_limits<int64_t>::min()}),
              axes = Ints({1}, {0}), steps = Ints({1}, {-2});
  auto v = Eval(Node("Slice", 5), {&data, &starts, &ends, &axes, &steps});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->ints, (std::vector<int64_t>{14, 12, 10}));
  TensorValue big_end = Ints({1}, {std::numeric_limits<int64_t>::max()}), one = Ints({1}, {1});
  v = Eval(Node("Slice", 3), {&data, &one, &big_end});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->ints, (std::vector<int64_t>{11, 12, 13, 14}));
}

TEST(OnnxValues, ReshapeCopiesZerosAndInfersMinusOne) {
  TensorValue data = Ints({2, 3, 4}, std::vector<int64_t>(24, 1)), shape = Ints({2}, {0, -1});
  auto v = Eval(Node("Reshape", 2), {&data, &shape});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->dims, (std::vector<int64_t>{2, 12}));
  TensorValue two_inferred = Ints({2}, {-1, -1});
  EXPECT_FALSE(Eval(Node("Reshape", 2), {&data, &two_inferred}));
}

TEST(OnnxValues, ConcatUnsqueezeAndArithmeticBuildShapes) {
  TensorValue b = Ints({}, {3}), axes = Ints({1}, {0});
  auto u = Eval(Node("Unsqueeze", 2), {&b, &axes});
  ASSERT_TRUE(u);
  EXPECT_EQ(u->dims, (std::vector<int64_t>{1}));
  TensorValue rest = Ints({2}, {-1, 64});
  onnx::NodeProto concat = Node("Concat", 2);
  *concat.add_attribute() = onnx::MakeAttribute("axis", int64_t{0});
  auto c = Eval(concat, {&*u, &rest});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->ints, (std::vector<int64_t>{3, -1, 64}));
  TensorValue two = Ints({}, {2});
  auto m = Eval(Node("Mul", 2), {&*c, &two});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->ints, (std::vector<int64_t>{6, -2, 128}));
  TensorValue seven = Ints({}, {7});
  auto d = Eval(Node("Div", 2), {&seven, &two});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->ints, (std::vector<int64_t>{3}));
  TensorValue zero = Ints({}, {0});
  EXPECT_FALSE(Eval(Node("Div", 2), {&seven, &zero}));
  TensorValue huge = Ints({}, {std::numeric_limits<int64_t>::max()});
  EXPECT_FALSE(Eval(Node("Add", 2), {&huge, &seven}));  // overflow: not tracked
}

TEST(OnnxValues, RangeConstantOfShapeWhereAndEqual) {
  TensorValue start = Ints({}, {0}), limit = Ints({}, {5}), delta = Ints({}, {2});
  auto r = Eval(Node("Range", 3), {&start, &limit, &delta});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->ints, (std::vector<int64_t>{0, 2, 4}));
  TensorValue shape = Ints({1}, {3});
  auto ones = Eval(Node("ConstantOfShape", 1), {&shape});
  ASSERT_TRUE(ones);
  EXPECT_TRUE(ones->IsFloat());
  EXPECT_EQ(ones->floats, (std::vector<double>{0, 0, 0}));
  TensorValue minus1 = Ints({}, {-1}), dims = Ints({3}, {4, -1, 8});
  auto eq = Eval(Node("Equal", 2), {&dims, &minus1});
  ASSERT_TRUE(eq);
  EXPECT_EQ(eq->elem_type, TensorProto::BOOL);
  EXPECT_EQ(eq->ints, (std::vector<int64_t>{0, 1, 0}));
  TensorValue fill = Ints({}, {1});
  auto w = Eval(Node("Where", 3), {&*eq, &fill, &dims});
  ASSERT_TRUE(w);
  EXPECT_EQ(w->ints, (std::vector<int64_t>{4, 1, 8}));
}

TEST(OnnxValues, ShapeReadsTheTypeWithStartAndEnd) {
  onnx::TypeProto t;
  for (int64_t d : {2, 3, 5}) t.mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
  onnx::NodeProto shape = Node("Shape", 1);
  *shape.add_attribute() = onnx::MakeAttribute("start", int64_t{-2});
  auto out = EvaluateNode(shape, 15, {nullptr}, {&t});
  ASSERT_TRUE(out);
  EXPECT_EQ((*out)[0].ints, (std::vector<int64_t>{3, 5}));
  t.mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("batch");
  EXPECT_FALSE(EvaluateNode(Node("Shape", 1), 15, {nullptr}, {&t}));
}

TEST(OnnxValues, CastTruncatesFloatsTowardZero) {
  TensorValue f = Floats({2}, {2.7, -1.2});
  onnx::NodeProto cast = Node("Cast", 1);
  *cast.add_attribute() = onnx::MakeAttribute("to", int64_t{TensorProto::INT64});
  auto v = Eval(cast, {&f});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->ints, (std::vector<int64_t>{2, -1}));
}

TEST(OnnxValues, TensorsRoundTripAndLargeOrStrippedOnesAreUnknown) {
  TensorProto t;
  ValueToTensor(Ints({3}, {1, -2, 3}), &t);
  auto v = ValueFromTensor(t);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->ints, (std::vector<int64_t>{1, -2, 3}));
  TensorProto stripped;
  stripped.set_data_type(TensorProto::FLOAT);
  stripped.add_dims(16);
  EXPECT_FALSE(ValueFromTensor(stripped));
  TensorProto large;
  large.set_data_type(TensorProto::INT64);
  large.add_dims(kMaxValueElems + 1);
  for (int64_t i = 0; i <= kMaxValueElems; ++i) large.add_int64_data(i);
  EXPECT_FALSE(ValueFromTensor(large));
}

}  // namespace
}  // namespace frugal::importers
