#include "frugal/graph/importers/hf_config_reader.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace frugal::importers::hf {
namespace {

using nlohmann::json;

constexpr int64_t kDefaultSeqCap = 1024;

constexpr struct {
  const char* name;
  Activation act;
} kActivations[] = {
    {"gelu", {OpKind::kGelu, "gelu"}},
    {"gelu_new", {OpKind::kGeluTanh, "gelu_new"}},
    {"gelu_fast", {OpKind::kGeluTanh, "gelu_fast"}},
    {"gelu_pytorch_tanh", {OpKind::kGeluTanh, "gelu_pytorch_tanh"}},
    {"relu", {OpKind::kRelu, "relu"}},
    {"silu", {OpKind::kSilu, "silu"}},
    {"swish", {OpKind::kSilu, "silu"}},
    {"tanh", {OpKind::kTanh, "tanh"}},
    {"sigmoid", {OpKind::kSigmoid, "sigmoid"}},
};

std::string Dump(const json& v) {
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 40) + "..." : s;
}

// `max_positions` 0 means unbounded.
Result<Dims> Resolve(const ConfigReader& c, const ImportOptions& o,
                     int64_t max_positions, const char* field, int64_t def) {
  Dims d;
  d.batch = o.batch == 0 ? 1 : o.batch;
  if (d.batch < 0 || d.batch > kMaxDim) {
    return c.Error("batch " + std::to_string(o.batch) +
                   " is out of range [1, " + std::to_string(kMaxDim) + "]");
  }
  d.seq = o.seq_len == 0 ? def : o.seq_len;
  if (max_positions > 0 && d.seq > max_positions) {
    return c.Error("sequence length " + std::to_string(d.seq) + " exceeds " +
                   field + " (" + std::to_string(max_positions) + ")");
  }
  if (d.seq < 0 || d.seq > kMaxDim) {
    return c.Error("sequence length " + std::to_string(o.seq_len) +
                   " is out of range [1, " + std::to_string(kMaxDim) + "]");
  }
  d.past = o.kv_cache_len;
  if (d.past < 0 || d.past > kMaxDim) {
    return c.Error("KV cache length " + std::to_string(o.kv_cache_len) +
                   " is out of range [0, " + std::to_string(kMaxDim) + "]");
  }
  if (max_positions > 0 && d.past > 0 && d.seq + d.past > max_positions) {
    return c.Error(std::to_string(d.past) + " cached + " + std::to_string(d.seq) +
                   " new tokens exceed " + field + " (" + std::to_string(max_positions) + ")");
  }
  return d;
}

}  // namespace

ConfigReader::ConfigReader(const json& doc, std::string path)
    : doc_(doc), path_(std::move(path)) {}

std::string ConfigReader::stem() const {
  return std::filesystem::path(path_).stem().string();
}

bool ConfigReader::Has(const char* key) const {
  auto it = doc_.find(key);
  return it != doc_.end() && !it->is_null();
}

Result<int64_t> ConfigReader::Dim(const char* key, int64_t max) const {
  if (!Has(key)) return Error("missing field '" + std::string(key) + "'");
  return Integer(key, 1, max);
}

Result<int64_t> ConfigReader::OptionalDim(const char* key, int64_t def,
                                          int64_t max) const {
  return Has(key) ? Integer(key, 1, max) : Result<int64_t>(def);
}

Result<int64_t> ConfigReader::NumLabels() const {
  if (Has("num_labels")) return Dim("num_labels");
  if (Has("id2label")) {
    const json& m = doc_.at("id2label");
    if (!m.is_object() || m.empty())
      return Error("field 'id2label' is not a non-empty object");
    return static_cast<int64_t>(m.size());
  }
  return int64_t{2};
}

Result<int64_t> ConfigReader::Count(const char* key, int64_t def) const {
  return Has(key) ? Integer(key, 0, kMaxDim) : Result<int64_t>(def);
}

