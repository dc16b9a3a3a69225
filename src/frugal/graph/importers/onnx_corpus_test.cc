// Imports every file of the ONNX corpus (testdata/onnx/corpus, written by
// tools/export_onnx_corpus.py) with the flags reference.json gives, and
// checks the parameter count exactly, the compute FLOPs within 10 % of the
// independent PyTorch count, and that the training graph can be derived.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "frugal/graph/importer.h"
#include "frugal/graph/op_cost.h"
#include "frugal/graph/training.h"

namespace frugal {
namespace {

const std::string kCorpus = std::string(FRUGAL_SOURCE_ROOT) + "/testdata/onnx/corpus/";

nlohmann::json Reference() {
  std::ifstream in(kCorpus + "reference.json");
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

// --batch N and --dim NAME=VALUE, as the CLI maps them.
ImportOptions OptionsFor(const nlohmann::json& flags) {
  ImportOptions o;
  for (size_t i = 0; i + 1 < flags.size(); i += 2) {
    const std::string flag = flags[i].get<std::string>();
    const std::string value = flags[i + 1].get<std::string>();
    if (flag == "--batch") {
      o.batch = std::stoll(value);
    } else if (flag == "--dim") {
      const size_t eq = value.find('=');
      o.dims[value.substr(0, eq)] = std::stoll(value.substr(eq + 1));
    } else {
      ADD_FAILURE() << "unknown flag " << flag;
    }
  }
  return o;
}

double ComputeFlops(const OpGraph& g) {
  double f = 0;
  for (const Op& op : g.ops) {
    if (CategoryOf(op.kind) == OpCategory::kCompute) f += op.flops;
  }
  return f;
}

TEST(OnnxCorpus, EveryFileImportsWithTheReferenceParametersAndFlops) {
  nlohmann::json ref = Reference();
  ASSERT_TRUE(ref.is_object()) << "cannot read " << kCorpus << "reference.json";
  ASSERT_GE(ref.size(), 40u);
  for (const auto& [name, r] : ref.items()) {
    SCOPED_TRACE(name);
    Result<OpGraph> g = ImportGraph(kCorpus + name + ".onnx", OptionsFor(r["flags"]));
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    EXPECT_EQ(TotalParameters(*g), r["params"].get<int64_t>());
    const double want = r["flops_compute"].get<double>();
    EXPECT_NEAR(ComputeFlops(*g), want, 0.10 * want);
    Result<OpGraph> t = BuildTrainingGraph(*g, TrainingOptions{});
    EXPECT_TRUE(t.ok()) << t.status().ToString();
  }
}

int Components(const OpGraph& g) {
  std::vector<int> parent(g.ops.size());
  for (size_t i = 0; i < parent.size(); ++i) parent[i] = static_cast<int>(i);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const Edge& e : g.edges) parent[find(e.src)] = find(e.dst);
  int n = 0;
  for (size_t i = 0; i < parent.size(); ++i) n += find(static_cast<int>(i)) == static_cast<int>(i);
  return n;
}

// Trace-time shape arithmetic that folding has replaced leaves no op behind,
// and layout views of weights keep their edges: every step is one connected
// graph, which placement (Pesto) requires.
TEST(OnnxCorpus, EveryStepIsOneConnectedGraph) {
  nlohmann::json ref = Reference();
  ASSERT_TRUE(ref.is_object());
  for (const auto& [name, r] : ref.items()) {
    SCOPED_TRACE(name);
    Result<OpGraph> g = ImportGraph(kCorpus + name + ".onnx", OptionsFor(r["flags"]));
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    EXPECT_EQ(Components(*g), 1);
    Result<OpGraph> t = BuildTrainingGraph(*g, TrainingOptions{});
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_EQ(Components(*t), 1);
  }
}

// torch.onnx reaches an LSTM's / GRU's W, R and B through Slice / Concat /
// Unsqueeze of its initializers (training exports) or reads them directly
// (eval exports): either way the recurrent op owns its weights, so training
// derives its weight gradient and optimizer update.
TEST(OnnxCorpus, RecurrentLayersOwnTheirWeights) {
  nlohmann::json ref = Reference();
  ASSERT_TRUE(ref.is_object());
  int rnn_ops = 0;
  for (const char* name : {"lstm_train_op11", "gru_bi_train_op15", "lstm_bi2_eval_op13_dynseq",
                           "gru_eval_op17_dynseq"}) {
    SCOPED_TRACE(name);
    Result<OpGraph> g = ImportGraph(kCorpus + name + ".onnx", OptionsFor(ref[name]["flags"]));
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    Result<OpGraph> t = BuildTrainingGraph(*g, TrainingOptions{});
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    for (const Op& op : g->ops) {
      if (op.kind != OpKind::kRnn) continue;
      ++rnn_ops;
      Result<RnnShape> r = RnnShapeOf(op);
      ASSERT_TRUE(r.ok());
      // W, R and (where given) B: the layer's own parameter count.
      EXPECT_EQ(op.param_count, r->dirs * r->gates * r->hidden *
                                    (r->input + r->hidden + (r->bias ? 2 : 0)))
          << op.name;
      int grads = 0;
      for (const Op& b : t->ops) {
        grads += b.name == op.name + ".grad_weight" && b.grad == GradRole::kWeight;
      }
      EXPECT_EQ(grads, 1) << op.name;
    }
  }
  EXPECT_GE(rnn_ops, 6);
}

}  // namespace
}  // namespace frugal
