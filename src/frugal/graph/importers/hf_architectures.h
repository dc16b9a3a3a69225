// The architectures the hf_config importer rebuilds, one build function each,
// listed in the table in hf_config.cc: decoders (hf_decoder.cc), BERT
// (hf_encoder.cc) and Switch Transformers (hf_switch.cc). Each reads its
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

// SwitchTransformersForConditionalGeneration.
Result<OpGraph> BuildSwitch(const ConfigReader& c, const ImportOptions& o);

}  // namespace frugal::importers::hf

#endif  // FRUGAL_GRAPH_IMPORTERS_HF_ARCHITECTURES_H_
