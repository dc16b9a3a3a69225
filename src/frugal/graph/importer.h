// Graph importers: one registry table (importer.cc) of the formats frugal
// reads — ONNX, Hugging Face config.json, dnn-partitioning JSON and frugal's
// own JSON. Every importer returns a validated forward (or, for profiled
// training graphs, complete) OpGraph, or a one-line error naming the file.
// Stateless; thread-safe.
#ifndef FRUGAL_GRAPH_IMPORTER_H_
#define FRUGAL_GRAPH_IMPORTER_H_

#include <map>
#include <span>
#include <string>
#include <string_view>

#include "frugal/base/registry.h"
#include "frugal/base/status.h"
#include "frugal/graph/op_graph.h"

namespace frugal {

// The task head a Hugging Face config is built with (other formats ignore
// it: their graphs are complete).
enum class ModelHead {
  kAuto,    // from the config's "architectures" class (see ResolveHead in
            // importers/hf_config.cc); the LM head when the field is absent
  kLm,      // language-model head: BertLMHeadModel / BertForMaskedLM /
            // BertForPreTraining (its NSP classifier is left out),
            // GPT2LMHeadModel, *ForCausalLM, *ForConditionalGeneration
  kSeqCls,  // *ForSequenceClassification: BERT pooler + classifier, or a
            // decoder's `score` projection; num_labels from the config
  kBase,    // the bare *Model (BertModel keeps its pooler)
};
const char* ModelHeadName(ModelHead h);                     // auto, lm, seq-cls, base
bool ParseModelHead(std::string_view name, ModelHead* out);  // the same names

struct ImportOptions {
  // Batch size for models with a dynamic batch dim (ONNX) or none (HF).
  // 0 = the model's own static batch, else 1. REQUIRES: >= 0.
  int64_t batch = 0;
  // Sequence length for HF configs. 0 = the config's max positions (capped
  // at 1024 for positions beyond). REQUIRES: >= 0.
  int64_t seq_len = 0;
  ModelHead head = ModelHead::kAuto;
  // Values of named symbolic dims (ONNX dim_param: "seq", "height", ...),
  // from `--dim NAME=VALUE`. The batch dim takes `batch` above; a name here
  // that the model does not have is an error. REQUIRES: values > 0.
  std::map<std::string, int64_t> dims;
  // HF decoder-only configs: tokens already in the KV cache. 0 = no cache
  // (the whole sequence is processed, as in training or prefill). L > 0
  // builds one step of cached generation as transformers' DynamicCache runs
  // it: the `seq_len` new tokens' keys and values are appended to the
  // cache (torch.cat of a [B, kv_heads, L, d] cache tensor, role kBuffer,
  // with the new rows: an op reading L + S rows and writing them), and
  // attention, masks and softmax span L + S keys; positions start at L.
  // Encoder-only and encoder-decoder configs refuse L > 0; other formats
  // too. REQUIRES: >= 0.
  int64_t kv_cache_len = 0;
};

struct Importer {
  // True when `contents` of `path` look like this format.
  bool (*detect)(const std::string& path, std::string_view contents);
  // Builds the graph. `path` is only used in messages.
  Result<OpGraph> (*import)(const std::string& path, std::string_view contents,
                            const ImportOptions& options);
};

std::span<const RegistryRow<Importer>> Importers();

// Reads `path` and imports it with the named format, or the first importer
// whose detect() accepts it when format is "auto".
Result<OpGraph> ImportGraph(const std::string& path,
                            const ImportOptions& options = {},
                            const std::string& format = "auto");

// Same, from bytes already in memory (fuzzers, tests).
Result<OpGraph> ImportGraphFromContents(const std::string& path,
                                        std::string_view contents,
                                        const ImportOptions& options,
                                        const std::string& format = "auto");

}  // namespace frugal

#endif  // FRUGAL_GRAPH_IMPORTER_H_
