#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <map>
#include <string>

#include "frugal/base/file_io.h"
#include "frugal/graph/importer.h"
#include "frugal/graph/op_cost.h"
#include "frugal/graph/test_graphs.h"
#include "frugal/graph/training.h"

namespace frugal {
namespace {

std::string Path(const std::string& rel) {
  return std::string(FRUGAL_SOURCE_ROOT) + "/" + rel;
}

OpGraph Load(const std::string& rel, int64_t batch = 0) {
  ImportOptions options;
  options.batch = batch;
  Result<OpGraph> g = ImportGraph(Path(rel), options);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? *g : OpGraph();
}

using testing::FindOp;
using testing::TotalFlops;

TEST(OnnxImporter, DetectsByExtension) {
  const RegistryRow<Importer>* row = FindRow(Importers(), "onnx");
  ASSERT_NE(row, nullptr);
  EXPECT_TRUE(row->factory.detect("a/b/model.onnx", ""));
  EXPECT_TRUE(row->factory.detect("MODEL.ONNX", ""));
  EXPECT_FALSE(row->factory.detect("model.json", "{}"));
  EXPECT_FALSE(row->factory.detect("onnx", ""));
}

TEST(OnnxImporter, ResNet50MatchesTorchvision) {
  OpGraph g = Load("models/resnet50.onnx");
  EXPECT_EQ(g.name, "resnet50");
  EXPECT_EQ(g.source_format, "onnx");
  EXPECT_EQ(g.batch, 1);
  EXPECT_EQ(TotalParameters(g), 25557032);
  // ~4.1 GMACs: the figure torchvision and the literature quote.
  EXPECT_NEAR(TotalFlops(g), 8.2e9, 0.02 * 8.2e9);
  ASSERT_FALSE(g.ops.empty());
  EXPECT_EQ(g.ops[0].kind, OpKind::kConv);
  EXPECT_EQ(g.ops[0].inputs[0].shape, (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(g.ops[0].outputs[0].shape, (std::vector<int64_t>{1, 64, 112, 112}));
  EXPECT_EQ(g.ops[0].attrs.GetInts("kernel_shape"),
            (std::vector<int64_t>{7, 7}));
  EXPECT_EQ(g.ops[0].attrs.GetInts("strides"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(g.ops.back().kind, OpKind::kMatMul);  // the fc Gemm
  EXPECT_EQ(g.ops.back().outputs[0].shape, (std::vector<int64_t>{1, 1000}));
}

TEST(OnnxImporter, BatchNormStaysAndItsRunningStatsAreBuffers) {
  OpGraph g = Load("models/resnet50.onnx");
  int bn = 0;
  for (const Op& op : g.ops) {
    if (op.kind != OpKind::kBatchNorm) continue;
    ++bn;
    ASSERT_EQ(op.inputs.size(), 5u) << op.name;
    EXPECT_EQ(op.inputs[0].role, TensorRole::kActivation);
    EXPECT_EQ(op.inputs[1].role, TensorRole::kParameter);
    EXPECT_EQ(op.inputs[2].role, TensorRole::kParameter);
    EXPECT_EQ(op.inputs[3].role, TensorRole::kBuffer);
    EXPECT_EQ(op.inputs[4].role, TensorRole::kBuffer);
    EXPECT_EQ(op.param_count, 2 * op.inputs[1].NumElements());
  }
  EXPECT_EQ(bn, 53);
}

TEST(OnnxImporter, EdgesCarryTheProducedTensor) {
  OpGraph g = Load("models/resnet50.onnx");
  ASSERT_FALSE(g.edges.empty());
  // conv1 -> bn1 carries the [1, 64, 112, 112] fp32 conv output.
  const Edge& e = g.edges[0];
  EXPECT_EQ(e.src, 0);
  EXPECT_EQ(e.dst, 1);
  EXPECT_EQ(e.bytes, 64 * 112 * 112 * 4);
  EXPECT_EQ(e.tensor, g.ops[0].outputs[0].name);
  // Residual adds join two branches.
  int adds_with_two_inputs = 0;
  auto in_edges = g.InEdges();
  for (int i = 0; i < g.num_ops(); ++i) {
    if (g.ops[i].kind == OpKind::kAdd && in_edges[i].size() == 2)
      ++adds_with_two_inputs;
  }
  EXPECT_EQ(adds_with_two_inputs, 16);
}

TEST(OnnxImporter, BatchScalesFlops) {
  OpGraph g1 = Load("models/resnet50.onnx");
  OpGraph g8 = Load("models/resnet50.onnx", 8);
  EXPECT_EQ(g8.batch, 8);
  EXPECT_EQ(g8.ops[0].inputs[0].shape[0], 8);
  EXPECT_EQ(TotalParameters(g8), TotalParameters(g1));
  EXPECT_NEAR(TotalFlops(g8) / TotalFlops(g1), 8.0, 0.01);
}

TEST(OnnxImporter, Vgg16Parameters) {
  OpGraph g = Load("models/vgg16.onnx");
  EXPECT_EQ(TotalParameters(g), 138357544);
  // 15.5 GMACs.
  EXPECT_NEAR(TotalFlops(g), 31.0e9, 0.02 * 31.0e9);
}

TEST(OnnxImporter, MobileNetV2Parameters) {
  OpGraph g = Load("models/mobilenet_v2.onnx");
  EXPECT_EQ(TotalParameters(g), 3504872);
  // Depthwise convs: group attribute copied, weight [C, 1, 3, 3].
  bool depthwise = false;
  for (const Op& op : g.ops) {
    if (op.kind == OpKind::kConv && op.attrs.GetInt("group", 1) > 1)
      depthwise = true;
  }
  EXPECT_TRUE(depthwise);
}

TEST(OnnxImporter, InceptionV3WithoutAuxClassifier) {
  OpGraph g = Load("models/inception_v3.onnx");
  EXPECT_EQ(TotalParameters(g), 23834568);
  EXPECT_EQ(g.ops[0].inputs[0].shape, (std::vector<int64_t>{1, 3, 299, 299}));
}

TEST(OnnxImporter, TruncatedFileIsAnErrorNamingThePath) {
  Result<std::string> bytes = ReadFileToString(Path("models/resnet50.onnx"));
  ASSERT_TRUE(bytes.ok());
  std::string half = bytes->substr(0, bytes->size() / 2);
  Result<OpGraph> g = ImportGraphFromContents("half/resnet50.onnx", half, {});
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(g.status().message().find("half/resnet50.onnx"), std::string::npos)
      << g.status().message();
}

TEST(OnnxImporter, GarbageAndEmptyInputsAreErrors) {
  std::string garbage(1000, '\xff');
  for (size_t i = 0; i < garbage.size(); i += 7)
    garbage[i] = static_cast<char>(i);
  for (const std::string& contents :
       {garbage, std::string(), std::string("hello")}) {
    Result<OpGraph> g = ImportGraphFromContents("junk.onnx", contents, {});
    ASSERT_FALSE(g.ok());
    EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(g.status().message().find("junk.onnx"), std::string::npos);
  }
}

TEST(OnnxImporter, KeepsUnknownOpsAndFallsBackToTheirInputShape) {
  OpGraph g = Load("testdata/onnx/mixed.onnx");
  ASSERT_EQ(g.num_ops(), 9);
  const Op* fancy = FindOp(g, "fancy");
  ASSERT_NE(fancy, nullptr);
  EXPECT_EQ(fancy->kind, OpKind::kUnknown);
  EXPECT_EQ(fancy->type, "FancyOp");
  EXPECT_EQ(fancy->attrs.strings.at("note"), "output shape not inferred");
  EXPECT_DOUBLE_EQ(fancy->attrs.floats.at("alpha"), 0.5);
  EXPECT_EQ(fancy->outputs[0].shape, (std::vector<int64_t>{1, 5, 16}));
  const Op* scale = FindOp(g, "scale");
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ(scale->kind, OpKind::kUnknown);
  EXPECT_EQ(scale->attrs.strings.at("domain"), "com.example");
  // Downstream ops are inferred from the fallback shapes.
  const Op* proj = FindOp(g, "proj");
  ASSERT_NE(proj, nullptr);
  EXPECT_EQ(proj->kind, OpKind::kMatMul);
  EXPECT_EQ(proj->outputs[0].shape, (std::vector<int64_t>{1, 5, 8}));
  EXPECT_EQ(proj->param_count, 16 * 8);
  EXPECT_DOUBLE_EQ(proj->flops, 2.0 * 5 * 8 * 16);
  const Op* embed = FindOp(g, "embed");
  ASSERT_NE(embed, nullptr);
  EXPECT_EQ(embed->kind, OpKind::kEmbedding);
  EXPECT_EQ(embed->param_count, 100 * 16);
  EXPECT_EQ(TotalParameters(g), 100 * 16 + 16 * 8);
  const Op* reshape = FindOp(g, "flatten");
  ASSERT_NE(reshape, nullptr);
  EXPECT_EQ(reshape->inputs[1].role, TensorRole::kConstant);
  EXPECT_EQ(reshape->outputs[0].shape, (std::vector<int64_t>{5, 8}));
  const Op* clip = FindOp(g, "relu6");
  ASSERT_NE(clip, nullptr);
  ASSERT_EQ(clip->inputs.size(), 2u);  // the omitted min is skipped
  EXPECT_EQ(clip->inputs[1].name, "six");
  EXPECT_EQ(g.ops.back().outputs[0].shape, (std::vector<int64_t>{5, 8}));
}

Result<OpGraph> Import(const std::string& rel, int64_t batch,
                       std::map<std::string, int64_t> dims = {}) {
  ImportOptions options;
  options.batch = batch;
  options.dims = std::move(dims);
  return ImportGraph(Path(rel), options);
}

void ExpectError(const Result<OpGraph>& g, std::initializer_list<const char*> parts) {
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
  for (const char* part : parts) {
    EXPECT_NE(g.status().message().find(part), std::string::npos)
        << "no '" << part << "' in: " << g.status().message();
  }
  EXPECT_EQ(g.status().message().find('\n'), std::string::npos);
}

TEST(OnnxImporter, UnsetSymbolicDimNamesTheInputTheDimAndTheFlag) {
  ExpectError(ImportGraph(Path("testdata/onnx/dynamic_seq.onnx")),
              {"dynamic_seq.onnx", "input 'x' dim 1", "'seq'", "--dim seq=VALUE"});
}

TEST(OnnxImporter, NamedDimsSetSymbolicDims) {
  Result<OpGraph> g = Import("testdata/onnx/dynamic_seq.onnx", 3, {{"seq", 7}});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->batch, 3);
  EXPECT_EQ(g->ops[0].outputs[0].shape, (std::vector<int64_t>{3, 7, 8}));
}

// A symbolic dim set to a value the weights were not built for is an error
// naming the op, not a model priced at a size it cannot run at.
TEST(OnnxImporter, NormalizationWeightsMustFitTheResizedInput) {
  Result<OpGraph> ok = Import("testdata/onnx/layernorm_seq.onnx", 2, {{"seq", 4}});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  ExpectError(Import("testdata/onnx/layernorm_seq.onnx", 2, {{"seq", 5}}),
              {"layernorm_seq.onnx", "ln (layernorm)", "scale [4, 8]", "dims [5, 8]", "--dim"});
}

TEST(OnnxImporter, UnknownDimNameIsAnError) {
  ExpectError(Import("testdata/onnx/dynamic_seq.onnx", 1, {{"seq", 4}, {"heigth", 2}}),
              {"--dim heigth=2", "no symbolic dim 'heigth'", "batch, seq"});
  ExpectError(Import("testdata/onnx/static_batch.onnx", 0, {{"seq", 4}}), {"it has none"});
}

// --dim on the batch symbol sets the batch; a different --batch beside it is
// a conflict that names both flags, not a "fixed" batch the file lacks.
TEST(OnnxImporter, BatchSetByDimAndADifferentBatchConflict) {
  Result<OpGraph> g = Import("testdata/onnx/dynamic_seq.onnx", 2, {{"batch", 2}, {"seq", 4}});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->batch, 2);
  ExpectError(Import("testdata/onnx/dynamic_seq.onnx", 3, {{"batch", 2}, {"seq", 4}}),
              {"dynamic_seq.onnx", "--batch 3 and --dim batch=2", "input 'x' dim 0"});
}

TEST(OnnxImporter, StaticBatchIsKeptAndAnotherBatchCannotApply) {
  OpGraph own = Load("testdata/onnx/static_batch.onnx");
  EXPECT_EQ(own.batch, 2);
  EXPECT_EQ(own.ops[0].outputs[0].shape, (std::vector<int64_t>{2, 4}));
  OpGraph same = Load("testdata/onnx/static_batch.onnx", 2);
  EXPECT_EQ(same.batch, 2);
  ExpectError(Import("testdata/onnx/static_batch.onnx", 3),
              {"--batch 3 cannot apply", "input 'x' is fixed at [2, 4]"});
}

TEST(OnnxImporter, FoldsShapeComputationsChains) {
  Result<OpGraph> g = Import("testdata/onnx/shape_chain.onnx", 3, {{"seq", 5}});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  auto out = [&](const char* name) {
    const Op* op = FindOp(*g, name);
    EXPECT_NE(op, nullptr) << name;
    return op == nullptr ? std::vector<int64_t>{} : op->outputs[0].shape;
  };
  EXPECT_EQ(out("reshape"), (std::vector<int64_t>{3, 10, 4}));
  EXPECT_EQ(out("expand"), (std::vector<int64_t>{3, 1, 10, 4}));
  EXPECT_EQ(out("pad"), (std::vector<int64_t>{3, 10, 6}));
  EXPECT_EQ(out("slice"), (std::vector<int64_t>{3, 5, 6}));
  EXPECT_EQ(out("tile"), (std::vector<int64_t>{3, 10, 6}));
  EXPECT_EQ(out("proj"), (std::vector<int64_t>{3, 10, 5}));
  const Op* proj = FindOp(*g, "proj");
  ASSERT_NE(proj, nullptr);
  EXPECT_DOUBLE_EQ(proj->flops, 2.0 * 3 * 10 * 5 * 6);
  // Folded shape tensors are constants, never parameters.
  EXPECT_EQ(TotalParameters(*g), 6 * 5);
  const Op* reshape = FindOp(*g, "reshape");
  ASSERT_NE(reshape, nullptr);
  EXPECT_EQ(reshape->inputs[1].role, TensorRole::kConstant);
}

TEST(OnnxImporter, WeightInputsAreParametersAndKeepTheirDims) {
  Result<OpGraph> g = Import("testdata/onnx/weights_as_inputs.onnx", 4);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->batch, 4);
  EXPECT_EQ(TotalParameters(*g), 4 * 3 * 3 * 3 + 4 + 10 * 4 + 10);
  ASSERT_EQ(g->ops[0].kind, OpKind::kConv);
  EXPECT_EQ(g->ops[0].inputs[0].shape, (std::vector<int64_t>{4, 3, 8, 8}));
  EXPECT_EQ(g->ops[0].inputs[1].shape, (std::vector<int64_t>{4, 3, 3, 3}));
  EXPECT_EQ(g->ops[0].inputs[1].role, TensorRole::kParameter);
  EXPECT_EQ(g->ops.back().outputs[0].shape, (std::vector<int64_t>{4, 10}));
  EXPECT_DOUBLE_EQ(g->ops[0].flops, (2.0 * 27 + 1) * 4 * 4 * 8 * 8);
}

// nn.Linear on a 3-D input is MatMul(x, Transpose(W)) in a training-mode
// export: the MatMul is a linear layer owning W, the Transpose a view that
// launches nothing; the tied output layer reads the embedding table under its
// own name, so the table is counted once.
TEST(OnnxImporter, WeightsThroughTransposeBelongToTheirLayer) {
  Result<OpGraph> g = Import("testdata/onnx/tied_linear.onnx", 2);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(TotalParameters(*g), 100 * 16 + 16 * 16);
  const Op* lin = FindOp(*g, "lin");
  const Op* head = FindOp(*g, "head");
  const Op* lin_t = FindOp(*g, "lin_t");
  ASSERT_TRUE(lin && head && lin_t);
  EXPECT_EQ(lin->kind, OpKind::kMatMul);
  EXPECT_EQ(lin->param_count, 16 * 16);
  EXPECT_EQ(lin->inputs[1].role, TensorRole::kParameter);
  EXPECT_EQ(head->kind, OpKind::kMatMul);
  EXPECT_EQ(head->inputs[1].name, "emb.weight");
  EXPECT_EQ(head->param_count, 0);  // the embedding (first in order) owns it
  EXPECT_EQ(FindOp(*g, "embed")->param_count, 100 * 16);
  EXPECT_EQ(lin_t->param_count, 0);
  EXPECT_EQ(lin_t->attrs.GetInt("view", 0), 1);
  EXPECT_DOUBLE_EQ(head->flops, 2.0 * 2 * 5 * 16 * 100);
  // The untied layer keeps its edge from the view.
  bool edge = false;
  for (const Edge& e : g->edges) edge = edge || (g->ops[e.src].name == "lin_t" && g->ops[e.dst].name == "lin");
  EXPECT_TRUE(edge);
  Result<OpGraph> t = BuildTrainingGraph(*g, TrainingOptions{});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  int weight_grads = 0;
  for (const Op& op : t->ops) weight_grads += op.grad == GradRole::kWeight;
  EXPECT_EQ(weight_grads, 3);  // lin, head (tied) and the embedding
}

TEST(OnnxImporter, NothingToPriceAndUnproducedOutputsAreOneError) {
  Result<OpGraph> g = Import("testdata/onnx/dead_graph.onnx", 2);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("dead_graph.onnx: no node computes the graph's outputs"),
            std::string::npos)
      << g.status().message();
  g = Import("testdata/onnx/unproduced_output.onnx", 2);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("unproduced_output.onnx: graph output 'z' is produced by no"),
            std::string::npos)
      << g.status().message();
}

TEST(OnnxImporter, UnreadOutputsMayLackTypes) {
  Result<OpGraph> g = Import("testdata/onnx/bn_untyped_outputs.onnx", 2);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->ops[0].kind, OpKind::kBatchNorm);
  EXPECT_EQ(g->ops[0].outputs[0].shape, (std::vector<int64_t>{2, 4, 5, 5}));
  EXPECT_EQ(TotalParameters(*g), 8);
}

