#include "frugal/graph/summary.h"

#include <gtest/gtest.h>

#include "frugal/graph/test_graphs.h"

namespace frugal {
namespace {

std::vector<std::string> Notes(const OpGraph& g) {
  return Summarize(g, g, TrainingOptions{}, false).notes;
}

// Convs with a bias and no BatchNorm in an ONNX file: an eval export with
// BatchNorm folded, so the parameters are the file's, not the module's.
TEST(Summary, NotesBatchNormFoldedIntoConvs) {
  OpGraph g = testing::TinyConvNet();
  EXPECT_TRUE(Notes(g).empty());  // not an ONNX file
  g.source_format = "onnx";
  ASSERT_EQ(Notes(g).size(), 1u);
  EXPECT_NE(Notes(g)[0].find("BatchNorm folded"), std::string::npos) << Notes(g)[0];
}

// A training-mode export keeps Dropout (and BatchNorm, were there any): a
// model without BatchNorm (AlexNet, SqueezeNet) is not an eval export.
TEST(Summary, DropoutSaysNoBatchNormWasFolded) {
  OpGraph g = testing::TinyConvNet();
  g.source_format = "onnx";
  Op drop;
  drop.name = "drop";
  drop.kind = OpKind::kDropout;
  drop.inputs = {g.ops.back().outputs[0]};
  drop.outputs = {g.ops.back().outputs[0]};
  drop.outputs[0].name = "dropped";
  g.AddOp(drop);
  EXPECT_TRUE(Notes(g).empty());
}

}  // namespace
}  // namespace frugal
