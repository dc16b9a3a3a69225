// The architectures the hf_config importer rebuilds, one build function each,
// listed in the table in hf_config.cc: GPT-2 and OPT (hf_decoder.cc), the
// LLaMA family (hf_llama.cc), BERT (hf_encoder.cc), T5 and Switch
// Transformers (hf_switch.cc) and ViT (hf_vit.cc). Each reads its
// config fields through `c`, then returns the forward graph for the batch and
// sequence length in `o` with the head `o.head` (already resolved: never
// kAuto), or a one-line error naming the file. Internal to
// the importer. Stateless; thread-safe.
#ifndef FRUGAL_GRAPH_IMPORTERS_HF_ARCHITECTURES_H_
#define FRUGAL_GRAPH_IMPORTERS_HF_ARCHITECTURES_H_

#include "frugal/base/status.h"
#include "frugal/graph/importer.h"
#include "frugal/graph/importers/hf_config_reader.h"
#include "frugal/graph/op_graph.h"

namespace frugal::importers::hf {

// GPT2LMHeadModel; also the GPT-3 shapes written as gpt2 configs.
Result<OpGraph> BuildGpt2(const ConfigReader& c, const ImportOptions& o);

// BertLMHeadModel: BertModel without pooler + BertOnlyMLMHead.
Result<OpGraph> BuildBert(const ConfigReader& c, const ImportOptions& o);

// OPTForCausalLM.
Result<OpGraph> BuildOpt(const ConfigReader& c, const ImportOptions& o);

// LlamaForCausalLM.
Result<OpGraph> BuildLlama(const ConfigReader& c, const ImportOptions& o);

// MistralForCausalLM: LLaMA with sliding-window attention (sliding_window).
Result<OpGraph> BuildMistral(const ConfigReader& c, const ImportOptions& o);

// Qwen2ForCausalLM: LLaMA with q/k/v biases; sliding window on layers from
// max_window_layers when use_sliding_window.
Result<OpGraph> BuildQwen2(const ConfigReader& c, const ImportOptions& o);

// MixtralForCausalLM: Mistral with a top-k sparse MoE feed-forward.
Result<OpGraph> BuildMixtral(const ConfigReader& c, const ImportOptions& o);

// SwitchTransformersForConditionalGeneration.
Result<OpGraph> BuildSwitch(const ConfigReader& c, const ImportOptions& o);

// T5ForConditionalGeneration (t5, t5-v1_1 and flan-t5 gated feed-forwards).
Result<OpGraph> BuildT5(const ConfigReader& c, const ImportOptions& o);

// ViTForImageClassification (head seq-cls) or ViTModel (head base).
Result<OpGraph> BuildVit(const ConfigReader& c, const ImportOptions& o);

}  // namespace frugal::importers::hf

#endif  // FRUGAL_GRAPH_IMPORTERS_HF_ARCHITECTURES_H_