TEST(OnnxImporter, InlinesConstantIfAndUnrollsConstantLoops) {
  Result<OpGraph> g = Import("testdata/onnx/control_flow.onnx", 2);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  int matmuls = 0;
  for (const Op& op : g->ops) {
    EXPECT_NE(op.type, "If");
    EXPECT_NE(op.type, "Loop");
    if (op.type == "MatMul") {
      ++matmuls;
      EXPECT_EQ(op.outputs[0].shape, (std::vector<int64_t>{2, 8}));
    }
  }
  EXPECT_EQ(matmuls, 1 + 3);  // the then branch, three iterations
  EXPECT_EQ(TotalParameters(*g), 2 * 8 * 8);
  // The scan output stacks the three iterations.
  const Op* last = &g->ops.back();
  EXPECT_EQ(last->outputs[0].shape, (std::vector<int64_t>{3, 2, 8}));
}

TEST(OnnxImporter, UnreducibleControlFlowAndSequencesAreOneError) {
  ExpectError(Import("testdata/onnx/dynamic_loop.onnx", 1),
              {"dynamic_loop.onnx", "op 'rnn' (Loop)", "trip count"});
  ExpectError(Import("testdata/onnx/sequence.onnx", 1),
              {"op 'pack' (SequenceConstruct)", "sequence"});
}

