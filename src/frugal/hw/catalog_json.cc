#include "frugal/hw/catalog_json.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <optional>
#include <set>
#include <span>
#include <utility>

namespace frugal {
namespace {

// Upper bounds on the catalog's figures, far above any GPU or instance
// sold, so that a typo (1e308) is an error rather than a confident answer.
constexpr double kMaxMemGib = 4096;
constexpr double kMaxGbps = 1e5;  // 100 TB/s
constexpr double kMaxTflops = 1e5;
constexpr double kMaxWatts = 1e4;
constexpr double kMaxGpusPerInstance = 1024;
constexpr double kMaxUsdPerHour = 1e4;

using nlohmann::json;

constexpr int kSchemaVersion = 1;

bool IsDate(const std::string& s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// Reads the fields of one JSON object, remembering which it used so that
// leftovers (usually typos) can be reported. Errors start with `where`.
class FieldReader {
 public:
  FieldReader(const json& obj, std::string where)
      : obj_(obj), where_(std::move(where)) {}

  Status Error(const std::string& what) const {
    return InvalidArgument(where_ + ": " + what);
  }

  // Absent and null both leave `out` empty.
  const json* Get(const char* key) {
    used_.insert(key);
    auto it = obj_.find(key);
    if (it == obj_.end() || it->is_null()) return nullptr;
    return &*it;
  }

  Status String(const char* key, bool required, std::string* out) {
    const json* v = Get(key);
    if (v == nullptr) {
      return required ? Error(std::string("missing required field ") + key)
                      : Status::Ok();
    }
    if (!v->is_string() || v->get_ref<const std::string&>().empty()) {
      return Error(std::string(key) + " must be a non-empty string");
    }
    *out = v->get<std::string>();
    return Status::Ok();
  }

  Status Date(const char* key, bool required, std::string* out) {
    FRUGAL_RETURN_IF_ERROR(String(key, required, out));
    if (!out->empty() && !IsDate(*out)) {
      return Error(std::string(key) + " must be a date YYYY-MM-DD, got \"" +
                   *out + "\"");
    }
    return Status::Ok();
  }

  // A finite number in [min, max] (no GPU or instance has more or less).
  Status Number(const char* key, bool required, std::optional<double>* out, double max, double min = 0) {
    FRUGAL_RETURN_IF_ERROR(Number(key, required, out));
    if (*out && (**out > max || **out < min)) {
      return Error(fmt::format("{} must be in [{}, {}], got {}", key, min, max, **out));
    }
    return Status::Ok();
  }

  // A positive, finite number.
  Status Number(const char* key, bool required, std::optional<double>* out) {
    const json* v = Get(key);
    if (v == nullptr) {
      return required ? Error(std::string("missing required field ") + key)
                      : Status::Ok();
    }
    if (!v->is_number()) {
      return Error(std::string(key) + " must be a number, got " + v->dump());
    }
    double d = v->get<double>();
    if (!std::isfinite(d) || d <= 0) {
      return Error(std::string(key) + " must be a positive number, got " +
                   v->dump());
    }
    *out = d;
    return Status::Ok();
  }

  Status RequiredNumber(const char* key, double* out, double max, double min) {
    std::optional<double> v;
    FRUGAL_RETURN_IF_ERROR(Number(key, true, &v, max, min));
    *out = *v;
    return Status::Ok();
  }

  // A positive whole number, at most `max`.
  Status Int(const char* key, bool required, std::optional<int>* out, double max = 1e9) {
    std::optional<double> d;
    FRUGAL_RETURN_IF_ERROR(Number(key, required, &d, max));
    if (!d) return Status::Ok();
    if (*d != std::floor(*d)) {
      return Error(std::string(key) + " must be a whole number, got " +
                   fmt::format("{}", *d));
    }
    *out = static_cast<int>(*d);
    return Status::Ok();
  }

  Status Bool(const char* key, bool* out) {
    const json* v = Get(key);
    if (v == nullptr) return Status::Ok();
    if (!v->is_boolean()) return Error(std::string(key) + " must be a boolean");
    *out = v->get<bool>();
    return Status::Ok();
  }

  Status StringList(const char* key, std::vector<std::string>* out) {
    const json* v = Get(key);
    if (v == nullptr) return Status::Ok();
    if (!v->is_array()) return Error(std::string(key) + " must be a list");
    for (const json& e : *v) {
      if (!e.is_string() || e.get_ref<const std::string&>().empty()) {
        return Error(std::string(key) + " must hold non-empty strings");
      }
      out->push_back(e.get<std::string>());
    }
    return Status::Ok();
  }

  // Resolves "source" (the default) and "sources" (per-field overrides) into
  // one source per figure present. A figure without one is an error: the
  // catalog holds no number that nobody published.
  Status Sources(const std::set<std::string>& present,
                 std::map<std::string, std::string>* out) {
    std::string fallback;
    FRUGAL_RETURN_IF_ERROR(String("source", false, &fallback));
    const json* v = Get("sources");
    if (v != nullptr) {
      if (!v->is_object()) return Error("sources must be an object");
      for (const auto& [field, id] : v->items()) {
        if (!id.is_string() || id.get_ref<const std::string&>().empty()) {
          return Error("sources." + field + " must be a reference id");
        }
        if (present.count(field) == 0) {
          return Error("sources." + field + " given but " + field +
                       " is absent or not a figure");
        }
        (*out)[field] = id.get<std::string>();
      }
    }
    for (const std::string& field : present) {
      if (out->count(field) != 0) continue;
      if (fallback.empty()) {
        return Error(field + " has no source (set \"source\" or sources." +
                     field + ")");
      }
      (*out)[field] = fallback;
    }
    return Status::Ok();
  }

  Status CheckNoUnknownFields() const {
    for (const auto& [key, value] : obj_.items()) {
      if (used_.count(key) == 0) return Error("unknown field \"" + key + "\"");
    }
    return Status::Ok();
  }

 private:
  const json& obj_;
  std::string where_;
  std::set<std::string> used_;
};

std::set<std::string> PresentFigures(const json& entry,
                                     std::span<const char* const> fields) {
  std::set<std::string> present;
  for (const char* f : fields) {
    if (!entry.at(f).is_null()) present.insert(f);
  }
  return present;
}

std::string EntryName(const json& e, const std::string& path, const char* list,
                      size_t i) {
  std::string where = fmt::format("{}: {}[{}]", path, list, i);
  auto it = e.find("name");
  if (it != e.end() && it->is_string()) {
    where += " \"" + it->get<std::string>() + "\"";
  }
  return where;
}

// "mig_profiles": [{"name": "1g.5gb", "compute_slices": 1, "memory_slices": 1}, ...]
Status ParseMigProfiles(const json* v, const std::string& where, GpuSpec* g) {
  if (v == nullptr) return Status::Ok();
  if (!v->is_array()) return InvalidArgument(where + ": mig_profiles must be a list");
  for (size_t i = 0; i < v->size(); ++i) {
    const std::string at = fmt::format("{}: mig_profiles[{}]", where, i);
    if (!(*v)[i].is_object()) return InvalidArgument(at + ": must be an object");
    FieldReader r((*v)[i], at);
    MigProfile p;
    std::optional<int> compute, memory;
    FRUGAL_RETURN_IF_ERROR(r.String("name", true, &p.name));
    FRUGAL_RETURN_IF_ERROR(r.Int("compute_slices", true, &compute, 64));
    FRUGAL_RETURN_IF_ERROR(r.Int("memory_slices", true, &memory, 64));
    FRUGAL_RETURN_IF_ERROR(r.CheckNoUnknownFields());
    if (*compute < 1 || *compute > 7) return r.Error("compute_slices must be 1..7");
    if (*memory < 1 || *memory > 8) return r.Error("memory_slices must be 1..8");
    p.compute_slices = *compute;
    p.memory_slices = *memory;
    p.mem_gib = g->mem_gib * p.memory_slices / 8;
    g->mig_profiles.push_back(std::move(p));
  }
  return Status::Ok();
}

Result<GpuSpec> ParseGpu(const json& e, const std::string& where) {
  if (!e.is_object()) return InvalidArgument(where + ": must be an object");
  FieldReader r(e, where);
  GpuSpec g;
  FRUGAL_RETURN_IF_ERROR(r.String("name", true, &g.name));
  FRUGAL_RETURN_IF_ERROR(r.String("vendor", true, &g.vendor));
  FRUGAL_RETURN_IF_ERROR(r.String("architecture", true, &g.architecture));
  FRUGAL_RETURN_IF_ERROR(r.String("form_factor", false, &g.form_factor));
  FRUGAL_RETURN_IF_ERROR(r.String("memory_type", false, &g.memory_type));
  if (!g.memory_type.empty() && g.memory_type.rfind("GDDR", 0) != 0 &&
      g.memory_type.rfind("HBM", 0) != 0) {
    return InvalidArgument(where + ": memory_type '" + g.memory_type +
                           "' is neither GDDR* nor HBM*");
  }
  FRUGAL_RETURN_IF_ERROR(r.StringList("aliases", &g.aliases));
  FRUGAL_RETURN_IF_ERROR(r.StringList("default_for", &g.default_for));
  FRUGAL_RETURN_IF_ERROR(r.RequiredNumber("mem_gib", &g.mem_gib, kMaxMemGib, 0.01));
  FRUGAL_RETURN_IF_ERROR(r.RequiredNumber("mem_bw_gbps", &g.mem_bw_gbps, kMaxGbps, 1));
  FRUGAL_RETURN_IF_ERROR(r.Number("fp32_tflops", false, &g.fp32_tflops, kMaxTflops, 1e-3));
  FRUGAL_RETURN_IF_ERROR(
      r.Number("fp16_tensor_tflops", false, &g.fp16_tensor_tflops, kMaxTflops));
  FRUGAL_RETURN_IF_ERROR(
      r.Number("bf16_tensor_tflops", false, &g.bf16_tensor_tflops, kMaxTflops));
  FRUGAL_RETURN_IF_ERROR(
      r.Number("tf32_tensor_tflops", false, &g.tf32_tensor_tflops, kMaxTflops));
  FRUGAL_RETURN_IF_ERROR(r.Int("sm_count", false, &g.sm_count, 10000));
  FRUGAL_RETURN_IF_ERROR(r.Number("l2_mib", false, &g.l2_mib, kMaxMemGib * 1024));
  FRUGAL_RETURN_IF_ERROR(r.Int("boost_clock_mhz", false, &g.boost_clock_mhz, 10000));
  FRUGAL_RETURN_IF_ERROR(r.Number("nvlink_gbps", false, &g.nvlink_gbps, kMaxGbps));
  FRUGAL_RETURN_IF_ERROR(r.Int("pcie_gen", false, &g.pcie_gen, 10));
  FRUGAL_RETURN_IF_ERROR(r.Number("tdp_w", false, &g.tdp_w, kMaxWatts));
  FRUGAL_RETURN_IF_ERROR(r.Number("sustained_fp32_gemm_tflops", false,
                                  &g.sustained_fp32_gemm_tflops, kMaxTflops));
  FRUGAL_RETURN_IF_ERROR(r.Number("benchmarked_fp32_gemm_tflops", false,
                                  &g.benchmarked_fp32_gemm_tflops, kMaxTflops));
  FRUGAL_RETURN_IF_ERROR(r.String("notes", false, &g.notes));
  FRUGAL_RETURN_IF_ERROR(ParseMigProfiles(r.Get("mig_profiles"), where, &g));

  std::set<std::string> present =
      PresentFigures(GpuToJson(g), kGpuFigureFields);
  FRUGAL_RETURN_IF_ERROR(r.Sources(present, &g.sources));
  FRUGAL_RETURN_IF_ERROR(r.CheckNoUnknownFields());
  return g;
}

Result<InstanceSpec> ParseInstance(const json& e, const std::string& where) {
  if (!e.is_object()) return InvalidArgument(where + ": must be an object");
  FieldReader r(e, where);
  InstanceSpec inst;
  std::string provider, interconnect;
  std::optional<int> gpu_count;
  FRUGAL_RETURN_IF_ERROR(r.String("name", true, &inst.name));
  FRUGAL_RETURN_IF_ERROR(r.String("provider", true, &provider));
  FRUGAL_RETURN_IF_ERROR(r.String("family", false, &inst.family));
  FRUGAL_RETURN_IF_ERROR(r.String("gpu", true, &inst.gpu));
  FRUGAL_RETURN_IF_ERROR(r.Int("gpu_count", true, &gpu_count, kMaxGpusPerInstance));
  FRUGAL_RETURN_IF_ERROR(r.Int("vcpus", false, &inst.vcpus, 100000));
  FRUGAL_RETURN_IF_ERROR(r.Number("ram_gib", false, &inst.ram_gib, kMaxMemGib * 1024));
  FRUGAL_RETURN_IF_ERROR(
      r.Number("network_gbit_per_s", false, &inst.network_gbit_per_s, kMaxGbps * 8));
  FRUGAL_RETURN_IF_ERROR(r.Bool("network_burst", &inst.network_burst));
  FRUGAL_RETURN_IF_ERROR(r.String("interconnect", false, &interconnect));
  FRUGAL_RETURN_IF_ERROR(
      r.Number("price_usd_per_hour", false, &inst.price_usd_per_hour, kMaxUsdPerHour));
  bool priced = inst.price_usd_per_hour.has_value();
  FRUGAL_RETURN_IF_ERROR(r.String("price_region", priced, &inst.price_region));
  FRUGAL_RETURN_IF_ERROR(r.Date("price_date", priced, &inst.price_date));
  FRUGAL_RETURN_IF_ERROR(r.String("notes", false, &inst.notes));
  inst.gpu_count = *gpu_count;

  auto p = ParseProvider(provider);
  if (!p)
    return r.Error("provider must be aws, gcp or azure, got \"" + provider +
                   "\"");
  inst.provider = *p;
  if (!interconnect.empty()) {
    inst.interconnect = ParseInterconnect(interconnect);
    if (!inst.interconnect) {
      return r.Error(
          "interconnect must be none, pcie, nvlink or nvswitch, got \"" +
          interconnect + "\"");
    }
  }
  if (!priced && (!inst.price_region.empty() || !inst.price_date.empty())) {
    return r.Error("price_region/price_date given without price_usd_per_hour");
  }

  std::set<std::string> present =
      PresentFigures(InstanceToJson(inst), kInstanceFigureFields);
  FRUGAL_RETURN_IF_ERROR(r.Sources(present, &inst.sources));
  FRUGAL_RETURN_IF_ERROR(r.CheckNoUnknownFields());
  return inst;
}

Result<SourceRef> ParseReference(const json& e, const std::string& id,
                                 const std::string& where) {
  if (!e.is_object()) return InvalidArgument(where + ": must be an object");
  FieldReader r(e, where);
  SourceRef ref;
  ref.id = id;
  std::string notes;
  FRUGAL_RETURN_IF_ERROR(r.String("url", true, &ref.url));
  FRUGAL_RETURN_IF_ERROR(r.String("title", true, &ref.title));
  FRUGAL_RETURN_IF_ERROR(r.Date("date", true, &ref.date));
  FRUGAL_RETURN_IF_ERROR(r.String("date_kind", true, &ref.date_kind));
  FRUGAL_RETURN_IF_ERROR(r.String("notes", false, &notes));
  if (ref.date_kind != "published" && ref.date_kind != "read") {
    return r.Error("date_kind must be \"published\" or \"read\", got \"" +
                   ref.date_kind + "\"");
  }
  FRUGAL_RETURN_IF_ERROR(r.CheckNoUnknownFields());
  return ref;
}

template <typename T>
json OrNull(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

}  // namespace

Status AppendCatalogJson(const json& doc, const std::string& path,
                         CatalogData* data) {
  if (!doc.is_object()) {
    return InvalidArgument(path + ": a catalog must be a JSON object");
  }
  FieldReader top(doc, path);
  std::optional<int> version;
  std::string notes;
  FRUGAL_RETURN_IF_ERROR(top.Int("schema_version", false, &version));
  if (version && *version != kSchemaVersion) {
    return top.Error(fmt::format("schema_version {} is not supported (want {})",
                                 *version, kSchemaVersion));
  }
  FRUGAL_RETURN_IF_ERROR(top.String("notes", false, &notes));
  const json* refs = top.Get("references");
  const json* gpus = top.Get("gpus");
  const json* instances = top.Get("instances");
  FRUGAL_RETURN_IF_ERROR(top.CheckNoUnknownFields());
  if (gpus == nullptr && instances == nullptr) {
    return top.Error("holds neither \"gpus\" nor \"instances\"");
  }

  if (refs != nullptr) {
    if (!refs->is_object()) return top.Error("references must be an object");
    for (const auto& [id, e] : refs->items()) {
      std::string where = path + ": references." + id;
      FRUGAL_ASSIGN_OR_RETURN(SourceRef ref, ParseReference(e, id, where));
      if (!data->references.emplace(id, std::move(ref)).second) {
        return InvalidArgument(where + ": duplicate reference id");
      }
    }
  }
  if (gpus != nullptr) {
    if (!gpus->is_array()) return top.Error("gpus must be a list");
    for (size_t i = 0; i < gpus->size(); ++i) {
      std::string where = EntryName((*gpus)[i], path, "gpus", i);
      FRUGAL_ASSIGN_OR_RETURN(GpuSpec g, ParseGpu((*gpus)[i], where));
      g.origin = path;
      data->gpus.push_back(std::move(g));
    }
  }
  if (instances != nullptr) {
    if (!instances->is_array()) return top.Error("instances must be a list");
    for (size_t i = 0; i < instances->size(); ++i) {
      std::string where = EntryName((*instances)[i], path, "instances", i);
      FRUGAL_ASSIGN_OR_RETURN(InstanceSpec inst,
                              ParseInstance((*instances)[i], where));
      inst.origin = path;
      data->instances.push_back(std::move(inst));
    }
  }
  return Status::Ok();
}

json GpuToJson(const GpuSpec& g) {
  json j;
  j["name"] = g.name;
  j["vendor"] = g.vendor;
  j["architecture"] = g.architecture;
  j["memory_type"] =
      g.memory_type.empty() ? json(nullptr) : json(g.memory_type);
  j["form_factor"] =
      g.form_factor.empty() ? json(nullptr) : json(g.form_factor);
  j["aliases"] = g.aliases;
  j["default_for"] = g.default_for;
  j["mem_gib"] = g.mem_gib;
  j["mem_bw_gbps"] = g.mem_bw_gbps;
  j["fp32_tflops"] = OrNull(g.fp32_tflops);
  j["fp16_tensor_tflops"] = OrNull(g.fp16_tensor_tflops);
  j["bf16_tensor_tflops"] = OrNull(g.bf16_tensor_tflops);
  j["tf32_tensor_tflops"] = OrNull(g.tf32_tensor_tflops);
  j["sm_count"] = OrNull(g.sm_count);
  j["l2_mib"] = OrNull(g.l2_mib);
  j["boost_clock_mhz"] = OrNull(g.boost_clock_mhz);
  j["nvlink_gbps"] = OrNull(g.nvlink_gbps);
  j["pcie_gen"] = OrNull(g.pcie_gen);
  j["tdp_w"] = OrNull(g.tdp_w);
  j["sustained_fp32_gemm_tflops"] = OrNull(g.sustained_fp32_gemm_tflops);
  j["benchmarked_fp32_gemm_tflops"] = OrNull(g.benchmarked_fp32_gemm_tflops);
  if (g.mig_profiles.empty()) {
    j["mig_profiles"] = nullptr;
  } else {
    for (const MigProfile& p : g.mig_profiles) {
      j["mig_profiles"].push_back({{"name", p.name},
                                   {"compute_slices", p.compute_slices},
                                   {"memory_slices", p.memory_slices}});
    }
  }
  j["notes"] = g.notes.empty() ? json(nullptr) : json(g.notes);
  j["sources"] = g.sources;
  return j;
}

json InstanceToJson(const InstanceSpec& i) {
  json j;
  j["name"] = i.name;
  j["provider"] = ProviderName(i.provider);
  j["family"] = i.family.empty() ? json(nullptr) : json(i.family);
  j["gpu"] = i.gpu;
  j["gpu_count"] = i.gpu_count;
  j["vcpus"] = OrNull(i.vcpus);
  j["ram_gib"] = OrNull(i.ram_gib);
  j["network_gbit_per_s"] = OrNull(i.network_gbit_per_s);
  j["network_burst"] = i.network_burst;
  j["interconnect"] =
      i.interconnect ? json(InterconnectName(*i.interconnect)) : json(nullptr);
  j["price_usd_per_hour"] = OrNull(i.price_usd_per_hour);
  j["price_region"] =
      i.price_region.empty() ? json(nullptr) : json(i.price_region);
  j["price_date"] = i.price_date.empty() ? json(nullptr) : json(i.price_date);
  j["notes"] = i.notes.empty() ? json(nullptr) : json(i.notes);
  j["sources"] = i.sources;
  return j;
}

json SourceRefToJson(const SourceRef& r) {
  return json{{"url", r.url},
              {"title", r.title},
              {"date", r.date},
              {"date_kind", r.date_kind}};
}

json CatalogToJson(const Catalog& c) {
  json j;
  j["schema_version"] = kSchemaVersion;
  j["references"] = json::object();
  for (const auto& [id, ref] : c.references()) {
    j["references"][id] = SourceRefToJson(ref);
  }
  j["gpus"] = json::array();
  for (const GpuSpec& g : c.gpus()) j["gpus"].push_back(GpuToJson(g));
  j["instances"] = json::array();
  for (const InstanceSpec& i : c.instances()) {
    j["instances"].push_back(InstanceToJson(i));
  }
  return j;
}

}  // namespace frugal
