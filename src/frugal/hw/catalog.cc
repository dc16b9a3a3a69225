#include "frugal/hw/catalog.h"

#include <cctype>
#include <set>
#include <utility>

namespace frugal {
namespace {

// How many valid names a NotFound message lists.
constexpr size_t kNamesInError = 8;

bool StartsWith(const std::string& s, std::string_view prefix) {
  return s.size() > prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

template <typename Spec>
std::string SomeNames(const std::vector<Spec>& specs) {
  std::string out;
  for (size_t i = 0; i < specs.size() && i < kNamesInError; ++i) {
    if (!out.empty()) out += ", ";
    out += specs[i].name;
  }
  if (specs.size() > kNamesInError) out += ", ...";
  return out;
}

Status CheckSources(const std::map<std::string, std::string>& sources,
                    const std::map<std::string, SourceRef>& refs,
                    const std::string& where) {
  for (const auto& [field, id] : sources) {
    if (refs.find(id) == refs.end()) {
      return InvalidArgument(where + ": source of " + field +
                             " names unknown reference \"" + id + "\"");
    }
  }
  return Status::Ok();
}

}  // namespace

const char* ProviderName(Provider p) {
  switch (p) {
    case Provider::kAws:
      return "aws";
    case Provider::kGcp:
      return "gcp";
    case Provider::kAzure:
      return "azure";
  }
  return "?";
}

std::optional<Provider> ParseProvider(std::string_view name) {
  if (name == "aws") return Provider::kAws;
  if (name == "gcp") return Provider::kGcp;
  if (name == "azure") return Provider::kAzure;
  return std::nullopt;
}

const char* InterconnectName(Interconnect i) {
  switch (i) {
    case Interconnect::kNone:
      return "none";
    case Interconnect::kPcie:
      return "pcie";
    case Interconnect::kNvlink:
      return "nvlink";
    case Interconnect::kNvswitch:
      return "nvswitch";
  }
  return "?";
}

std::optional<Interconnect> ParseInterconnect(std::string_view name) {
  if (name == "none") return Interconnect::kNone;
  if (name == "pcie") return Interconnect::kPcie;
  if (name == "nvlink") return Interconnect::kNvlink;
  if (name == "nvswitch") return Interconnect::kNvswitch;
  return std::nullopt;
}

std::string CatalogKey(std::string_view name) {
  std::string key;
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) key += static_cast<char>(std::tolower(u));
  }
  // Vendor words and Azure's size prefix say nothing about which part it is;
  // "NVIDIA Tesla V100" and "V100" must meet.
  for (std::string_view prefix : {"nvidia", "tesla", "standard"}) {
    if (StartsWith(key, prefix)) key.erase(0, prefix.size());
  }
  return key;
}

Result<Catalog> Catalog::Build(CatalogData data) {
  Catalog c;
  for (size_t i = 0; i < data.gpus.size(); ++i) {
    const GpuSpec& g = data.gpus[i];
    std::string where = g.origin + ": GPU \"" + g.name + "\"";
    FRUGAL_RETURN_IF_ERROR(CheckSources(g.sources, data.references, where));
    std::vector<std::string> names = g.aliases;
    names.insert(names.begin(), g.name);
    std::set<std::string> own_keys;
    for (const std::string& n : names) {
      std::string key = CatalogKey(n);
      if (key.empty()) {
        return InvalidArgument(where + ": name \"" + n +
                               "\" has no letters or digits");
      }
      if (!own_keys.insert(key).second) continue;  // same GPU, spelt twice
      auto [it, inserted] = c.gpu_index_.emplace(key, i);
      if (!inserted) {
        return InvalidArgument(where + ": duplicate GPU name \"" + n +
                               "\" (also names \"" +
                               data.gpus[it->second].name + "\")");
      }
    }
  }
  for (size_t i = 0; i < data.instances.size(); ++i) {
    InstanceSpec& inst = data.instances[i];
    std::string where = inst.origin + ": instance \"" + inst.name + "\"";
    FRUGAL_RETURN_IF_ERROR(CheckSources(inst.sources, data.references, where));
    auto gpu = c.gpu_index_.find(CatalogKey(inst.gpu));
    if (gpu == c.gpu_index_.end()) {
      return InvalidArgument(where + ": unknown GPU \"" + inst.gpu + "\"");
    }
    inst.gpu = data.gpus[gpu->second].name;
    std::string key = CatalogKey(inst.name);
    if (key.empty()) {
      return InvalidArgument(where + ": name has no letters or digits");
    }
    auto [it, inserted] = c.instance_index_.emplace(key, i);
    if (!inserted) {
      return InvalidArgument(where + ": duplicate instance name (also \"" +
                             data.instances[it->second].name + "\")");
    }
  }
  c.data_ = std::move(data);
  return c;
}

const GpuSpec* Catalog::FindGpu(std::string_view name) const {
  auto it = gpu_index_.find(CatalogKey(name));
  return it == gpu_index_.end() ? nullptr : &data_.gpus[it->second];
}

Result<const GpuSpec*> Catalog::LookupGpu(std::string_view name) const {
  if (const GpuSpec* g = FindGpu(name)) return g;
  return NotFound("unknown GPU \"" + std::string(name) +
                  "\"; known GPUs include " + SomeNames(data_.gpus));
}

const InstanceSpec* Catalog::FindInstance(std::string_view name) const {
  auto it = instance_index_.find(CatalogKey(name));
  return it == instance_index_.end() ? nullptr : &data_.instances[it->second];
}

Result<const InstanceSpec*> Catalog::LookupInstance(
    std::string_view name) const {
  if (const InstanceSpec* i = FindInstance(name)) return i;
  return NotFound("unknown instance \"" + std::string(name) +
                  "\"; known instances include " + SomeNames(data_.instances));
}

const SourceRef* Catalog::FindReference(std::string_view id) const {
  auto it = data_.references.find(std::string(id));
  return it == data_.references.end() ? nullptr : &it->second;
}

}  // namespace frugal