// ONNX's own inference reads past the input's dims on these; the importer
// must fail with one line instead of crashing.
TEST(OnnxImporter, ConvWeightsInferenceWouldMisreadAreOneError) {
  ExpectError(Import("testdata/onnx/conv_rank_mismatch.onnx", 1),
              {"conv_rank_mismatch.onnx", "op 'conv' (Conv)"});
  ExpectError(Import("testdata/onnx/convtranspose_flat_weight.onnx", 1),
              {"op 'up' (ConvTranspose)", "weight 'w' has rank 1"});
  ExpectError(Import("testdata/onnx/undefined_input.onnx", 1),
              {"op 'shape' (Shape)", "input 'ghost' is not produced"});
  ExpectError(Import("testdata/onnx/zero_stride.onnx", 1),
              {"op 'pool' (MaxPool)", "attribute strides has a value below 1"});
}

// Inference reads Scan's num_scan_inputs without checking it is there, and
// an attribute's value by its schema's type (a FLOAT axis reads as 0).
TEST(OnnxImporter, MissingRequiredAndMistypedAttributesAreOneError) {
  ExpectError(Import("testdata/onnx/scan_no_attributes.onnx", 1),
              {"scan_no_attributes.onnx", "op 'scan' (Scan)", "attribute body is required"});
  ExpectError(Import("testdata/onnx/float_axis.onnx", 1),
              {"op 'flat' (Flatten)", "attribute axis is FLOAT", "wants INT"});
}

}  // namespace
}  // namespace frugal
