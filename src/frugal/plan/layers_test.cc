#include "frugal/plan/layers.h"

#include <gtest/gtest.h>

#include "frugal/graph/training.h"
#include "frugal/plan/plan_test_util.h"

namespace frugal {
namespace {

TEST(BlockKey, IsThePathUpToTheLayerNumber) {
  EXPECT_EQ(BlockKey("layers.3.self_attn.q_proj"), "layers.3");
  EXPECT_EQ(BlockKey("h.11.mlp.c_fc"), "h.11");
  EXPECT_EQ(BlockKey("encoder.layer.5.attention.self.query"), "encoder.layer.5");
  EXPECT_EQ(BlockKey("/layer1/layer1.0/conv1/Conv"), "/layer1/layer1.0");
  EXPECT_EQ(BlockKey("embed_tokens"), "");
  EXPECT_EQ(BlockKey("12.relu"), "");
  EXPECT_EQ(BlockKey(""), "");
}

TEST(MapBlocks, PutsEmbeddingsBeforeAndTheHeadAfterTheLayers) {
  OpGraph fwd = testing::ImportConfig(testing::TinyLlama(3), 1, 16);
  Result<OpGraph> train = BuildTrainingGraph(fwd);
  ASSERT_TRUE(train.ok());
  Result<BlockMap> m = MapBlocks(*train);
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m->num_blocks(), 3);
  EXPECT_EQ(m->names[0], "layers.0");
  EXPECT_EQ(m->names[2], "layers.2");
  for (size_t i = 0; i < train->ops.size(); ++i) {
    const Op& op = train->ops[i];
    const Op& fwd_op = op.phase == Phase::kForward ? op : train->ops[op.forward_op];
    if (fwd_op.name == "embed_tokens") {
      EXPECT_EQ(m->block_of_op[i], kBeforeBlocks);
    }
    if (fwd_op.name == "lm_head") {
      EXPECT_EQ(m->block_of_op[i], kAfterBlocks) << op.name;
    }
    if (fwd_op.name.rfind("layers.1.", 0) == 0) {
      EXPECT_EQ(m->block_of_op[i], 1) << op.name;
    }
  }
}

}  // namespace
}  // namespace frugal
