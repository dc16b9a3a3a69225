#include "frugal/graph/importer.h"

#include <string_view>

#include "frugal/base/enum_names.h"
#include "frugal/base/file_io.h"
#include "frugal/graph/importers/importers.h"

namespace frugal {
namespace {

using namespace importers;

// Order matters for auto-detection: the most specific JSON formats first.
constexpr RegistryRow<Importer> kImporters[] = {
    {"onnx", "ONNX model (.onnx); weights may be stripped",
     {&DetectOnnx, &ImportOnnx}},
    {"frugal", "frugal graph JSON (lossless; written by `graph convert`)",
     {&DetectFrugalJson, &ImportFrugalJson}},
    {"dnn-partitioning", "profiled graph JSON (nodes/edges with fpgaLatency)",
     {&DetectPartitionJson, &ImportPartitionJson}},
    {"hf", "Hugging Face config.json (GPT-2, BERT, OPT, LLaMA, Switch)",
     {&DetectHfConfig, &ImportHfConfig}},
};

constexpr const char* kHeadNames[] = {"auto", "lm", "seq-cls", "base"};

}  // namespace

const char* ModelHeadName(ModelHead h) { return EnumName(kHeadNames, h); }

bool ParseModelHead(std::string_view name, ModelHead* out) {
  return ParseEnumName(name, kHeadNames, out);
}

std::span<const RegistryRow<Importer>> Importers() { return kImporters; }

Result<OpGraph> ImportGraphFromContents(const std::string& path,
                                        std::string_view contents,
                                        const ImportOptions& options,
                                        const std::string& format) {
  if (options.batch < 0) return InvalidArgument(path + ": batch must be >= 0");
  if (options.seq_len < 0) return InvalidArgument(path + ": sequence length must be >= 0");
  const RegistryRow<Importer>* row = nullptr;
  if (format == "auto") {
    for (const auto& r : Importers()) {
      if (r.factory.detect(path, contents)) {
        row = &r;
        break;
      }
    }
    if (row == nullptr) {
      // A broken JSON file is more helpfully reported as broken JSON.
      if (FileExtension(path) == "json") {
        Result<nlohmann::json> parsed = ParseJson(std::string(contents), path);
        if (!parsed.ok()) return parsed.status();
      }
      return InvalidArgument(path + ": unrecognised model format (expected " +
                             RowNames(Importers()) + ")");
    }
  } else {
    row = FindRow(Importers(), format);
    if (row == nullptr) {
      return NotFound("unknown graph format '" + format + "' (expected " +
                      RowNames(Importers()) + ")");
    }
  }
  if (options.kv_cache_len < 0) return InvalidArgument(path + ": KV cache length must be >= 0");
  if (options.kv_cache_len > 0 && std::string_view(row->name) != "hf") {
    return InvalidArgument(path + ": a KV cache (cached generation) is built for HF decoder "
                           "configs only, not " + row->name + " graphs");
  }
  Result<OpGraph> g = row->factory.import(path, contents, options);
  if (!g.ok()) return g;
  if (g->source_format.empty()) g->source_format = row->name;
  Status valid = g->Validate();
  if (!valid.ok()) return valid.WithPrefix(path);
  return g;
}

Result<OpGraph> ImportGraph(const std::string& path,
                            const ImportOptions& options,
                            const std::string& format) {
  FRUGAL_ASSIGN_OR_RETURN(std::string contents, ReadFileToString(path));
  return ImportGraphFromContents(path, contents, options, format);
}

}  // namespace frugal
