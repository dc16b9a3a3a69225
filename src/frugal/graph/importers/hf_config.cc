// Hugging Face config.json importer: rebuilds the forward graph that
// transformers' eager PyTorch code runs for GPT2LMHeadModel, BertLMHeadModel,
// OPTForCausalLM, LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM,
// MixtralForCausalLM, T5ForConditionalGeneration, SwitchTransformersFor-
// ConditionalGeneration and ViTForImageClassification (or, with another
// head, their *Model and *ForSequenceClassification siblings), op by op, with exact fp32 shapes for
// a batch B and sequence length S. No weights are read: parameter tensors
// carry shapes only. Op and parameter names are the Hugging Face module
// paths without the wrapper prefix ("transformer.", "bert.",
// "model.decoder.", "model."), so parameter names match the checkpoint's
// state dict. Assumptions (dropout kept as ops,
// MoE tokens split evenly, tied heads) are listed in docs/hf_models.md.
//
// This file holds the entry points and the table of architectures; the
// config reader, the graph builder and the architectures live in hf_*.{h,cc}.
#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "frugal/base/file_io.h"
#include "frugal/graph/graph_json.h"
#include "frugal/graph/importers/hf_architectures.h"
#include "frugal/graph/importers/hf_config_reader.h"
#include "frugal/graph/importers/importers.h"

namespace frugal::importers {
namespace {

using hf::ConfigReader;
using nlohmann::json;

struct Architecture {
  const char* model_type;
  const char*
      class_prefix;  // of the "architectures" entry, when model_type is absent
  Result<OpGraph> (*build)(const ConfigReader&, const ImportOptions&);
  // Why a KV cache (ImportOptions::kv_cache_len > 0) cannot apply; null for
  // the decoder-only models, which support it.
  const char* no_kv_cache;
};

constexpr const char* kEncoderOnly =
    "an encoder-only model: it attends both ways and generates no tokens, so it has no KV "
    "cache";
constexpr const char* kEncoderDecoder =
    "an encoder-decoder model: cached generation is built for decoder-only models (gpt2, "
    "opt, llama, mistral, qwen2, mixtral)";

constexpr Architecture kArchitectures[] = {
    {"gpt2", "GPT2", &hf::BuildGpt2, nullptr},
    {"bert", "Bert", &hf::BuildBert, kEncoderOnly},
    {"opt", "OPT", &hf::BuildOpt, nullptr},
    {"llama", "Llama", &hf::BuildLlama, nullptr},
    {"mistral", "Mistral", &hf::BuildMistral, nullptr},
    {"qwen2", "Qwen2", &hf::BuildQwen2, nullptr},
    {"mixtral", "Mixtral", &hf::BuildMixtral, nullptr},
    {"switch_transformers", "SwitchTransformers", &hf::BuildSwitch, kEncoderDecoder},
    {"t5", "T5", &hf::BuildT5, kEncoderDecoder},
    {"vit", "ViT", &hf::BuildVit, kEncoderOnly},
};

std::string SupportedTypes() {
  std::string s;
  for (const auto& a : kArchitectures)
    s += std::string(s.empty() ? "" : ", ") + a.model_type;
  return s;
}

Result<std::string> ModelType(const ConfigReader& c, const json& doc) {
  if (c.Has("model_type")) return c.String("model_type", "");
  if (c.Has("architectures") && doc["architectures"].is_array() &&
      !doc["architectures"].empty() && doc["architectures"][0].is_string()) {
    std::string cls = doc["architectures"][0].get<std::string>();
    for (const auto& a : kArchitectures) {
      if (cls.rfind(a.class_prefix, 0) == 0) return std::string(a.model_type);
    }
    return Unimplemented(
        c.path() + ": architecture '" + cls +
        "' not supported (supported model types: " + SupportedTypes() + ")");
  }
  return c.Error("missing field 'model_type'");
}

// The head named by the "architectures" class when `requested` is auto:
// *ForSequenceClassification builds the classifier, the bare *Model no head,
// the LM classes (LMHeadModel, ForCausalLM, ForMaskedLM, ForPreTraining,
// ForConditionalGeneration) and configs without the field the LM head.
// Other task classes (question answering, token classification) have no
// rule here: the user picks a head.
Result<ModelHead> ResolveHead(const ConfigReader& c, const json& doc,
                              ModelHead requested) {
  if (requested != ModelHead::kAuto) return requested;
  if (!c.Has("architectures") || !doc["architectures"].is_array() ||
      doc["architectures"].empty() || !doc["architectures"][0].is_string()) {
    return ModelHead::kLm;
  }
  const std::string cls = doc["architectures"][0].get<std::string>();
  if (cls.ends_with("ForSequenceClassification") ||
      cls.ends_with("ForImageClassification")) {
    return ModelHead::kSeqCls;
  }
  for (const char* lm : {"LMHeadModel", "ForCausalLM", "ForMaskedLM",
                         "ForPreTraining", "ForConditionalGeneration"}) {
    if (cls.ends_with(lm)) return ModelHead::kLm;
  }
  if (cls.ends_with("Model") && cls.find("For") == std::string::npos) {
    return ModelHead::kBase;
  }
  return Unimplemented(c.path() + ": no head rule for architecture '" + cls +
                       "'; choose one with --head lm, seq-cls or base");
}

}  // namespace

bool DetectHfConfig(const std::string& path, std::string_view contents) {
  if (FileExtension(path) != "json") return false;
  std::string_view head =
      contents.substr(0, std::min<size_t>(contents.size(), 256));
  if (head.find(kGraphFormatTag) != std::string_view::npos) return false;
  if (contents.find("\"fpgaLatency\"") != std::string_view::npos) return false;
  // model_type can sit after a long id2label map, so search everything:
  // config files are small.
  return contents.find("\"model_type\"") != std::string_view::npos ||
         contents.find("\"architectures\"") != std::string_view::npos;
}

Result<OpGraph> ImportHfConfig(const std::string& path,
                               std::string_view contents,
                               const ImportOptions& options) {
  FRUGAL_ASSIGN_OR_RETURN(json doc, ParseJson(std::string(contents), path));
  if (!doc.is_object())
    return InvalidArgument(path + ": top level is not a JSON object");
  ConfigReader c(doc, path);
  FRUGAL_ASSIGN_OR_RETURN(std::string type, ModelType(c, doc));
  ImportOptions o = options;
  FRUGAL_ASSIGN_OR_RETURN(o.head, ResolveHead(c, doc, options.head));
  for (const auto& a : kArchitectures) {
    if (type != a.model_type) continue;
    if (o.kv_cache_len > 0 && a.no_kv_cache != nullptr) {
      return InvalidArgument(path + ": model_type '" + type + "' is " + a.no_kv_cache);
    }
    return a.build(c, o);
  }
  return Unimplemented(path + ": model_type '" + type +
                       "' not supported (supported: " + SupportedTypes() + ")");
}

}  // namespace frugal::importers