Result<double> ConfigReader::Probability(const char* key, double def) const {
  if (!Has(key)) return def;
  const json& v = doc_.at(key);
  double p = v.is_number() ? v.get<double>() : -1;
  if (!(p >= 0 && p < 1)) {
    return Error("field '" + std::string(key) +
                 "' must be a probability in [0, 1), got " + Dump(v));
  }
  return p;
}

Result<bool> ConfigReader::Flag(const char* key, bool def) const {
  if (!Has(key)) return def;
  const json& v = doc_.at(key);
  if (!v.is_boolean()) {
    return Error("field '" + std::string(key) +
                 "' must be true or false, got " + Dump(v));
  }
  return v.get<bool>();
}

Result<std::string> ConfigReader::String(const char* key,
                                         const std::string& def) const {
  if (!Has(key)) return def;
  const json& v = doc_.at(key);
  if (!v.is_string()) {
    return Error("field '" + std::string(key) + "' must be a string, got " +
                 Dump(v));
  }
  return v.get<std::string>();
}

Result<Activation> ConfigReader::Act(const char* key,
                                     const std::string& def) const {
  FRUGAL_ASSIGN_OR_RETURN(std::string name, String(key, def));
  return ActNamed(key, name);
}

Result<Activation> ConfigReader::ActNamed(const char* key,
                                          const std::string& name) const {
  for (const auto& row : kActivations) {
    if (name == row.name) return row.act;
  }
  return Unimplemented(path_ + ": " + key + " '" + name + "' not supported");
}

Status ConfigReader::Divisible(const char* key, int64_t value,
                               const char* by_key, int64_t by) const {
  if (value % by == 0) return Status::Ok();
  return Error("field '" + std::string(key) + "' (" + std::to_string(value) +
               ") is not divisible by '" + by_key + "' (" + std::to_string(by) +
               ")");
}

Status ConfigReader::Error(const std::string& what) const {
  return InvalidArgument(path_ + ": " + what);
}

Result<int64_t> ConfigReader::Integer(const char* key, int64_t min,
                                      int64_t max) const {
  const json& v = doc_.at(key);
  std::string field = "field '" + std::string(key) + "'";
  std::string want = min > 0 ? " must be a positive integer, got "
                             : " must be a non-negative integer, got ";
  double d = v.is_number() ? v.get<double>() : std::nan("");
  if (std::isnan(d) || d != std::floor(d) || d < static_cast<double>(min)) {
    return Error(field + want + Dump(v));
  }
  if (d > static_cast<double>(max)) {
    return Error(field + " is absurdly large (" + Dump(v) + ", limit " +
                 std::to_string(max) + ")");
  }
  return static_cast<int64_t>(d);
}

Result<CoreDims> ReadCoreDims(const ConfigReader& c, const char* ffn_key,
                              bool with_vocab) {
  CoreDims d;
  FRUGAL_ASSIGN_OR_RETURN(d.hidden, c.Dim("hidden_size"));
  FRUGAL_ASSIGN_OR_RETURN(d.layers, c.Dim("num_hidden_layers", kMaxLayers));
  FRUGAL_ASSIGN_OR_RETURN(d.heads, c.Dim("num_attention_heads"));
  FRUGAL_ASSIGN_OR_RETURN(d.ffn, c.Dim(ffn_key));
  d.vocab = 0;
  if (with_vocab) {
    FRUGAL_ASSIGN_OR_RETURN(d.vocab, c.Dim("vocab_size"));
  }
  return d;
}

Result<Dims> ResolveDims(const ConfigReader& c, const ImportOptions& o,
                         int64_t max_positions, const char* field) {
  return Resolve(c, o, max_positions, field,
                 std::min(max_positions, kDefaultSeqCap));
}

Result<Dims> ResolveUnboundedDims(const ConfigReader& c, const ImportOptions& o,
                                  int64_t def) {
  return Resolve(c, o, 0, "", def);
}

}  // namespace frugal::importers::hf
