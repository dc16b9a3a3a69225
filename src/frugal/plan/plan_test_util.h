// Small HF-style models and the roofline model, for the plan module's tests.
#ifndef FRUGAL_PLAN_PLAN_TEST_UTIL_H_
#define FRUGAL_PLAN_PLAN_TEST_UTIL_H_

#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "frugal/graph/importer.h"
#include "frugal/graph/op_graph.h"

namespace frugal::testing {

// A Llama-style config: `layers` blocks of `hidden` (default 256), `heads`
// heads (`kv_heads` of them for K / V), MLP 688, vocabulary 1000.
inline std::string TinyLlama(int layers = 4, int kv_heads = 8, int hidden = 256,
                             int heads = 8) {
  return fmt::format(R"({{"architectures": ["LlamaForCausalLM"], "model_type": "llama",
    "hidden_size": {}, "intermediate_size": 688, "num_hidden_layers": {},
    "num_attention_heads": {}, "num_key_value_heads": {}, "vocab_size": 1000,
    "max_position_embeddings": 512, "rms_norm_eps": 1e-5, "hidden_act": "silu",
    "tie_word_embeddings": false}})",
                     hidden, layers, heads, kv_heads);
}

inline OpGraph ImportConfig(const std::string& config, int64_t batch, int64_t seq) {
  ImportOptions o;
  o.batch = batch;
  o.seq_len = seq;
  Result<OpGraph> g = ImportGraphFromContents("config.json", config, o, "hf");
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? *g : OpGraph();
}

}  // namespace frugal::testing

#endif  // FRUGAL_PLAN_PLAN_TEST_UTIL_H_
