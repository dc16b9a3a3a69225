// Reading Hugging Face config.json fields for the hf_config importer: typed
// access with defaults and one-line errors that name the file and the field,
// plus the batch and sequence length a graph is built for. Internal to the
// importer. A ConfigReader borrows the parsed document, which must outlive
// it; it never modifies it. Stateless apart from that; thread-compatible.
#ifndef FRUGAL_GRAPH_IMPORTERS_HF_CONFIG_READER_H_
#define FRUGAL_GRAPH_IMPORTERS_HF_CONFIG_READER_H_

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "frugal/base/status.h"
#include "frugal/graph/importer.h"
#include "frugal/graph/op_kind.h"

namespace frugal::importers::hf {

// Larger than any released vocabulary or width; beyond it a value is a typo.
inline constexpr int64_t kMaxDim = int64_t{1} << 24;
inline constexpr int64_t kMaxLayers = 1024;
inline constexpr int64_t kMaxExperts = 1024;  // experts of a mixture-of-experts layer

// An activation function: the op kind and the type name the op carries.
struct Activation {
  OpKind kind;
  const char* type;
};

class ConfigReader {
 public:
  ConfigReader(const nlohmann::json& doc, std::string path);

  const std::string& path() const { return path_; }
  // The file name without folder and extension: the graph's name.
  std::string stem() const;

  // A JSON null counts as absent: HF writes "n_inner": null for "default".
  bool Has(const char* key) const;

  // A positive integer no larger than `max`; required when no default.
  Result<int64_t> Dim(const char* key, int64_t max = kMaxDim) const;
  Result<int64_t> OptionalDim(const char* key, int64_t def,
                              int64_t max = kMaxDim) const;
  // A non-negative integer (counts that may be zero).
  Result<int64_t> Count(const char* key, int64_t def) const;

  Result<double> Probability(const char* key, double def) const;
  Result<bool> Flag(const char* key, bool def) const;
  Result<std::string> String(const char* key, const std::string& def) const;
  // An activation function name (hidden_act and the like); Unimplemented for
  // names transformers has but this importer does not know.
  Result<Activation> Act(const char* key, const std::string& def) const;
  // The activation called `name`, which the config spelt inside field `key`
  // (T5's feed_forward_proj "gated-gelu").
  Result<Activation> ActNamed(const char* key, const std::string& name) const;

  // Classes of a sequence-classification head: `num_labels`, else the size
  // of the `id2label` map, else 2 (transformers' default).
  Result<int64_t> NumLabels() const;

  // InvalidArgument unless `value` (field `key`) is a multiple of `by`
  // (field `by_key`).
  Status Divisible(const char* key, int64_t value, const char* by_key,
                   int64_t by) const;

  // InvalidArgument with the path in front of `what`.
  Status Error(const std::string& what) const;

 private:
  Result<int64_t> Integer(const char* key, int64_t min, int64_t max) const;

  const nlohmann::json& doc_;
  std::string path_;
};

// The sizes that BERT, OPT, LLaMA and ViT configs name alike: hidden_size,
// num_hidden_layers, num_attention_heads, the feed-forward width (field
// `ffn_key`) and vocab_size, all required, read in that order. Models of
// images have no vocabulary: `with_vocab` false leaves vocab 0.
struct CoreDims {
  int64_t hidden, layers, heads, ffn, vocab;
};

Result<CoreDims> ReadCoreDims(const ConfigReader& c, const char* ffn_key,
                              bool with_vocab = true);

struct Dims {
  int64_t batch = 1;
  int64_t seq = 1;
  int64_t past = 0;  // tokens already in the KV cache (ImportOptions::kv_cache_len)
};

// Batch 0 means 1; sequence length 0 means the model's maximum
// `max_positions` (the value of config field `field`), capped at 1024 so
// that a default import stays cheap. The sequence plus the KV cache must fit
// in `max_positions`.
Result<Dims> ResolveDims(const ConfigReader& c, const ImportOptions& o,
                         int64_t max_positions, const char* field);

// The same for models with relative positions and no maximum: sequence
// length 0 means `def`.
Result<Dims> ResolveUnboundedDims(const ConfigReader& c, const ImportOptions& o,
                                  int64_t def);

}  // namespace frugal::importers::hf

#endif  // FRUGAL_GRAPH_IMPORTERS_HF_CONFIG_READER_H_
